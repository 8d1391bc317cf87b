import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workerWatch } from "../../src/refresh/watcher.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

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
