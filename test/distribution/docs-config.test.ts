import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { CONFIG_DOC, configBlock, configRows, MARKERS, schemaKeys, showDefault } from "../../scripts/config-doc.ts";
import { currentBlock } from "../../scripts/doc-blocks.ts";
import { HELP } from "../../src/cli.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { FILE_SETTINGS } from "../../src/config/file-settings.ts";
import { FLAG_SETTINGS } from "../../src/config/flag-settings.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { ENV_SETTINGS } from "../../src/config/settings.ts";
import { restrictSourceConfig } from "../../src/config/source-config.ts";

const doc = () => readFileSync(CONFIG_DOC, "utf8");
const tables = () => ({ env: { ...ENV_SETTINGS }, flags: { ...FLAG_SETTINGS }, file: { ...FILE_SETTINGS } });

describe("docs/configuration.md", () => {
  test("its settings table is what scripts/config-doc.ts generates from the code (run `make readme` to update it)", () => {
    expect(currentBlock(doc(), MARKERS)).toBe(configBlock());
  });

  test("names every environment variable and every flag of the code, and every config key of the schema", () => {
    const block = currentBlock(doc(), MARKERS) ?? "";
    for (const name of Object.keys(ENV_SETTINGS)) expect(block).toContain(`\`${name}\``);
    for (const name of Object.keys(FLAG_SETTINGS)) expect(block).toContain(`\`--${name}\``);
    for (const key of schemaKeys()) expect(block).toContain(`| \`${key}\` |`);
    // The four the hand-written table had lost.
    for (const name of ["SKILLHUB_TRANSPORT", "SKILLHUB_PORT", "SKILLHUB_STATELESS", "SKILLHUB_REINDEX"])
      expect(block).toContain(`\`${name}\``);
  });

  test("a stale table is noticed", () => {
    const stale = doc().replace("`SKILLHUB_PORT`", "`SKILLHUB_OLD_PORT`");
    expect(currentBlock(stale, MARKERS)).not.toBe(configBlock());
  });

  test("a key without a description, or a setting for a key the schema lacks, stops the generator", () => {
    const missing = tables();
    missing.env.SKILLHUB_PORT = { ...ENV_SETTINGS.SKILLHUB_PORT!, description: "" };
    missing.flags.port = { ...FLAG_SETTINGS.port!, description: " " };
    expect(() => configRows(missing)).toThrow('"server.port" has no description');

    const unknown = tables();
    unknown.env.SKILLHUB_NOPE = { key: "server.nope", kind: "string", description: "x" };
    expect(() => configRows(unknown)).toThrow('SKILLHUB_NOPE maps to "server.nope"');

    const fileOnly = tables();
    delete fileOnly.file["matching.min_score"];
    expect(() => configRows(fileOnly)).toThrow('"matching.min_score" has no description');
  });

  test("defaults come from the schema unless settings.ts gives a display text", () => {
    const rows = new Map(configRows().map((r) => [r.key, r]));
    expect(rows.get("server.port")?.default).toBe("8000");
    expect(rows.get("sources.max_dirs")?.default).toBe("250,000");
    expect(rows.get("search.threshold")?.default).toBe("0.2");
    expect(rows.get("commands.allowed")?.default).toContain("`python`");
    expect(rows.get("server.catalog_budget")?.default).toBe("2,000 for Claude Code, else 6,000");
    expect(rows.get("git.repos")?.env).toEqual(["SKILLS_REPO"]);
    expect(rows.get("sources.watch")?.flags).toEqual(["--no-watch"]);
    expect(rows.get("matching.min_score")?.folder).toBe(true);
    expect(rows.get("git.repos")?.folder).toBe(false);
    expect(showDefault(undefined)).toBe("—");
    expect(showDefault({ ".sh": "bash" })).toBe("`.sh` → `bash`");
  });

  test("every documented flag is one the command line accepts, and every config flag is documented", () => {
    for (const [name, setting] of Object.entries(FLAG_SETTINGS)) {
      const argv = setting.kind === "bool" ? [`--${name}`] : [`--${name}`, "1"];
      expect(Object.keys(parseCommandLine(argv).flags)).toContain(name);
    }
    // args.ts keeps its config flags in a private set; read them from the source.
    const source = readFileSync(join(import.meta.dir, "../../src/config/args.ts"), "utf8");
    const set = /const CONFIG_FLAGS = new Set\(\[([^\]]*)\]\)/.exec(source)?.[1];
    expect(set).toBeDefined();
    const flags = [...(set ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect(flags.length).toBeGreaterThan(5);
    expect(flags.sort()).toEqual(Object.keys(FLAG_SETTINGS).sort());
    // `skillhub --help` names each of them too.
    for (const name of Object.keys(FLAG_SETTINGS)) expect(HELP).toContain(`--${name}`);
  });

  test("its config.yaml examples are valid: no error, no warning, and the values land", () => {
    const examples = [...doc().matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parseYaml(m[1] ?? ""));
    expect(examples.length).toBe(2);
    const resolve = (data: unknown) =>
      resolveConfig({ env: {}, files: [{ path: "config.yaml", data }], homeDir: "/home/u", cwd: "/" });
    const user = resolve(examples[0]);
    expect(user.warnings).toEqual([]);
    expect(user.config.search.limit).toBe(5);
    expect(user.config.scripts.runners[".rb"]).toBe("ruby");
    expect(user.config.scripts.runners[".sh"]).toBe("bash");
    // The second is a skills folder's file: it passes the folder restrictions untouched.
    const folder = restrictSourceConfig({ path: "config.yaml", data: examples[1] });
    expect(folder.warnings).toEqual([]);
    expect(resolve(folder.file.data).config.matching.max_results).toBe(5);
  });
});
