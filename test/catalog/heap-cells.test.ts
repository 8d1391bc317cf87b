import { heapStats } from "bun:jsc";
import { afterAll, describe, expect, test } from "bun:test";
import * as nodeFs from "node:fs";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PARSE_AHEAD_MIN } from "../../src/catalog/parse-ahead.ts";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { loadIndexFile, saveIndexFile } from "../../src/search/persist.ts";
import { readSnapshot, snapshotText } from "../../src/server/catalog-snapshot.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { NO_WORDS, type Skill } from "../../src/skills/skill.ts";
import { FolderListings } from "../../src/sources/walk-listings.ts";
import type { WalkResult } from "../../src/sources/walk-types.ts";
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

/** Live plain objects after a full collection. */
function objects(): number {
  Bun.gc(true);
  return heapStats().objectTypeCounts.Object ?? 0;
}

/** Live cells of every kind after a full collection. */
function cells(): number {
  Bun.gc(true);
  return heapStats().objectCount;
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

  test("a loaded index tells a changed skill by its saved hash (compared in place)", async () => {
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
    expect(index.search("number 1234").map((h) => h.id)[0]).toBe("dir1:skill-1234");
    const stats = index.sync(next.skills, body);
    expect(stats).toEqual({ added: 0, updated: 1, removed: 0 });
    expect(index.search("edited after the index").map((h) => h.id)[0]).toBe("dir1:skill-7");
  });

  test("a loaded index's vocabulary is one string a field, whatever the number of terms", async () => {
    const dir = skillsFolder(1500);
    const skills = new Scanner().scan([{ label: "dir1", dir, location: "explicit" as const }], limits).skills;
    const built = FullTextIndex.empty();
    built.sync(skills, (s: Skill) => skillBody(readFileSync(s.file, "utf8")));
    const file = join(tempDir("skillhub-cells-vocabulary-"), "index.bin");
    await saveIndexFile(file, "fp", built.snapshot(), pause);
    const beforeLoad = strings();
    const result = await loadIndexFile(file, pause);
    if (!result.ok) throw new Error(result.reason);
    const loaded = FullTextIndex.fromParts(result.parts);
    // A few strings per field and one per id and hash list (test/search/index-heap-cells.test.ts):
    // 1,500 distinct numbers alone are 1,500 terms in each of three fields.
    expect(strings() - beforeLoad).toBeLessThan(100);
    for (const index of [built, loaded]) {
      expect(index.search("number 1234").map((h) => h.id)[0]).toBe("dir1:skill-1234");
      // A prefix expands over the packed vocabulary: "12" reaches 1200–1299 and 12 itself.
      expect(index.search("skill 12").length).toBeGreaterThan(100);
    }
  });

  test("folder listings keep no object per skill folder, and a folder's names as one string", () => {
    const dir = skillsFolder(1500);
    nodeFs.mkdirSync(join(dir, "skill-3", "scripts"));
    const folders = readdirSync(dir)
      .sort()
      .map((name) => join(dir, name));
    const listings = new FolderListings(nodeFs);
    const result = { reread: 0, diagnostics: [] } as unknown as WalkResult;
    const before = cells();
    const root = listings.list(dir, result, false);
    for (const folder of folders) listings.list(folder, result, false);
    // 1,500 entries of the root and 1,500 listings of skill folders were 4,500 cells; one folder is not a leaf.
    expect(cells() - before).toBeLessThan(100);
    expect(result.reread).toBe(1501);
    expect([...(root?.entries ?? [])]).toEqual(folders.map((f) => ({ name: f.slice(dir.length + 1), kind: "dir" })));
    const leaf = listings.list(folders[0] as string, result, true);
    expect(leaf).toMatchObject({ hasSkill: true, leafSkill: true });
    expect([...(leaf?.entries ?? [])]).toEqual([{ name: "SKILL.md", kind: "file" }]);
    const withScripts = listings.list(join(dir, "skill-3"), result, false);
    expect(withScripts).toMatchObject({ hasSkill: true, leafSkill: false });
    expect([...(withScripts?.entries ?? [])].map((e) => e.name)).toEqual(["SKILL.md", "scripts"]);
    // Nothing changed: every listing was kept (no folder read again).
    expect(result.reread).toBe(1501);
  });

  test("a scan keeps one string per path (the walk's own, parsed in the worker too) and one cache object per skill: the skill", async () => {
    const count = PARSE_AHEAD_MIN + 500;
    const dir = skillsFolder(count);
    const sources = [{ label: "dir1", dir, location: "explicit" as const }];
    const failures: Error[] = [];
    // A first scan in a worker, not counted: what the first one in a process leaves for good (measured: alone,
    // 8.6 strings a skill; after the rest of test/catalog, 9.3; below 8.5 only after some other tests).
    const warm = [{ label: "warm", dir: skillsFolder(PARSE_AHEAD_MIN + 5), location: "explicit" as const }];
    await new Scanner().parseInWorker({ failed: (e) => failures.push(e) }).scanAsync(warm, limits);
    const before = strings();
    const beforeObjects = objects();
    const scanner = new Scanner().parseInWorker({ failed: (e) => failures.push(e) });
    const catalog = await scanner.scanAsync(sources, limits);
    expect(failures).toEqual([]);
    expect(catalog.skills.length).toBe(count);
    // name, description, id, hash, file and folder, and a third of the skills' tag (in the list and the
    // frontmatter): 7.6. With the parse's own copies of both paths beside the walk's, 9.6.
    expect((strings() - before) / count).toBeLessThan(8.5);
    // The skill, its frontmatter and a third of the skills' metadata: 3.7, while the catalog holds its
    // Skill objects (skill-table.test.ts: once it drops them, the parse cache keeps none either).
    expect((objects() - beforeObjects) / count).toBeLessThan(4.2);
    expect(catalog.skills.every((s) => s.file === join(s.dir, "SKILL.md"))).toBe(true);
  });
});
