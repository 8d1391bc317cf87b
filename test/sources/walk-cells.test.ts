import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const FOLDERS = 1600;

/**
 * Run in a process of its own: in the test runner's, what earlier tests left on the stack (the collector
 * scans it conservatively) now and then kept a dropped walk's result, or the walker, alive.
 */
const PROBE = `
import { heapStats } from "bun:jsc";
import { Walker } from ${JSON.stringify(join(import.meta.dir, "../../src/sources/walk.ts"))};
const limits = { maxDepth: 8, maxDirs: 10_000 };
const strings = async () => {
  let fewest = Infinity;
  for (let turn = 0; turn < 3; turn++) {
    await Bun.sleep(1);
    Bun.gc(true);
    fewest = Math.min(fewest, heapStats().objectTypeCounts.string ?? 0);
  }
  return fewest;
};
const pass = (walker, quick) => {
  const result = walker.walk(process.argv[1], { ...limits, quick });
  walker.endRescan();
  return [result.skills.length, result.reread];
};
const walker = new Walker();
const before = await strings();
const passes = [pass(walker, false), pass(walker, true), pass(walker, false)];
console.log(JSON.stringify({ passes, kept: (await strings()) - before }));
`;

describe("a walker at rest holds as few cells as it can: each is work for every full collection (issue 16: idle)", () => {
  test("the SKILL.md-only folders it keeps are packed: no string per folder", () => {
    const dir = tempDir("skillhub-walk-cells-");
    for (let i = 0; i < FOLDERS; i++) writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}.` });
    const run = Bun.spawnSync([process.execPath, "-e", PROBE, dir], { stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    const { passes, kept } = JSON.parse(run.stdout.toString());
    // A quick pass trusts the packed leaves (reading no folder again) and packs them again, as a full one.
    expect(passes).toEqual([
      [FOLDERS, FOLDERS + 1],
      [FOLDERS, 0],
      [FOLDERS, 0],
    ]);
    // A key per folder was 1,600 strings.
    expect(kept).toBeLessThan(0.1 * FOLDERS + 20);
  });
});
