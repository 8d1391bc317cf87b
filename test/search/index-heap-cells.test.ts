import { heapStats } from "bun:jsc";
import { describe, expect, test } from "bun:test";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { decodeIndexFile, encodeIndexFile } from "../../src/search/index-file.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { fakeSkill } from "../helpers/skill.ts";

/**
 * A full-text index keeps no string per skill at rest (issue 16, idle): every full collection visits
 * each live cell, and the catalog's skills are rebuilt with fresh id and hash strings, so an index
 * holding its own would be two cells a skill for as long as the server runs.
 */

const SKILLS = 10_000;
/** Strings an index holds whatever its size: a field's vocabulary and the like. */
const CONSTANT = 300;

/**
 * Live string cells after two full collections (measured: the first one left 2,000 of a sync's garbage
 * strings), on a later turn: a stale pointer to a skill list in this test's frame, which the collector
 * scans conservatively, could hold 70,000 strings.
 */
async function strings(): Promise<number> {
  await Bun.sleep(0);
  Bun.gc(true);
  Bun.gc(true);
  return heapStats().objectTypeCounts.string ?? 0;
}

const DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
/**
 * `skill-one-two-three-four-five`: a name per skill from ten words. A term per skill (its number) would
 * leave the last freeze's new terms in the count: a stale pointer in the collector's conservative scan
 * of the stack can hold them (measured: 1,700 strings, now and then).
 */
const nameOf = (i: number) => `skill-${[...String(i).padStart(5, "0")].map((d) => DIGITS[Number(d)]).join("-")}`;

/** The same skills each call, every id and hash a string of its own (as a catalog rebuilt from a table gives). */
function freshSkills(edited?: number): Skill[] {
  return Array.from({ length: SKILLS }, (_, i) =>
    fakeSkill(nameOf(i), {
      description: i === edited ? "Edited after the index was built." : `Helps with task ${i % 50}.`,
      hash: `${i === edited ? "edited" : "hash"}-${i}`.padEnd(40, "0"),
    }),
  );
}

const body = (s: Skill) => `# ${s.name}\n\nSteps for ${s.description}`;

function built(): FullTextIndex {
  const index = FullTextIndex.empty();
  index.sync(freshSkills(), body);
  return index;
}

/** Sync `index` with the skills, skill `edited` changed (in a function of its own: the skills are then garbage). */
function edit(index: FullTextIndex, edited: number) {
  return index.sync(freshSkills(edited), body);
}

describe("a full-text index holds no string per skill (issue 16: idle)", () => {
  test("built, loaded from its file, and after an edit: under 0.1 strings a skill beyond a constant", async () => {
    const before = await strings();
    const index = built();
    const afterBuild = await strings();
    expect(afterBuild - before).toBeLessThan(CONSTANT + 0.1 * SKILLS);

    const file = Buffer.concat(encodeIndexFile({ schema: 0, fingerprint: "", savedAt: "" }, index.snapshot()));
    const beforeLoad = await strings();
    const loaded = FullTextIndex.fromParts(decodeIndexFile(file));
    expect((await strings()) - beforeLoad).toBeLessThan(CONSTANT + 0.1 * SKILLS);

    // Unchanged skills are told apart from the edited one by their hashes, compared in place.
    const beforeEdit = await strings();
    expect(edit(loaded, 7)).toEqual({ added: 0, updated: 1, removed: 0 });
    expect((await strings()) - beforeEdit).toBeLessThan(CONSTANT + 0.1 * SKILLS);

    // Names whose words no other name has in another order.
    for (const i of [0, 4444, 9999])
      expect(index.search(nameOf(i).replaceAll("-", " "))[0]?.id).toBe(`dir1:${nameOf(i)}`);
    expect(loaded.search("edited after")[0]?.id).toBe(`dir1:${nameOf(7)}`);
    expect(loaded.size).toBe(SKILLS);
    expect([7, 9999, 10_000].map((i) => loaded.has(`dir1:${nameOf(i)}`))).toEqual([true, true, false]);
  });
});
