import { describe, expect, test } from "bun:test";
import { Debounce } from "../../src/refresh/debounce.ts";
import { manualClock } from "../helpers/clock.ts";

/** A debounce on a clock the test moves, counting what it fires. */
function counted(debounceMs: number, maxWaitMs: number) {
  const clock = manualClock();
  let fired = 0;
  const debounce = new Debounce(() => fired++, debounceMs, maxWaitMs, clock.now, clock);
  return { clock, debounce, fired: () => fired };
}

describe("watcher debounce with a maximum wait", () => {
  test("a file written every 25 ms still produces rescans while the writes go on, one per maximum wait", () => {
    const { clock, debounce, fired } = counted(500, 1000);
    for (let t = 0; t < 2000; t += 25) {
      debounce.push();
      clock.advance(25);
    }
    // A plain debounce would never have fired: every write pushed it back by 500 ms.
    expect(fired()).toBe(2);
  });

  test("a burst followed by quiet gives one rescan, the debounce after the last event", () => {
    const { clock, debounce, fired } = counted(100, 2000);
    for (let i = 0; i < 5; i++) {
      debounce.push();
      clock.advance(10);
    }
    clock.advance(89);
    expect(fired()).toBe(0);
    clock.advance(1);
    expect(fired()).toBe(1);
    clock.advance(10_000);
    expect(fired()).toBe(1);
  });

  test("cancel drops a waiting rescan", () => {
    const { clock, debounce, fired } = counted(100, 2000);
    debounce.push();
    debounce.cancel();
    clock.advance(10_000);
    expect(fired()).toBe(0);
    expect(clock.pending).toBe(0);
  });
});
