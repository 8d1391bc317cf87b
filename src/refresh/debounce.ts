/** The timers a Debounce sets (injected by tests; the runtime's by default). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const runtimeTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Watcher events turned into one rescan: `fire` runs `debounceMs` after the last event, but never more
 * than `maxWaitMs` after the first one not yet handled (a file written every 25 ms would push a plain
 * debounce back forever).
 */
export class Debounce {
  private timer: unknown;
  /** When the first event not yet handled arrived (the maximum wait counts from it). */
  private pendingSince?: number;

  constructor(
    private readonly fire: () => void,
    private readonly debounceMs: number,
    private readonly maxWaitMs: number,
    private readonly now: () => number,
    private readonly timers: Timers = runtimeTimers,
  ) {}

  push(): void {
    this.cancel();
    const now = this.now();
    this.pendingSince ??= now;
    const delay = Math.max(0, Math.min(this.debounceMs, this.pendingSince + this.maxWaitMs - now));
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.pendingSince = undefined;
      this.fire();
    }, delay);
  }

  /** Whether an event is waiting for its rescan. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  cancel(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
