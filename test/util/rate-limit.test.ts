import { describe, expect, test } from "bun:test";
import { RateLimit } from "../../src/util/rate-limit.ts";
import { manualClock } from "../helpers/clock.ts";

describe("RateLimit: a token bucket per key", () => {
  test("a burst, then one per refill period; the wait says when the next one comes", () => {
    const clock = manualClock();
    const limit = new RateLimit({ burst: 3, refillMs: 1_000, now: clock.now });
    expect([limit.take("a"), limit.take("a"), limit.take("a")]).toEqual([0, 0, 0]);
    expect(limit.take("a")).toBe(1_000);
    clock.advance(400);
    expect(limit.take("a")).toBe(600);
    clock.advance(600);
    expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBe(1_000);
    // An idle key fills up to its burst, no further.
    clock.advance(60_000);
    expect([limit.take("a"), limit.take("a"), limit.take("a"), limit.take("a")]).toEqual([0, 0, 0, 1_000]);
    expect({ burst: limit.burst, perMinute: limit.perMinute }).toEqual({ burst: 3, perMinute: 60 });
  });

  test("keys are counted apart; a clock set back gives nothing, then or once it is past the last take", () => {
    const clock = manualClock(10_000);
    const limit = new RateLimit({ burst: 1, refillMs: 1_000, now: clock.now });
    expect([limit.take("a"), limit.take("b")]).toEqual([0, 0]);
    clock.advance(-5_000);
    expect(limit.take("a")).toBe(1_000);
    clock.advance(5_500);
    expect(limit.take("a")).toBe(500);
    clock.advance(500);
    expect(limit.take("a")).toBe(0);
  });

  test("past maxKeys the least recently used key is forgotten: memory stays bounded", () => {
    const clock = manualClock();
    const limit = new RateLimit({ burst: 1, refillMs: 60_000, maxKeys: 2, now: clock.now });
    limit.take("a");
    limit.take("b");
    // Touching "a" makes "b" the least recently used; a third key forgets it, which starts full again.
    expect(limit.take("a")).toBeGreaterThan(0);
    limit.take("c");
    expect(limit.take("b")).toBe(0);
    expect(limit.take("c")).toBeGreaterThan(0);
  });
});
