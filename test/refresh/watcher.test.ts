import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WORKER_CHECK_STATS } from "../../src/refresh/timer-plan.ts";
import { workerCheck, workerWatch } from "../../src/refresh/watcher.ts";
import { Walker } from "../../src/sources/walk.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** Wait until `done()` holds, up to `ms`. */
async function until(done: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(20)) if (done()) return true;
  return done();
}

describe("a recursive watcher in the watch worker (large folders: its set-up walk blocks no call)", () => {
  test("reports a change deep below the folder once ready, and nothing after close", async () => {
    const dir = tempDir("skillhub-watch-");
    mkdirSync(join(dir, "a", "b"), { recursive: true });
    let changes = 0;
    const errors: unknown[] = [];
    const watching = workerWatch(
      dir,
      () => changes++,
      (e) => errors.push(e),
    );
    await watching.ready;
    writeFileSync(join(dir, "a", "b", "SKILL.md"), "---\nname: b\ndescription: d\n---\n");
    expect(await until(() => changes > 0)).toBe(true);
    watching.close();
    await Bun.sleep(150);
    const before = changes;
    writeFileSync(join(dir, "a", "later.md"), "x");
    await Bun.sleep(400);
    expect(changes).toBe(before);
    expect(errors).toEqual([]);
  });

  test("a burst of writes arrives as a few change messages, the last one after the burst", async () => {
    const dir = tempDir("skillhub-watch-burst-");
    let changes = 0;
    let last = 0;
    const watching = workerWatch(dir, () => {
      changes++;
      last = Date.now();
    });
    await watching.ready;
    const started = Date.now();
    for (let i = 0; i < 300; i++) writeFileSync(join(dir, `f-${i}.md`), `${i}`);
    const ended = Date.now();
    expect(await until(() => changes > 0)).toBe(true);
    await Bun.sleep(400);
    expect(changes).toBeLessThan(Math.max(10, (ended - started) / 50 + 5));
    expect(last).toBeGreaterThanOrEqual(ended - 5);
    watching.close();
  });

  test("a folder that does not exist is silently not watched, as fs.watch's ENOENT is in process", async () => {
    const errors: unknown[] = [];
    const watching = workerWatch(
      join(tempDir("skillhub-watch-gone-"), "missing"),
      () => undefined,
      (e) => errors.push(e),
    );
    await watching.ready;
    await Bun.sleep(50);
    expect(errors).toEqual([]);
    watching.close();
  });
});

describe("the watched check run by the watch worker (issue 16: the server's thread allocates nothing between scans)", () => {
  /** A walk of `root`'s tree, as the scanner records it, packed for the worker. */
  function packedWalk(root: string) {
    const walk = new Walker().walk(root, { maxDepth: 8, maxDirs: 10_000 });
    return { records: [walk.record.pack()], sliced: walk.record.skillDirs.length + walk.record.files.length };
  }

  test("stats the records on its own timer, says once when a file differs, then stops checking", async () => {
    const watched = tempDir("skillhub-check-watched-");
    const root = tempDir("skillhub-check-root-");
    const file = writeSkill(root, "alpha");
    writeSkill(root, "beta");
    // A watch on another folder starts the worker; the edits below are seen by the check alone.
    const watching = workerWatch(watched, () => undefined);
    await watching.ready;
    let over = 0;
    expect(workerCheck({ ...packedWalk(root), everyMs: 30 }, () => over++)).toBe(true);
    await Bun.sleep(300);
    expect(over).toBe(0);
    appendFileSync(file, "\nedited where no watcher looks\n");
    expect(await until(() => over > 0)).toBe(true);
    appendFileSync(file, "again\n");
    await Bun.sleep(300);
    expect(over).toBe(1);
    watching.close();
    expect(over).toBe(1);
  });

  test("closing its last watch ends the worker without a word: the scan that closed it keeps its records", async () => {
    const watching = workerWatch(tempDir("skillhub-check-watched-"), () => undefined);
    await watching.ready;
    let over = 0;
    expect(workerCheck({ ...packedWalk(tempDir("skillhub-check-root-")), everyMs: 60_000 }, () => over++)).toBe(true);
    watching.close();
    expect(over).toBe(0);
    expect(workerCheck(null, () => over++)).toBe(false);
  });

  test("a new check replaces the last one, and null stops it", async () => {
    const watched = tempDir("skillhub-check-watched-");
    const root = tempDir("skillhub-check-root-");
    const file = writeSkill(root, "alpha");
    const watching = workerWatch(watched, () => undefined);
    await watching.ready;
    let changed = 0;
    const listener = () => changed++;
    workerCheck({ ...packedWalk(root), everyMs: 30 }, listener);
    workerCheck(null, listener);
    appendFileSync(file, "\nedited\n");
    await Bun.sleep(300);
    expect(changed).toBe(0);
    // Checked against the tree as it now is: nothing differs.
    workerCheck({ ...packedWalk(root), everyMs: 30 }, listener);
    await Bun.sleep(300);
    expect(changed).toBe(0);
    rmSync(join(root, "alpha"), { recursive: true });
    expect(await until(() => changed > 0)).toBe(true);
    watching.close();
  });

  test("each check stats the next slice: an edit in the last of three slices is found by the third check", async () => {
    const watched = tempDir("skillhub-check-watched-");
    const root = tempDir("skillhub-check-root-");
    for (const name of ["a", "b", "c", "d", "e", "f"]) writeSkill(root, name);
    const walk = new Walker().walk(root, { maxDepth: 8, maxDirs: 10_000 });
    const files = walk.record.files.paths;
    const last = files.findIndex((_, i) => i % 3 === 2);
    const watching = workerWatch(watched, () => undefined);
    await watching.ready;
    let over = 0;
    const started = Date.now();
    // Three slices, as a catalog of more than twice WORKER_CHECK_STATS skill folders and files has.
    workerCheck({ records: [walk.record.pack()], sliced: 2 * WORKER_CHECK_STATS + 1, everyMs: 100 }, () => over++);
    appendFileSync(files[last] as string, "\nedited\n");
    expect(await until(() => over > 0)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    watching.close();
  });

  test("without a watch worker, nothing is handed over", () => {
    expect(workerCheck(null, () => undefined)).toBe(false);
  });
});
