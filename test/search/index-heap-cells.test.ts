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

/** Live string cells after two full collections (measured: the first one left 2,000 of a sync's garbage strings). */
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

/** A new string with the same text (a cell of its own). */
const copy = (s: string) => [...s].join("");

/**
 * Skills whose id and hash are new strings each time they are read, as a catalog of table rows gives
 * them. The list stays alive across a measurement, so only what the index keeps is counted: a list of
 * skills that died instead could be held by a stale pointer (measured: 70,000 strings, now and then).
 */
function tableSkills(edited?: number): Skill[] {
  return Array.from({ length: SKILLS }, (_, i) => {
    const skill = fakeSkill(nameOf(i), {
      description: i === edited ? "Edited after the index was built." : `Helps with task ${i % 50}.`,
    });
    const id = skill.id;
    const hash = `${i === edited ? "edited" : "hash"}-${i}`.padEnd(40, "0");
    return Object.defineProperties(skill, { id: { get: () => copy(id) }, hash: { get: () => copy(hash) } });
  });
}

const body = (s: Skill) => `# ${s.name}\n\nSteps for ${s.description}`;

describe("a full-text index holds no string per skill (issue 16: idle)", () => {
  test("built, loaded from its file, and after an edit: under 0.1 strings a skill beyond a constant", async () => {
    const skills = tableSkills();
    const before = await strings();
    const index = FullTextIndex.empty();
    index.sync(skills, body);
    expect((await strings()) - before).toBeLessThan(CONSTANT + 0.1 * SKILLS);

    const file = Buffer.concat(encodeIndexFile({ schema: 0, fingerprint: "", savedAt: "" }, index.snapshot()));
    const beforeLoad = await strings();
    const loaded = FullTextIndex.fromParts(decodeIndexFile(file));
    expect((await strings()) - beforeLoad).toBeLessThan(CONSTANT + 0.1 * SKILLS);

    // Unchanged skills are told apart from the edited one by their hashes, compared in place.
    const edited = tableSkills(7);
    const beforeEdit = await strings();
    expect(loaded.sync(edited, body)).toEqual({ added: 0, updated: 1, removed: 0 });
    expect((await strings()) - beforeEdit).toBeLessThan(CONSTANT + 0.1 * SKILLS);

    // Names whose words no other name has in another order.
    for (const i of [0, 4444, 9999])
      expect(index.search(nameOf(i).replaceAll("-", " "))[0]?.id).toBe(`dir1:${nameOf(i)}`);
    expect(loaded.search("edited after")[0]?.id).toBe(`dir1:${nameOf(7)}`);
    expect(loaded.size).toBe(SKILLS);
    expect([7, 9999, 10_000].map((i) => loaded.has(`dir1:${nameOf(i)}`))).toEqual([true, true, false]);
  });
});
