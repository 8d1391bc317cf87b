/**
 * `make run`: start the built server on a skills folder, talk to it as an MCP
 * client would, and show how to connect a real client. Usage: demo.ts BINARY DIR
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [binary = "dist/skillhub", dir = "skills-example"] = process.argv.slice(2);
const bin = resolve(binary);
const skills = resolve(dir);
const say = (text = "") => process.stdout.write(`${text}\n`);
// SkillHub's own folder for the demo alone: its load of a skill must not count in your usage ranking.
const home = mkdtempSync(join(tmpdir(), "skillhub-demo-"));

const transport = new StdioClientTransport({
  command: bin,
  args: ["--skills-dir", skills, "--no-watch"],
  env: { ...(process.env as Record<string, string>), LOG_LEVEL: "WARN", SKILLHUB_HOME: home },
  stderr: "inherit",
});
const client = new Client({ name: "skillhub-demo", version: "1.0.0" });
const started = performance.now();
await client.connect(transport);
const info = client.getServerVersion();
say(
  `Connected to ${info?.name} ${info?.version} over stdio in ${(performance.now() - started).toFixed(0)} ms (${bin}).`,
);
const { tools } = await client.listTools();
say(`Tools: ${tools.map((t) => t.name).join(", ")}`);
const skill = tools.find((t) => t.name === "skill");
const names = [...(skill?.description ?? "").matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1]);
say(`Agent Skills in ${dir}/ (the skill tool's list): ${names.join(", ")}`);
if (tools.some((t) => t.name === "get_skill")) {
  // Its tree of keyword-routed Markdown skills, as list_skills returns it.
  type Node = { path: string; children?: Node[] };
  const listed = await client.callTool({ name: "list_skills", arguments: {} });
  const tree = JSON.parse((listed.content as { text?: string }[])[0]?.text ?? "{}").tree as Node | undefined;
  const paths = (node: Node): string[] => [node.path, ...(node.children ?? []).flatMap(paths)];
  if (tree) say(`Tree nodes (routed by get_skill): ${paths(tree).join(", ")}`);
}
const first = names.includes("pdf-invoice-extractor") ? "pdf-invoice-extractor" : names[0];
if (first) {
  const result = await client.callTool({ name: "skill", arguments: { name: first } });
  const text = (result.content as { type: string; text?: string }[])[0]?.text ?? "";
  say(`\nskill(name: "${first}") returned ${text.length} characters:\n`);
  say(
    text
      .split("\n")
      .slice(0, 8)
      .map((l) => `  | ${l}`)
      .join("\n"),
  );
  say("  | ...");
}
await client.close();
rmSync(home, { recursive: true, force: true });
say(`
Try it in your MCP client (the binary's absolute path; see also ${binary} print-config CLIENT):
  Claude Code, in this folder only:  claude mcp add skillhub -- ${bin} --skills-dir ${skills}
  Claude Desktop:  ${binary} print-config claude-desktop --skills-dir ${skills}
For everyday use, install the binary first (make clean removes dist/): README.md, "Install".
Run the bare stdio server yourself with: make serve`);
