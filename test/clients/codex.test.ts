import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CLIENT_TOKEN,
  type ClientHome,
  clientFixture,
  clientHome,
  clientTools,
  clientToolsEnabled,
  offeredCommand,
  printConfig,
  runOffered,
  runTool,
} from "../helpers/client-tools.ts";
import { write } from "../helpers/fs.ts";

/**
 * Codex itself (pinned, from .tools/) reads what `skillhub print-config codex` prints from
 * ~/.codex/config.toml. `codex mcp list` shows the server configured and enabled but starts nothing,
 * so the connection is proven the way Codex's own app (the app server) asks: `mcpServerStatus/list`,
 * which starts the server, initializes it and lists its tools. Runs under `make clients`.
 */
const fixture = clientFixture();

const codex = (c: ClientHome, args: string[], stdin?: string) =>
  runTool([...clientTools().codex, ...args], { env: c.env, cwd: c.project, stdin });

interface McpStatus {
  name: string;
  serverInfo?: { name: string; version: string } | null;
  tools: Record<string, { name: string; description?: string }>;
  toolsError?: string | null;
}

/**
 * Codex's app server, spoken to over stdio as its own app does: initialize, then the MCP servers'
 * status. Each answer is one JSON line; the app server ends when its stdin closes.
 */
async function mcpStatus(c: ClientHome): Promise<McpStatus[]> {
  const requests = [
    { method: "initialize", id: 1, params: { clientInfo: { name: "skillhub-test", version: "1" } } },
    { method: "initialized" },
    { method: "mcpServerStatus/list", id: 2, params: { detail: "toolsAndAuthOnly" } },
  ];
  const proc = Bun.spawn([...clientTools().codex, "app-server"], {
    env: c.env,
    cwd: c.project,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  for (const r of requests) proc.stdin.write(`${JSON.stringify(r)}\n`);
  proc.stdin.flush();
  const stderr = new Response(proc.stderr).text();
  let answer: McpStatus[] | undefined;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      const message = JSON.parse(line) as { id?: number; result?: { data: McpStatus[] }; error?: unknown };
      if (message.id !== 2) continue;
      if (!message.result) throw new Error(`mcpServerStatus/list failed: ${JSON.stringify(message.error)}`);
      answer = message.result.data;
    }
    if (answer) break;
  }
  proc.stdin.end();
  await proc.exited;
  if (!answer) throw new Error(`codex app-server gave no MCP status:\n${await stderr}`);
  return answer;
}

describe.skipIf(!clientToolsEnabled)("Codex reads print-config's snippet from ~/.codex/config.toml", () => {
  test("stdio: `codex mcp list` shows it enabled, and the app server connects and lists SkillHub's tools", async () => {
    const c = clientHome();
    const { file, notes } = await printConfig("codex", ["--skills-dir", fixture.skills], c.env, c.project);
    write(join(c.home, ".codex", "config.toml"), file);
    // What print-config's note says a user sees in Codex's own list.
    expect(notes).toContain("`codex mcp list` then shows it enabled, with Auth Unsupported");
    expect((await codex(c, ["mcp", "list"])).out).toMatch(/^skillhub .* enabled +Unsupported *$/m);
    const list = await codex(c, ["mcp", "list", "--json"]);
    expect(list.code, list.err).toBe(0);
    const configured = (JSON.parse(list.out) as { name: string; enabled: boolean }[]).find(
      (s) => s.name === "skillhub",
    );
    expect(configured?.enabled).toBe(true);
    const status = (await mcpStatus(c)).find((s) => s.name === "skillhub");
    expect(status?.serverInfo?.name).toBe("skillhub");
    expect(Object.keys(status?.tools ?? {})).toContain("skill");
    expect(status?.tools.skill?.description).toContain("release-notes");
  });

  test("HTTP with a token: the file names SKILLHUB_HTTP_TOKEN, Codex reads it from its environment and connects", async () => {
    const c = clientHome();
    const { file, notes } = await printConfig(
      "codex",
      ["--http", fixture.server.url],
      { ...c.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN },
      c.project,
    );
    expect(file).not.toContain(CLIENT_TOKEN);
    expect(notes).toContain("export SKILLHUB_HTTP_TOKEN=");
    write(join(c.home, ".codex", "config.toml"), file);
    const withToken = { ...c, env: { ...c.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN } };
    const status = (await mcpStatus(withToken)).find((s) => s.name === "skillhub");
    expect(status?.serverInfo?.name).toBe("skillhub");
    expect(Object.keys(status?.tools ?? {})).toContain("search_skills");

    // Unset, Codex names the variable; set to another token, the server refuses it.
    const unset = (await mcpStatus(c)).find((s) => s.name === "skillhub");
    expect(unset?.toolsError).toContain(
      "Environment variable SKILLHUB_HTTP_TOKEN for MCP server 'skillhub' is not set",
    );
    const wrong = { ...c, env: { ...c.env, SKILLHUB_HTTP_TOKEN: "not-the-token-0000000000" } };
    const refused = (await mcpStatus(wrong)).find((s) => s.name === "skillhub");
    expect(Object.keys(refused?.tools ?? {})).toEqual([]);
    expect(refused?.serverInfo ?? null).toBeNull();
    expect(refused?.toolsError).toContain("Auth required");
  });

  test("stdio: the printed `codex mcp add` writes the same table into an existing config.toml, and it connects", async () => {
    const c = clientHome();
    const config = join(c.home, ".codex", "config.toml");
    write(config, 'model = "gpt-5"\n');
    const { file, notes } = await printConfig(
      "codex",
      ["--skills-dir", fixture.skills, "--no-watch"],
      c.env,
      c.project,
    );
    const added = await runOffered(c, offeredCommand(notes, "codex mcp add"));
    expect(added.code, added.err).toBe(0);
    const written = readFileSync(config, "utf8");
    expect(written).toStartWith('model = "gpt-5"\n');
    expect(written).toContain(file.trim());
    const status = (await mcpStatus(c)).find((s) => s.name === "skillhub");
    expect(status?.tools.skill?.description).toContain("release-notes");
  });

  test("HTTP with a token: the printed `codex mcp add` writes the same server, and it connects", async () => {
    const home = clientHome();
    const c = { ...home, env: { ...home.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN } };
    const { file, notes } = await printConfig("codex", ["--http", fixture.server.url], c.env, c.project);
    const line = offeredCommand(notes, "codex mcp add");
    expect(line).not.toContain(CLIENT_TOKEN);
    const added = await runOffered(c, line);
    expect(added.code, added.err).toBe(0);
    const got = await codex(c, ["mcp", "get", "skillhub", "--json"]);
    expect(JSON.parse(got.out).transport).toMatchObject({
      type: "streamable_http",
      url: fixture.server.url,
      bearer_token_env_var: "SKILLHUB_HTTP_TOKEN",
    });
    expect(readFileSync(join(c.home, ".codex", "config.toml"), "utf8").trim()).toBe(file.trim());
    const status = (await mcpStatus(c)).find((s) => s.name === "skillhub");
    expect(Object.keys(status?.tools ?? {})).toContain("search_skills");
  });
});
