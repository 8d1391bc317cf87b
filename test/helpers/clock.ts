/**
 * A clock and one-shot timers that move only when the test says so: behaviour that depends on time is
 * tested without waiting for it (and without a busy machine's late timers deciding the outcome).
 */
export function manualClock(start = 1_000) {
  let now = start;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout: (fn: () => void, ms: number): unknown => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (handle: unknown) => {
      timers.delete(handle as number);
    },
    /** Timers waiting. */
    get pending(): number {
      return timers.size;
    },
    /** Move the clock `ms` ahead, firing each timer due on the way, in order (a timer may set another). */
    advance(ms: number): void {
      const end = now + ms;
      for (;;) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
      }
      now = end;
    },
  };
}
