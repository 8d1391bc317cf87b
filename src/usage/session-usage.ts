import type { SkillLoads } from "./usage-store.ts";
import { USAGE_MAX_SKILLS } from "./usage-store.ts";

/**
 * One HTTP session's loads, in memory: over HTTP the skills a session is shown first follow its own loads
 * only. Security: a shared hub's counts would put what colleagues load at the top of everyone's list, and
 * let any client push a skill there (one with a description written to steer a model) by loading it a few
 * times. A new session starts from the default order; nothing is written. Keeps the USAGE_MAX_SKILLS most
 * recently loaded skills.
 */
export class SessionUsage implements SkillLoads {
  /** Loads per skill id, the most recently loaded last. */
  private readonly records = new Map<string, { count: number; last: number }>();
  /** Loads so far: `last` is a load's place in this sequence (an order, not a time). */
  private loads = 0;
  version = 0;

  get(id: string): number | undefined {
    return this.records.get(id)?.count;
  }

  lastUsed(id: string): number | undefined {
    return this.records.get(id)?.last;
  }

  record(id: string): void {
    const count = (this.records.get(id)?.count ?? 0) + 1;
    // Set again, so that the map's first entry is always the least recently loaded.
    this.records.delete(id);
    this.records.set(id, { count, last: ++this.loads });
    if (this.records.size > USAGE_MAX_SKILLS) this.records.delete(this.records.keys().next().value as string);
    this.version++;
  }
}

/**
 * The loads of a client with no session (stateless HTTP, 2026-07-28 requests): none is kept, so it sees the
 * default order. One object for all of them, so their picks are made once per catalog (usage/picked.ts).
 */
export const NO_LOADS: SkillLoads = Object.freeze({
  version: 0,
  get: () => undefined,
  lastUsed: () => undefined,
  record: () => undefined,
});
