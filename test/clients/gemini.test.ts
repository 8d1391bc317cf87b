import { describe, expect, test } from "bun:test";
import { cpSync, readFileSync } from "node:fs";
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
 * Gemini CLI itself (pinned, from .tools/) reads what `skillhub print-config gemini` prints from its
 * own settings file, and installs the extension this repository is; its own `gemini mcp list` must
 * report the server connected. Runs under `make clients`.
 */
const ROOT = join(import.meta.dir, "..", "..");
const fixture = clientFixture();

const gemini = (c: ClientHome, args: string[]) =>
  runTool([...clientTools().gemini, ...args], { env: c.env, cwd: c.project });

/**
 * Gemini CLI starts no MCP server in a folder the user has not trusted (it asks once); this is the
 * answer it stores, for the project and any other folder given.
 */
function trust(c: ClientHome, ...more: string[]): void {
  const folders = Object.fromEntries([c.project, ...more].map((dir) => [dir, "TRUST_FOLDER"]));
  write(join(c.home, ".gemini", "trustedFolders.json"), JSON.stringify(folders));
}

/** `gemini mcp list`'s line for the skillhub server, which must exist. */
async function listed(c: ClientHome): Promise<string> {
  const list = await gemini(c, ["mcp", "list"]);
  const line = `${list.out}\n${list.err}`.split("\n").find((l) => / skillhub\b.*\((stdio|http)\)/.test(l));
  if (!line) throw new Error(`gemini mcp list shows no skillhub:\n${list.out}${list.err}`);
  return line;
}

/** The configured stdio server: Disabled until the project folder is trusted, then Connected. */
async function connectsOnceTrusted(c: ClientHome): Promise<void> {
  expect(await listed(c)).toMatch(/skillhub: .*\(stdio\) - Disabled/);
  trust(c);
  expect(await listed(c)).toMatch(/✓ skillhub: .*\(stdio\) - Connected/);
}

describe.skipIf(!clientToolsEnabled)("Gemini CLI reads print-config's snippet from ~/.gemini/settings.json", () => {
  test("stdio", async () => {
    const c = clientHome();
    const { file, notes } = await printConfig("gemini", ["--skills-dir", fixture.skills], c.env, c.project);
    write(join(c.home, ".gemini", "settings.json"), file);
    // What print-config's note says a user sees before answering Gemini CLI's trust question.
    expect(notes).toContain("until then `gemini mcp list` says Disabled");
    await connectsOnceTrusted(c);
  });

  test("HTTP with a token: the file names SKILLHUB_HTTP_TOKEN, Gemini CLI reads it and connects; another is refused", async () => {
    const c = clientHome();
    const env = { ...c.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN };
    const { file, notes } = await printConfig("gemini", ["--http", fixture.server.url], env, c.project);
    expect(file).not.toContain(CLIENT_TOKEN);
    expect(notes).toContain("export SKILLHUB_HTTP_TOKEN=");
    write(join(c.home, ".gemini", "settings.json"), file);
    trust(c);
    expect(await listed({ ...c, env })).toMatch(/✓ skillhub: .*\(http\) - Connected/);
    const wrong = { ...c, env: { ...c.env, SKILLHUB_HTTP_TOKEN: "not-the-token-0000000000" } };
    expect(await listed(wrong)).not.toContain("- Connected");
    expect(await listed(c)).not.toContain("- Connected");
  });
});

/** What Gemini CLI keeps in settings.json after its first start: the sign-in method the user chose. */
const SIGNED_IN = { security: { auth: { selectedType: "gemini-api-key" } } };

describe.skipIf(!clientToolsEnabled)("the `gemini mcp add` command print-config offers", () => {
  test("stdio: it merges the server into an existing settings.json with the same arguments, and it connects", async () => {
    const c = clientHome();
    write(join(c.home, ".gemini", "settings.json"), JSON.stringify(SIGNED_IN));
    const args = ["--skills-dir", fixture.skills, "--no-watch", "--tools", "hub", "--log-level", "WARN"];
    const { file, notes } = await printConfig("gemini", args, c.env, c.project);
    const added = await runOffered(c, offeredCommand(notes, "gemini mcp add"));
    expect(added.code, added.out + added.err).toBe(0);
    const settings = JSON.parse(readFileSync(join(c.home, ".gemini", "settings.json"), "utf8"));
    expect(settings.security).toEqual(SIGNED_IN.security);
    expect(settings.mcpServers.skillhub).toEqual(JSON.parse(file).mcpServers.skillhub);
    await connectsOnceTrusted(c);
  });

  test("HTTP with a token: the command holds no token; Gemini CLI reads SKILLHUB_HTTP_TOKEN and connects", async () => {
    const c = clientHome();
    const env = { ...c.env, SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN };
    const { notes } = await printConfig("gemini", ["--http", fixture.server.url], env, c.project);
    const line = offeredCommand(notes, "gemini mcp add");
    expect(line).not.toContain(CLIENT_TOKEN);
    const added = await runOffered(c, line);
    expect(added.code, added.out + added.err).toBe(0);
    trust(c);
    expect(await listed({ ...c, env })).toMatch(/✓ skillhub: .*\(http\) - Connected/);
    expect(await listed(c)).not.toContain("- Connected");
  });
});

describe.skipIf(!clientToolsEnabled)("the Gemini CLI extension (gemini-extension.json)", () => {
  test("`gemini extensions validate` passes on this repository and fails on a broken manifest", async () => {
    const c = clientHome();
    const ok = await gemini(c, ["extensions", "validate", ROOT]);
    expect(ok.code, ok.out + ok.err).toBe(0);
    const broken = tempDir("skillhub-broken-extension-");
    write(join(broken, "gemini-extension.json"), JSON.stringify({ name: "skillhub", mcpServers: "no" }));
    const bad = await gemini(c, ["extensions", "validate", broken]);
    expect(bad.code).not.toBe(0);
  });

  for (const skillhub of ["path", "local-bin"] as const)
    test(`install from the repository's files: its server starts the installed skillhub (${skillhub === "path" ? "on PATH" : "in ~/.local/bin, not on PATH"}) and is Connected`, async () => {
      const c = clientHome({ skillhub });
      // Nothing is downloaded: a release would come from here, a closed port.
      c.env.SKILLHUB_DOWNLOAD_URL = `http://127.0.0.1:${closedPort()}/release`;
      // What `gemini extensions install https://github.com/…` fetches, less the rest of the repository.
      const source = tempDir("skillhub-extension-source-");
      cpSync(join(ROOT, "gemini-extension.json"), join(source, "gemini-extension.json"));
      cpSync(join(ROOT, "packaging", "claude-plugin"), join(source, "packaging", "claude-plugin"), { recursive: true });
      trust(c, source);
      const installed = await gemini(c, ["extensions", "install", source, "--consent"]);
      expect(installed.code, installed.out + installed.err).toBe(0);
      expect(await listed(c)).toMatch(
        /✓ skillhub \(from skillhub\): .*packaging\/claude-plugin\/bin\/skillhub serve \(stdio\) - Connected/,
      );
    });
});
