import { describe, expect, test } from "bun:test";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { MemoryRelease } from "../../src/util/release-memory.ts";

describe("MemoryRelease", () => {
  test("does nothing until enabled", async () => {
    let released = 0;
    const release = new MemoryRelease(() => released++, 5);
    release.soon();
    expect(release.pending).toBe(false);
    await Bun.sleep(30);
    expect(released).toBe(0);
  });

  test("a burst of big jobs is released once, after the last", async () => {
    let released = 0;
    // Margins of 100 ms and more, so that a busy machine's late timers do not decide the outcome.
    const release = new MemoryRelease(() => released++, 200).enable();
    release.soon();
    await Bun.sleep(100);
    release.soon();
    await Bun.sleep(100);
    // 200 ms after the first report but only 100 after the second: still waiting.
    expect(released).toBe(0);
    expect(release.pending).toBe(true);
    await Bun.sleep(250);
    expect(released).toBe(1);
    expect(release.pending).toBe(false);
    release.soon();
    await Bun.sleep(350);
    expect(released).toBe(2);
  });

  test("disabling cancels a waiting release", async () => {
    let released = 0;
    const release = new MemoryRelease(() => released++, 5).enable();
    release.soon();
    release.disable();
    await Bun.sleep(30);
    expect(released).toBe(0);
    release.soon();
    expect(release.pending).toBe(false);
  });

  test("client messages postpone a waiting release, and do not start one", async () => {
    let released = 0;
    const release = new MemoryRelease(() => released++, 40).enable();
    release.busy();
    expect(release.pending).toBe(false);
    release.soon();
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(20);
      release.busy();
    }
    // 80 ms after the job, but messages kept coming every 20 ms.
    expect(released).toBe(0);
    await Bun.sleep(80);
    expect(released).toBe(1);
  });

  test("collections between start-up steps happen only when enabled", () => {
    let collected = 0;
    const release = new MemoryRelease(
      () => undefined,
      5,
      () => collected++,
    );
    release.collectNow();
    expect(collected).toBe(0);
    release.enable().collectNow();
    expect(collected).toBe(1);
  });

  test("hooks run just before each release, until removed", async () => {
    const seen: string[] = [];
    const release = new MemoryRelease(() => seen.push("release"), 40).enable();
    const remove = release.beforeRelease(() => seen.push("hook"));
    release.soon();
    await Bun.sleep(150);
    expect(seen).toEqual(["hook", "release"]);
    remove();
    release.soon();
    await Bun.sleep(150);
    expect(seen).toEqual(["hook", "release", "release"]);
  });

  test("each release then hands back the embedded modules' pages, and says how much at debug level", async () => {
    const seen: string[] = [];
    const logger = createMemoryLogger("DEBUG");
    const release = new MemoryRelease(
      () => seen.push("release"),
      20,
      () => undefined,
      async () => {
        seen.push("pages");
        return seen.length === 2 ? 9.5 * 1048576 : 0;
      },
    ).enable(logger);
    release.soon();
    await Bun.sleep(150);
    expect(seen).toEqual(["release", "pages"]);
    expect(logger.lines.join("\n")).toContain("memory: gave back 9.5 MB of the binary's embedded modules");
    // Nothing handed back (from source, or off Linux): nothing said.
    release.soon();
    await Bun.sleep(150);
    expect(seen).toEqual(["release", "pages", "release", "pages"]);
    expect(logger.lines.filter((line) => line.includes("gave back"))).toHaveLength(1);
  });
});
