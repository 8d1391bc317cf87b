import { afterAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { clientHome, clientToolsEnabled } from "../helpers/client-tools.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { closedPort } from "../helpers/git.ts";
import { gemini, listed, trust } from "./gemini.ts";

/**
 * Gemini CLI (pinned, from .tools/) validates and installs the extension this repository is
 * (gemini-extension.json); the installed server must be Connected in `gemini mcp list`. Runs under
 * `make clients`.
 */
const ROOT = join(import.meta.dir, "..", "..");
afterAll(cleanupTemp);

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
