import { heapStats } from "bun:jsc";
import { afterAll, describe, expect, test } from "bun:test";
import { Walker } from "../../src/sources/walk.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const FOLDERS = 1600;
const limits = { maxDepth: 8, maxDirs: 10_000 };

/**
 * Live string cells after a full collection, the fewest of a few turns of the event loop: the collector
 * scans the stack conservatively, and a stale slot now and then kept a dropped walk's result alive.
 */
async function strings(): Promise<number> {
  let fewest = Number.POSITIVE_INFINITY;
  for (let turn = 0; turn < 3; turn++) {
    await Bun.sleep(1);
    Bun.gc(true);
    fewest = Math.min(fewest, heapStats().objectTypeCounts.string ?? 0);
  }
  return fewest;
}

/** A pass as the scanner makes it: the walk's result is dropped, only the walker keeps anything. */
function pass(walker: Walker, dir: string, quick: boolean): [skills: number, reread: number] {
  const result = walker.walk(dir, { ...limits, quick });
  walker.endRescan();
  return [result.skills.length, result.reread];
}

describe("a walker at rest holds as few cells as it can: each is work for every full collection (issue 16: idle)", () => {
  test("the SKILL.md-only folders it keeps are packed: no string per folder", async () => {
    const dir = tempDir("skillhub-walk-cells-");
    for (let i = 0; i < FOLDERS; i++) writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}.` });
    const walker = new Walker();
    const before = await strings();
    expect(pass(walker, dir, false)).toEqual([FOLDERS, FOLDERS + 1]);
    // A key per folder was 1,600 strings.
    expect((await strings()) - before).toBeLessThan(0.1 * FOLDERS + 20);
    // A quick pass trusts the packed leaves (reading no folder again) and packs them again, as a full one.
    expect(pass(walker, dir, true)).toEqual([FOLDERS, 0]);
    expect(pass(walker, dir, false)).toEqual([FOLDERS, 0]);
    expect((await strings()) - before).toBeLessThan(0.1 * FOLDERS + 20);
  });
});
