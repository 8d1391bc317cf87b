import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CLIENT_TOKEN,
  clientFixture,
  clientHome,
  clientToolsEnabled,
  offeredCommand,
  printConfig,
  runOffered,
} from "../helpers/client-tools.ts";
import { write } from "../helpers/fs.ts";
import { connectsOnceTrusted, listed, trust } from "./gemini.ts";

/**
 * Gemini CLI itself (pinned, from .tools/) reads what `skillhub print-config gemini` prints from its
 * own settings file; its own `gemini mcp list` must report the server connected (the extension this
 * repository is: gemini-extension.test.ts). Runs under `make clients`.
 */
const fixture = clientFixture();

describe.skipIf(!clientToolsEnabled)("Gemini CLI reads print-config's snippet from ~/.gemini/settings.json", () => {
  test("stdio", async () => {
    const c = clientHome();
    const { file, notes } = await printConfig("gemini", ["--skills-dir", fixture.skills], c.env, c.project);
    write(join(c.home, ".gemini", "settings.json"), file);
    // What print-config's note says a user sees before answering Gemini CLI's trust question.
    expect(notes).toContain("until then `gemini mcp list` says Disabled");
    expect(notes).toContain('~/.gemini/trustedFolders.json: {"/path/to/folder": "TRUST_FOLDER"}');
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
