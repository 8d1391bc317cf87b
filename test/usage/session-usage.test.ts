import { describe, expect, test } from "bun:test";
import { NO_LOADS, SessionUsage } from "../../src/usage/session-usage.ts";
import { USAGE_MAX_SKILLS } from "../../src/usage/usage-store.ts";

describe("one HTTP session's loads", () => {
  test("counted in memory, the latest load last; bounded to the most recently loaded skills", () => {
    const usage = new SessionUsage();
    usage.record("a");
    usage.record("b");
    usage.record("a");
    expect([usage.get("a"), usage.get("b"), usage.get("c")]).toEqual([2, 1, undefined]);
    expect((usage.lastUsed("a") as number) > (usage.lastUsed("b") as number)).toBe(true);
    expect(usage.version).toBe(3);
    // "b" is now the least recently loaded: past the bound it goes first, "a" stays.
    for (let i = 0; i < USAGE_MAX_SKILLS - 1; i++) usage.record(`s${i}`);
    expect([usage.get("a"), usage.get("b")]).toEqual([2, undefined]);
  });

  test("a client with no session keeps nothing", () => {
    NO_LOADS.record("a");
    expect([NO_LOADS.get("a"), NO_LOADS.lastUsed("a"), NO_LOADS.version]).toEqual([undefined, undefined, 0]);
  });
});
