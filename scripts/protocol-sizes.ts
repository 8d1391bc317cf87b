/**
 * What each client profile sees at session start, in bytes: the tools/list
 * answer and the instructions, over the skills in a folder (default
 * skills-example/, or ../shared/corpora when given). Prints a Markdown table
 * for docs/protocol.md. Usage: bun scripts/protocol-sizes.ts [skills-dir...]
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { resolveConfig } from "../src/config/resolve.ts";
import { createServer } from "../src/server/create-server.ts";
import { Hub } from "../src/server/hub.ts";
import { createLogger } from "../src/util/logger.ts";

const dirs = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["skills-example"];
const clients = ["claude-code", "codex", "vscode", "cursor"];
const profiles = ["auto", "skill", "hub", "all"];
const queries = ["skill", "how do i", "pdf", "git"];
console.log(
  "| client | profile | tools | tools/list bytes | instructions bytes | tool-search hits (skill / how do I / pdf / git) |",
);
console.log("|---|---|---|---|---|---|");
for (const clientName of clients) {
  for (const profile of profiles) {
    const env = { SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0", SKILLHUB_TOOLS: profile };
    const home = process.env.HOME ?? "/tmp";
    const { config } = resolveConfig({ env, flags: { "skills-dir": dirs }, homeDir: home, cwd: process.cwd() });
    const hub = new Hub({ config, logger: createLogger({ level: "SILENT" }), env, homeDir: home, cwd: process.cwd() });
    void hub.start();
    await hub.ready;
    const server = createServer(hub);
    const client = new Client({ name: clientName, version: "1.0.0" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    const { tools } = await client.listTools();
    const instructions = client.getInstructions() ?? "";
    const text = tools.map((t) => `${t.name} ${t.description ?? ""}`.toLowerCase());
    const hits = queries.map((q) => text.filter((t) => t.includes(q)).length).join(" / ");
    console.log(
      `| ${clientName} | ${profile} | ${tools.length} | ${JSON.stringify({ tools }).length} | ${Buffer.byteLength(instructions)} | ${hits} |`,
    );
    await client.close();
    hub.close();
  }
}
