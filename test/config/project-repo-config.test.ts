import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../../src/cli.ts";
import { loadSettings } from "../../src/commands/load-settings.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { loadConfig } from "../../src/config/load.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo } from "../helpers/git.ts";
import { connect } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** Settings that act on every source: a project's repository tries to turn sync off and lift every limit. */
const SERVER_WIDE = [
  "refresh:",
  "  enabled: false",
  "  interval_minutes: 1",
  "scripts:",
  "  enabled: false",
  "  timeout_seconds: 86400",
  "  max_output_bytes: 16000000",
  "assets:",
  "  max_size_bytes: 16000000",
  "  inline_text_max_bytes: 16000000",
  "content:",
  "  max_tokens: 0",
  "analytics:",
  "  enabled: false",
  "  flush_seconds: 0.05",
  "  max_queue: 1000000",
  "matching:",
  "  min_score: 1",
  "  max_results: 1",
  "  ambiguity_threshold: 0",
  "",
].join("\n");

const KEYS = [
  "refresh.enabled",
  "refresh.interval_minutes",
  "scripts.enabled",
  "scripts.timeout_seconds",
  "scripts.max_output_bytes",
  "assets.max_size_bytes",
  "assets.inline_text_max_bytes",
  "content.max_tokens",
  "analytics.enabled",
  "analytics.flush_seconds",
  "analytics.max_queue",
  "matching.min_score",
  "matching.max_results",
  "matching.ambiguity_threshold",
];

/** A tree node declaring a 2 MiB text asset: over get_asset's default limit (1 MiB). */
const ROOT = [
  "---",
  "keywords: [big]",
  "description: A node with a large asset",
  "assets:",
  "  - file: big.txt",
  "    description: Two MiB of text",
  "---",
  "",
  "Rules.",
  "",
].join("\n");

describe("the config.yaml of a repository a project's skillhub.yaml names", () => {
  test("may not set what acts on every source (sync, scripts, limits, analytics, matching): each key ignored with a warning", () => {
    const home = tempDir();
    const file = write(join(tempDir(), "config.yaml"), SERVER_WIDE);
    const { config, warnings } = loadConfig({
      env: {},
      homeDir: home,
      cwd: home,
      sourceFiles: [file],
      projectRepoFiles: [file],
    });
    expect(config.refresh).toEqual({ enabled: true, interval_minutes: 15 });
    expect(config.scripts).toMatchObject({ timeout_seconds: 60, max_output_bytes: 1_048_576 });
    expect(config.assets).toEqual({ max_size_bytes: 1_048_576, inline_text_max_bytes: 10_240 });
    expect(config.content.max_tokens).toBe(8000);
    expect(config.analytics).toMatchObject({ flush_seconds: 30, max_queue: 10_000 });
    expect(config.scripts.enabled).toBe(true);
    expect(config.matching).toEqual({ min_score: 0.2, max_results: 3, ambiguity_threshold: 0.1 });
    const who = "a repository the project's skillhub.yaml names: its config.yaml may not set";
    expect(warnings).toHaveLength(KEYS.length);
    for (const [i, key] of KEYS.entries()) {
      expect(warnings[i]).toStartWith(`${file}: key "${key}" ignored: ${who} `);
      expect(warnings[i]).toContain(KEYS.join(", "));
      expect(warnings[i]).toEndWith("(they belong in ~/.skillhub/config.yaml or the environment).");
    }
    // A skills folder the user names, and a repository the user configured, still set them.
    for (const repoFiles of [[], [file]]) {
      const theirs = loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [file], repoFiles });
      expect(theirs.config.refresh.enabled).toBe(false);
      expect(theirs.config.assets.max_size_bytes).toBe(16_000_000);
      expect(theirs.warnings).toEqual([]);
    }
  });

  test("CLI: synced from a local bare repository, its asset limit does not make get_asset serve more", async () => {
    const home = tempDir("skillhub-home-");
    const project = tempDir("skillhub-project-");
    const remote = remoteRepo("project-skills", {
      "skills/_root.md": ROOT,
      "skills/_root/big.txt": "x".repeat(2 * 1_048_576),
      "config.yaml": SERVER_WIDE,
    });
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n    - ${remote.url}\n`);
    const env = { ...GIT_ENV, HOME: home, SKILLHUB_TOOLS: "all", SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0" };
    const io = { out: () => {}, err: () => {}, cwd: project };
    expect(await run(["sync", "--project", project], env, io)).toBe(0);
    const args = parseCommandLine(["serve", "--project", project]);
    const { config, warnings } = await loadSettings({ args, env, homeDir: home, cwd: project });
    expect(config.refresh.enabled).toBe(true);
    expect(config.assets.max_size_bytes).toBe(1_048_576);
    for (const key of KEYS) expect(warnings.join("\n")).toContain(`key "${key}" ignored`);
    const session = await connect({ home, env, flags: { project }, cwd: project, hub: { config } });
    closers.push(session.close);
    const result = await session.call("get_asset", { skill_path: "_root", file: "big.txt" });
    expect(result.structuredContent?.error).toMatchObject({ code: "FILE_TOO_LARGE", max_bytes: 1_048_576 });
  });
});

describe("the limits on what is held in memory have a bound", () => {
  test("over 16 MiB in the user's own file stops start-up, naming the key, the value and the bound", () => {
    const home = tempDir();
    const file = write(join(home, ".skillhub", "config.yaml"), "assets:\n  max_size_bytes: 1500000000\n");
    expect(() => loadConfig({ env: {}, homeDir: home, cwd: home })).toThrow(
      `Invalid configuration: assets.max_size_bytes in ${file} = 1500000000: expected a number of at most 16777216.`,
    );
  });

  test("so has analytics.max_queue, the events held in memory", () => {
    const home = tempDir();
    const file = write(join(home, ".skillhub", "config.yaml"), "analytics:\n  max_queue: 2000000\n");
    expect(() => loadConfig({ env: {}, homeDir: home, cwd: home })).toThrow(
      `Invalid configuration: analytics.max_queue in ${file} = 2000000: expected a number of at most 1000000.`,
    );
  });

  test("over 16 MiB in a content repository's file: that file is ignored, with the same words", () => {
    const home = tempDir();
    const file = write(join(tempDir(), "config.yaml"), "assets:\n  max_size_bytes: 1500000000\n");
    const { config, warnings } = loadConfig({
      env: {},
      homeDir: home,
      cwd: home,
      sourceFiles: [file],
      repoFiles: [file],
    });
    expect(config.assets.max_size_bytes).toBe(1_048_576);
    expect(warnings).toEqual([
      `assets.max_size_bytes in ${file} = 1500000000: expected a number of at most 16777216. ${file}'s settings are ignored.`,
    ]);
  });
});
