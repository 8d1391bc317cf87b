import { afterAll, describe, expect, test } from "bun:test";
import { MemoryRelease } from "../../src/util/release-memory.ts";
import { manualClock } from "../helpers/clock.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

/** A release with a 200 ms quiet time on a clock the test moves, counting what it does. */
function rig() {
  const clock = manualClock();
  const seen: string[] = [];
  const release = new MemoryRelease({
    release: () => seen.push("release"),
    collect: () => seen.push("collect"),
    delayMs: 200,
    now: clock.now,
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
  });
  return { clock, seen, release };
}

describe("MemoryRelease", () => {
  test("does nothing until enabled", () => {
    const { clock, seen, release } = rig();
    release.soon();
    release.collectNow();
    expect(release.pending).toBe(false);
    clock.advance(1000);
    expect(seen).toEqual([]);
  });

  test("a burst of big jobs is released once, the quiet time after the last", () => {
    const { clock, seen, release } = rig();
    release.enable().soon();
    clock.advance(100);
    release.soon();
    clock.advance(150);
    // 250 ms after the first report but only 150 after the second: still waiting.
    expect(seen).toEqual([]);
    expect(release.pending).toBe(true);
    clock.advance(50);
    expect(seen).toEqual(["release"]);
    expect(release.pending).toBe(false);
    release.soon();
    clock.advance(200);
    expect(seen).toEqual(["release", "release"]);
  });

  test("disabling cancels a waiting release, and later reports start none", () => {
    const { clock, seen, release } = rig();
    release.enable().soon();
    release.disable();
    expect(clock.pending).toBe(0);
    release.soon();
    clock.advance(1000);
    expect(seen).toEqual([]);
    expect(release.pending).toBe(false);
  });

  test("client messages postpone a waiting release, and do not start one", () => {
    const { clock, seen, release } = rig();
    release.enable().busy();
    expect(release.pending).toBe(false);
    release.soon();
    for (let i = 0; i < 4; i++) {
      clock.advance(100);
      release.busy();
    }
    // 400 ms after the job, but messages kept coming every 100 ms.
    expect(seen).toEqual([]);
    clock.advance(199);
    expect(seen).toEqual([]);
    clock.advance(1);
    expect(seen).toEqual(["release"]);
  });

  test("collections between start-up steps happen at once, only when enabled", () => {
    const { seen, release } = rig();
    release.collectNow();
    expect(seen).toEqual([]);
    release.enable().collectNow();
    expect(seen).toEqual(["collect"]);
  });

  test("hooks run just before each release, until removed", () => {
    const { clock, seen, release } = rig();
    const remove = release.enable().beforeRelease(() => seen.push("hook"));
    release.soon();
    clock.advance(200);
    expect(seen).toEqual(["hook", "release"]);
    remove();
    release.soon();
    clock.advance(200);
    expect(seen).toEqual(["hook", "release", "release"]);
  });
});

describe("the hub's memory release", () => {
  test("is the one the hub was given; the first scan is collected, and a built index released once clients are quiet", async () => {
    const { clock, seen, release } = rig();
    release.enable();
    const dir = tempDir();
    for (let i = 0; i < 3; i++) writeSkill(dir, `s-${i}`);
    const { hub, call } = await open({ flags: { "skills-dir": [dir] }, hub: { memory: release } });
    expect(hub.memory).toBe(release);
    expect(seen).toEqual(["collect"]);
    expect((await call("search_skills", { query: "s-1" })).isError).toBeFalsy();
    expect(release.pending).toBe(true);
    clock.advance(200);
    expect(seen).toEqual(["collect", "release"]);
    hub.close();
    expect(release.pending).toBe(false);
  });
});
