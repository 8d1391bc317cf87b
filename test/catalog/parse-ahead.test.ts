import { afterAll, describe, expect, test } from "bun:test";
import { PARSE_AHEAD_MIN } from "../../src/catalog/parse-ahead.ts";
import { Scanner } from "../../src/catalog/scanner.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 10_000 };

/** A folder with `count` skills (bodies with headings), one without frontmatter and one with broken YAML. */
function skillsFolder(count: number): string {
  const dir = tempDir("skillhub-parse-ahead-");
  for (let i = 0; i < count; i++)
    writeSkill(dir, `skill-${i}`, {
      description: `Skill number ${i} helps with topic ${i % 7}.`,
      extra: `metadata:\n  skillhub:\n    tags: [t${i % 5}, shared]`,
      body: `# Skill ${i}\n\n## Usage ${i}\n\nRun step ${i}.\r\n\n### Notes\n`,
    });
  write(`${dir}/no-frontmatter/SKILL.md`, "# Just a heading\n");
  write(`${dir}/bad-yaml/SKILL.md`, "---\nname: bad-yaml\ndescription: [unclosed\n---\nbody\n");
  return dir;
}

const sources = (dir: string) => [{ label: "dir1", dir, location: "explicit" as const }];

describe("a first scan parses its SKILL.md files in a worker (a smaller main heap)", () => {
  test("the catalog and diagnostics are the same as parsing in place, and the next scan reuses the parses", async () => {
    const dir = skillsFolder(PARSE_AHEAD_MIN + 20);
    const failures: Error[] = [];
    const parsed: number[] = [];
    const inWorker = new Scanner().parseInWorker({
      failed: (error) => failures.push(error),
      parsed: (files) => parsed.push(files),
    });
    const viaWorker = await inWorker.scanAsync(sources(dir), limits);
    const inPlace = await new Scanner().scanAsync(sources(dir), limits);
    expect(failures).toEqual([]);
    expect(parsed).toEqual([PARSE_AHEAD_MIN + 22]);
    expect(viaWorker.skills.length).toBe(PARSE_AHEAD_MIN + 20);
    expect(viaWorker.skills).toEqual(inPlace.skills);
    expect(viaWorker.diagnostics).toEqual(inPlace.diagnostics);
    expect(viaWorker.diagnostics.map((d) => d.code).sort()).toEqual(["no-frontmatter", "yaml-error"]);
    const skill = viaWorker.skills.find((s) => s.name === "skill-7");
    expect(skill?.tags).toEqual(["t2", "shared"]);
    // Unchanged on disk: the second scan gives back the same catalog (every parse was kept).
    expect(await inWorker.scanAsync(sources(dir), limits)).toBe(viaWorker);
    expect(parsed).toHaveLength(1);
  });

  test("below PARSE_AHEAD_MIN new files, or a scan with an injected reader, parses in place", async () => {
    const dir = skillsFolder(3);
    const reads: string[] = [];
    const scanner = new Scanner(undefined, (file) => {
      reads.push(file);
      return require("node:fs").readFileSync(file, "utf8");
    }).parseInWorker({ failed: () => undefined });
    const catalog = await scanner.scanAsync(sources(dir), limits);
    expect(catalog.skills.map((s) => s.name).sort()).toEqual(["skill-0", "skill-1", "skill-2"]);
    expect(reads.length).toBe(5);
  });
});
