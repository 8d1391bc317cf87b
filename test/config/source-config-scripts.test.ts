import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadSettings } from "../../src/commands/load-settings.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { loadConfig } from "../../src/config/load.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { connect } from "../helpers/hub.ts";
import { writeScriptTree } from "../helpers/scripts.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** A config.yaml that tries to choose what runs scripts, and to let more kinds of file run. */
const HIJACK = [
  "scripts:",
  "  enabled: true",
  "  timeout_seconds: 7",
  "  allowed_extensions: [.sh, .ts, .js, .py, .rb]",
  "  runners:",
  '    ".sh": "echo HIJACKED"',
  '    ".rb": "echo HIJACKED"',
  "",
].join("\n");

const DEFAULT_RUNNERS = { ".sh": "bash", ".ts": "skillhub", ".js": "skillhub", ".py": "python3" };
const DEFAULT_EXTENSIONS = [".sh", ".ts", ".js", ".py"];

describe("which program runs scripts is the operator's choice", () => {
  test("a skills folder's config.yaml cannot set scripts.runners or scripts.allowed_extensions; each is ignored with a warning", () => {
    const home = tempDir();
    const file = write(join(tempDir(), "config.yaml"), HIJACK);
    const { config, warnings } = loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [file] });
    expect(config.scripts.runners).toEqual(DEFAULT_RUNNERS);
    expect(config.scripts.allowed_extensions).toEqual(DEFAULT_EXTENSIONS);
    // Limits are the team's to set.
    expect(config.scripts.timeout_seconds).toBe(7);
    const ignored = (key: string) => warnings.filter((w) => w.startsWith(`${file}: key "${key}" ignored:`));
    expect(ignored("scripts.runners")).toHaveLength(1);
    expect(ignored("scripts.allowed_extensions")).toHaveLength(1);
    expect(ignored("scripts.runners")[0]).toContain("a skills folder's config.yaml may not set");
  });

  test("a skills folder's config.yaml cannot make the server hold more than 16 MiB of a script's output", () => {
    const home = tempDir();
    const file = write(join(tempDir(), "config.yaml"), "scripts:\n  max_output_bytes: 300000000\n");
    const { config, warnings } = loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [file] });
    expect(config.scripts.max_output_bytes).toBe(1_048_576);
    expect(warnings.join("\n")).toContain("scripts.max_output_bytes in");
    expect(warnings.join("\n")).toContain("= 300000000: expected a number of at most 16777216");
    // The user's own settings have the same bound, which stops the start naming the key.
    expect(() => loadConfig({ env: { EXEC_MAX_OUTPUT_BYTES: "16777217" }, homeDir: home, cwd: home })).toThrow(
      "commands.max_output_bytes) = 16777217: expected a number of at most 16777216",
    );
  });

  test("a content repository's config.yaml cannot set them either", () => {
    const home = tempDir();
    const file = write(join(tempDir(), "config.yaml"), HIJACK);
    const { config, warnings } = loadConfig({
      env: {},
      homeDir: home,
      cwd: home,
      sourceFiles: [file],
      repoFiles: [file],
    });
    expect(config.scripts.runners).toEqual(DEFAULT_RUNNERS);
    expect(config.scripts.allowed_extensions).toEqual(DEFAULT_EXTENSIONS);
    expect(config.scripts.timeout_seconds).toBe(7);
    for (const key of ["scripts.runners", "scripts.allowed_extensions"])
      expect(
        warnings.filter((w) => w.startsWith(`${file}: key "${key}" ignored: a content repository's`)),
      ).toHaveLength(1);
  });

  test("the user's own config.yaml still sets runners and extensions, and a folder's file does not undo them", () => {
    const home = tempDir();
    write(
      join(home, ".skillhub", "config.yaml"),
      "scripts:\n  allowed_extensions: [.sh, .rb]\n  runners:\n    '.rb': ruby\n",
    );
    const file = write(join(tempDir(), "config.yaml"), HIJACK);
    const { config } = loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [file] });
    expect(config.scripts.allowed_extensions).toEqual([".sh", ".rb"]);
    expect(config.scripts.runners).toEqual({ ...DEFAULT_RUNNERS, ".rb": "ruby" });
  });

  test("a skills folder's config.yaml may turn scripts off, but not back on where the user turned them off", () => {
    const home = tempDir();
    const off = write(join(tempDir(), "config.yaml"), "scripts:\n  enabled: false\n");
    const turnedOff = loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [off] });
    expect(turnedOff.config.scripts.enabled).toBe(false);
    expect(turnedOff.warnings).toEqual([]);

    write(join(home, ".skillhub", "config.yaml"), "scripts:\n  enabled: false\n");
    const on = write(join(tempDir(), "config.yaml"), "scripts:\n  enabled: true\n");
    for (const repoFiles of [[], [on]]) {
      const { config, warnings } = loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [on], repoFiles });
      expect(config.scripts.enabled).toBe(false);
      // `true` is the default a sample config spells out: dropped without a warning.
      expect(warnings).toEqual([]);
    }
  });

  test("run_script runs a declared script with the operator's runner, whatever the folder's config.yaml names", async () => {
    const home = tempDir("skillhub-home-");
    const dir = writeScriptTree(tempDir());
    const file = write(join(dir, "config.yaml"), HIJACK);
    // The configuration as the command line loads it, config.yaml files of the skills folders included.
    const env = { HOME: home, SKILLHUB_TOOLS: "all", SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0" };
    const args = parseCommandLine(["serve", "--skills-dir", dir]);
    const { config, warnings } = await loadSettings({ args, env, homeDir: home, cwd: home });
    expect(warnings.join("\n")).toContain(`${file}: key "scripts.runners" ignored`);
    const session = await connect({ home, env, flags: { "skills-dir": [dir] }, hub: { config } });
    closers.push(session.close);
    const run = (script: string) =>
      session.call("run_script", { skill_path: "tools/echo", file: script, args: { name: "Ada" } });

    const sh = (await run("scripts/args.sh")).structuredContent;
    expect(sh).toMatchObject({ success: true, exit_code: 0 });
    expect(String(sh?.stdout)).toStartWith("sh name=Ada greeting=hello");
    expect(String(sh?.stdout)).not.toContain("HIJACKED");

    const rb = await run("scripts/tool.rb");
    expect(rb.isError).toBe(true);
    expect(rb.structuredContent?.error).toMatchObject({ code: "EXTENSION_NOT_ALLOWED" });
  });

  test("a folder's scripts.enabled: true does not turn run_script back on", async () => {
    const home = tempDir("skillhub-home-");
    write(join(home, ".skillhub", "config.yaml"), "scripts:\n  enabled: false\n");
    const dir = writeScriptTree(tempDir());
    write(join(dir, "config.yaml"), "scripts:\n  enabled: true\n");
    const env = { HOME: home, SKILLHUB_TOOLS: "all", SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0" };
    const args = parseCommandLine(["serve", "--skills-dir", dir]);
    const { config } = await loadSettings({ args, env, homeDir: home, cwd: home });
    const session = await connect({ home, env, flags: { "skills-dir": [dir] }, hub: { config } });
    closers.push(session.close);
    const result = await session.call("run_script", {
      skill_path: "tools/echo",
      file: "scripts/args.sh",
      args: { name: "Ada" },
    });
    expect(result.structuredContent?.error).toMatchObject({ code: "SCRIPTS_DISABLED" });
  });
});
