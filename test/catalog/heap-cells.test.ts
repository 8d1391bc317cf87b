import { heapStats } from "bun:jsc";
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PARSE_AHEAD_MIN } from "../../src/catalog/parse-ahead.ts";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { loadIndexFile, saveIndexFile } from "../../src/search/persist.ts";
import { readSnapshot, snapshotText } from "../../src/server/catalog-snapshot.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { NO_WORDS, type Skill } from "../../src/skills/skill.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 10_000 };
const pause = () => Promise.resolve();

/** `count` skills, every third with tags; the rest have none. */
function skillsFolder(count: number): string {
  const dir = tempDir("skillhub-cells-");
  for (let i = 0; i < count; i++)
    writeSkill(dir, `skill-${i}`, {
      description: `Skill number ${i}.`,
      extra: i % 3 === 0 ? `metadata:\n  skillhub:\n    tags: [t${i}]` : undefined,
    });
  return dir;
}

/** Skills without tags (or keywords) hold the one shared empty list; those with tags their own. */
function expectSharedEmpties(skills: readonly Skill[]): void {
  expect(skills.length).toBeGreaterThan(0);
  for (const skill of skills) {
    expect(skill.keywords).toBe(NO_WORDS);
    if (skill.tags.length === 0) expect(skill.tags).toBe(NO_WORDS);
    else expect(skill.tags).toEqual([`t${skill.name.slice("skill-".length)}`]);
  }
  expect(skills.filter((s) => s.tags !== NO_WORDS).length).toBe(Math.ceil(skills.length / 3));
}

/** Live string cells after a full collection. */
function strings(): number {
  Bun.gc(true);
  return heapStats().objectTypeCounts.string ?? 0;
}

describe("a catalog holds as few cells as it can: each is work for every full collection (issue 16: idle)", () => {
  test("empty tag and keyword lists are one shared list, parsed in place, in the worker or from the snapshot", async () => {
    const dir = skillsFolder(PARSE_AHEAD_MIN + 6);
    const sources = [{ label: "dir1", dir, location: "explicit" as const }];
    expectSharedEmpties(new Scanner().scan(sources, limits).skills);
    const failures: Error[] = [];
    const viaWorker = await new Scanner().parseInWorker({ failed: (e) => failures.push(e) }).scanAsync(sources, limits);
    expect(failures).toEqual([]);
    expectSharedEmpties(viaWorker.skills);

    const { hub } = testHub({ flags: { "skills-dir": [dir] } });
    hub.scanNow();
    const file = join(tempDir("skillhub-cells-snapshot-"), "catalog.json");
    writeFileSync(file, snapshotText(hub));
    const snapshot = readSnapshot(file, createMemoryLogger())?.catalog();
    if (!snapshot) throw new Error("no snapshot catalog");
    expectSharedEmpties(snapshot.skills);
    // A scan seeded with the snapshot builds its skills from the seeded parses: still shared.
    const seeded = new Scanner();
    expect(seeded.seed(snapshot)).toBe(PARSE_AHEAD_MIN + 6);
    expectSharedEmpties(seeded.scan(hub.sources(), limits).skills);
  });

  test("a loaded index takes the catalog's id and hash strings, but not a changed skill's hash", async () => {
    const dir = skillsFolder(1500);
    const sources = [{ label: "dir1", dir, location: "explicit" as const }];
    const catalog = new Scanner().scan(sources, limits);
    const body = (s: Skill) => skillBody(readFileSync(s.file, "utf8"));
    const built = FullTextIndex.empty();
    built.sync(catalog.skills, body);
    const file = join(tempDir("skillhub-cells-index-"), "index.bin");
    await saveIndexFile(file, "fp", built.snapshot(), pause);
    const result = await loadIndexFile(file, pause);
    if (!result.ok) throw new Error(result.reason);
    const index = FullTextIndex.fromParts(result.parts);

    // skill-7 changed on disk since the index was saved: its slot keeps the saved hash.
    writeSkill(dir, "skill-7", { description: "Skill number 7, edited after the index was saved." });
    const next = new Scanner().scan(sources, limits);
    const before = strings();
    index.shareStrings(next.skills);
    // The file's copies of 1,499 ids and hashes are gone (two strings a skill).
    expect(before - strings()).toBeGreaterThan(2 * 1499 * 0.9);
    expect(index.search("number 1234").map((h) => h.id)[0]).toBe("dir1:skill-1234");
    const stats = index.sync(next.skills, body);
    expect(stats).toEqual({ added: 0, updated: 1, removed: 0 });
    expect(index.search("edited after the index").map((h) => h.id)[0]).toBe("dir1:skill-7");
  });
});
