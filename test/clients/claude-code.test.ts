import { describe, expect, test } from "bun:test";
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
import { tempDir, write } from "../helpers/fs.ts";
import { closedPort } from "../helpers/git.ts";

/**
 * Claude Code itself (pinned, from .tools/) reads what `skillhub print-config claude-code` prints and
 * installs the plugin from this repository's marketplace; its own `claude mcp list` must report the
 * server connected. Runs under `make clients`.
 */
const ROOT = join(import.meta.dir, "..", "..");
const fixture = clientFixture();

const claude = (c: ClientHome, args: string[]) =>
  runTool([...clientTools().claude, ...args], { env: c.env, cwd: c.project });

/** `claude mcp list`'s line for `name`, which must exist. */
async function listed(c: ClientHome, name: string): Promise<string> {
  const list = await claude(c, ["mcp", "list"]);
  const line = list.out.split("\n").find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`claude mcp list shows no ${name}:\n${list.out}${list.err}`);
  return line;
}

/**
 * The answers `claude` stores when a person opens the project: the folder is trusted, and its
 * .mcp.json server is approved (until then `mcp list` shows it pending and starts nothing).
 */
function approveProject(c: ClientHome): void {
  write(join(c.home, ".claude.json"), JSON.stringify({ projects: { [c.project]: { hasTrustDialogAccepted: true } } }));
  write(join(c.project, ".claude", "settings.local.json"), JSON.stringify({ enabledMcpjsonServers: ["skillhub"] }));
}

/** Runs a command line print-config offered, which must succeed. */
async function added(c: ClientHome, line: string) {
  const ran = await runOffered(c, line);
  expect(ran.code, ran.err).toBe(0);
}

describe.skipIf(!clientToolsEnabled)("Claude Code reads print-config's snippets", () => {
  test("stdio: the printed `claude mcp add --scope user` command, then `claude mcp list` says Connected", async () => {
    const c = clientHome();
    const { notes } = await printConfig("claude-code", ["--skills-dir", fixture.skills], c.env, c.project);
    await added(c, offeredCommand(notes, "claude mcp add"));
    expect(await listed(c, "skillhub")).toMatch(/✔ Connected/);
  });

  test("stdio: to change the server, the `claude mcp remove` the note names, then the new command (a second add is refused)", async () => {
    const c = clientHome();
    const first = await printConfig("claude-code", ["--skills-dir", fixture.skills], c.env, c.project);
    await added(c, offeredCommand(first.notes, "claude mcp add"));
    const changed = await printConfig("claude-code", ["--skills-dir", fixture.skills, "--no-watch"], c.env, c.project);
    const again = await runOffered(c, offeredCommand(changed.notes, "claude mcp add"));
    expect(again.code).not.toBe(0);
    expect(again.out + again.err).toContain("MCP server skillhub already exists in user config");
    const remove = changed.notes.match(/`(claude mcp remove [^`]+)`/)?.[1];
    expect(remove).toBe("claude mcp remove skillhub");
    await added(c, remove as string);
    await added(c, offeredCommand(changed.notes, "claude mcp add"));
    const got = await claude(c, ["mcp", "get", "skillhub"]);
    expect(got.out).toContain(`Args: --skills-dir ${fixture.skills} --no-watch`);
    expect(await listed(c, "skillhub")).toMatch(/✔ Connected/);
  });

  test("stdio: the printed .mcp.json at the project root, once the project's servers are approved", async () => {
    const c = clientHome();
    const { file, notes } = await printConfig("claude-code", ["--skills-dir", fixture.skills], c.env, c.project);
    write(join(c.project, ".mcp.json"), file);
    // What print-config's note says: Claude Code asks to approve the project's server first.
    expect(notes).toContain("Claude Code asks to approve it at its next start");
    expect(await listed(c, "skillhub")).toMatch(/Pending approval/);
    approveProject(c);
    expect(await listed(c, "skillhub")).toMatch(/✔ Connected/);
  });

  test("HTTP with a token: the printed command adds the server for every project, reading SKILLHUB_HTTP_TOKEN", async () => {
    const c = clientHome();
    const withToken = { ...c, env: { ...c.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN } };
    const printed = await printConfig("claude-code", ["--http", fixture.server.url], withToken.env, c.project);
    expect(printed.file + printed.notes).not.toContain(CLIENT_TOKEN);
    expect(printed.notes).toContain("export SKILLHUB_HTTP_TOKEN=");
    // Run once in the home folder, as a newcomer would: the server is there in the project too.
    await added({ ...c, project: c.home }, offeredCommand(printed.notes, "claude mcp add"));
    expect(await listed(withToken, "skillhub")).toMatch(/✔ Connected/);
    // Without the variable, Claude Code names the one that is missing.
    const unset = await claude(c, ["mcp", "list"]);
    expect(unset.out + unset.err).toContain("Missing environment variables: SKILLHUB_HTTP_TOKEN");
  });

  test("HTTP with a token: the printed .mcp.json holds no token; it connects with SKILLHUB_HTTP_TOKEN, not with another", async () => {
    const c = clientHome();
    const env = { ...c.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN };
    const printed = await printConfig("claude-code", ["--http", fixture.server.url], env, c.project);
    expect(printed.notes).toContain("# or merge into .mcp.json at the project root");
    write(join(c.project, ".mcp.json"), printed.file);
    approveProject(c);
    expect(await listed({ ...c, env }, "skillhub")).toMatch(/✔ Connected/);
    const wrong = { ...c, env: { ...c.env, SKILLHUB_HTTP_TOKEN: "not-the-token-0000000000" } };
    expect(await listed(wrong, "skillhub")).toMatch(/Failed to connect.*401/);
  });
});

describe.skipIf(!clientToolsEnabled)("the Claude Code plugin from this repository's marketplace", () => {
  test("`claude plugin validate --strict` passes on the marketplace and on the plugin", async () => {
    const c = clientHome();
    for (const path of [ROOT, join(ROOT, "packaging", "claude-plugin")]) {
      const checked = await claude(c, ["plugin", "validate", "--strict", path]);
      expect(checked.code, checked.out + checked.err).toBe(0);
      expect(checked.out).toContain("Validation passed");
    }
  });

  test("`claude plugin validate` fails on a broken plugin (the check can fail)", async () => {
    const c = clientHome();
    const broken = tempDir("skillhub-broken-plugin-");
    write(join(broken, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "Not A Valid Name!", version: 3 }));
    const checked = await claude(c, ["plugin", "validate", broken]);
    expect(checked.code).not.toBe(0);
  });

  for (const skillhub of ["path", "local-bin"] as const)
    test(`marketplace add, plugin install skillhub@skillhub: its server starts the installed skillhub (${skillhub === "path" ? "on PATH" : "in ~/.local/bin, not on PATH"}) and is Connected`, async () => {
      const c = clientHome({ skillhub });
      // Nothing is downloaded: a release would come from here, a closed port.
      c.env.SKILLHUB_DOWNLOAD_URL = `http://127.0.0.1:${closedPort()}/release`;
      const added = await claude(c, ["plugin", "marketplace", "add", ROOT]);
      expect(added.code, added.out + added.err).toBe(0);
      const installed = await claude(c, ["plugin", "install", "skillhub@skillhub"]);
      expect(installed.code, installed.out + installed.err).toBe(0);
      expect(await listed(c, "plugin:skillhub:skillhub")).toMatch(/✔ Connected/);
    });
});
