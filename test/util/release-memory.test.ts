import { describe, expect, test } from "bun:test";
import { GROWTH_CHECK_EVERY, MemoryRelease } from "../../src/util/release-memory.ts";

describe("MemoryRelease", () => {
  test("does nothing until enabled", async () => {
    let released = 0;
    const release = new MemoryRelease({ release: () => released++, delayMs: 5 });
    release.soon();
    expect(release.pending).toBe(false);
    await Bun.sleep(30);
    expect(released).toBe(0);
  });

  test("a burst of big jobs is released once, after the last", async () => {
    let released = 0;
    // Margins of 100 ms and more, so that a busy machine's late timers do not decide the outcome.
    const release = new MemoryRelease({ release: () => released++, delayMs: 200 }).enable();
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
    const release = new MemoryRelease({ release: () => released++, delayMs: 5 }).enable();
    release.soon();
    release.disable();
    await Bun.sleep(30);
    expect(released).toBe(0);
    release.soon();
    expect(release.pending).toBe(false);
  });

  test("client messages postpone a waiting release, and do not start one", async () => {
    let released = 0;
    const release = new MemoryRelease({ release: () => released++, delayMs: 40 }).enable();
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
    const release = new MemoryRelease({ release: () => undefined, delayMs: 5, collect: () => collected++ });
    release.collectNow();
    expect(collected).toBe(0);
    release.enable().collectNow();
    expect(collected).toBe(1);
  });

  /** A releaser whose resident memory is `rss.bytes`, counting collections and releases. */
  function rig(enabled = true) {
    const rss = { bytes: 100 * MB, collected: 0, released: 0 };
    const release = new MemoryRelease({
      release: () => {
        rss.released++;
        rss.bytes = 90 * MB;
      },
      delayMs: 40,
      collect: () => {
        rss.collected++;
        rss.bytes -= 30 * MB;
      },
      rss: () => rss.bytes,
      growthBytes: 16 * MB,
    });
    if (enabled) release.enable();
    /** `n` client messages, each adding `grow` bytes. */
    const messages = (n: number, grow: number) => {
      for (let i = 0; i < n; i++) {
        rss.bytes += grow;
        release.busy();
      }
    };
    return { release, rss, messages };
  }
  const MB = 1024 * 1024;
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  test("a burst of calls that grows memory past the limit is collected once, after the turn", async () => {
    const { rss, messages } = rig();
    // 8 messages set the base (100 MB + 8 MB), then 2 MB each: the limit (16 MB) is passed at the 24th.
    messages(GROWTH_CHECK_EVERY, MB);
    messages(GROWTH_CHECK_EVERY, 2 * MB);
    expect(rss.collected).toBe(0);
    messages(GROWTH_CHECK_EVERY, 2 * MB);
    // Noticed, but collected only once the turn that noticed is over.
    expect(rss.collected).toBe(0);
    messages(GROWTH_CHECK_EVERY, 2 * MB);
    await turn();
    expect(rss.collected).toBe(1);
    // The base is now the level after that collection: the next 24 MB start from there.
    messages(GROWTH_CHECK_EVERY * 2, MB);
    await turn();
    expect(rss.collected).toBe(1);
    messages(GROWTH_CHECK_EVERY, 2 * MB);
    await turn();
    expect(rss.collected).toBe(2);
  });

  test("calls that do not grow memory are never collected, and nothing is collected until enabled", async () => {
    const quiet = rig();
    quiet.messages(GROWTH_CHECK_EVERY * 50, 0);
    await turn();
    expect(quiet.rss.collected).toBe(0);
    const off = rig(false);
    off.messages(GROWTH_CHECK_EVERY * 10, 10 * MB);
    await turn();
    expect(off.rss.collected).toBe(0);
  });

  test("hooks run just before each release, until removed", async () => {
    const { release, rss } = rig();
    const seen: number[] = [];
    const remove = release.beforeRelease(() => seen.push(rss.released));
    release.soon();
    await Bun.sleep(150);
    expect(seen).toEqual([0]);
    expect(rss.released).toBe(1);
    remove();
    release.soon();
    await Bun.sleep(150);
    expect(seen).toEqual([0]);
    expect(rss.released).toBe(2);
  });
});
