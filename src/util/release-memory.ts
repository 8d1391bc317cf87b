/**
 * Giving freed memory back to the system once a big job is over (a first scan, an index build or load,
 * a snapshot save). JavaScriptCore keeps the pages such a job freed, and a server would then idle for
 * hours near its peak, tens of MB above what it uses at 10,000 skills (bench/memory.ts compares).
 */

/** Time without a big job's end or a client message before the release (ms). */
export const RELEASE_DELAY_MS = 1500;

export interface MemoryReleaseOptions {
  /**
   * The release. Default `Bun.shrink()`: once the current turn ends, JavaScriptCore drops compiled code
   * (recompiled on next use), collects fully and returns its free pages. A pause of about 60 ms at 10,000
   * skills, hence only when clients are quiet.
   */
  release?: () => void;
  /** Quiet time before a release (ms). Default RELEASE_DELAY_MS. */
  delayMs?: number;
  /** A full collection (collectNow). Default `Bun.gc(true)`. */
  collect?: () => void;
  now?: () => number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/**
 * Releases once the jobs reported through `soon()` are over and no client message (`busy()`) has come
 * for `delayMs`; does nothing until enabled (a server enables its hub's: a CLI command ends instead,
 * and tests do not want their compiled code dropped). The Hub owns one; what runs big jobs reports to it.
 */
export class MemoryRelease {
  private timer: unknown;
  /** When the last big job ended or, while a release waits, the last client message came. */
  private lastActivity = 0;
  private enabled = false;
  private readonly hooks = new Set<() => void>();
  private readonly release: () => void;
  private readonly delayMs: number;
  private readonly collect: () => void;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(options: MemoryReleaseOptions = {}) {
    this.release = options.release ?? (() => Bun.shrink());
    this.delayMs = options.delayMs ?? RELEASE_DELAY_MS;
    this.collect = options.collect ?? (() => Bun.gc(true));
    this.now = options.now ?? (() => performance.now());
    // Never what keeps a finished process alive.
    this.setTimer = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms).unref());
    this.clearTimer = options.clearTimeout ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  }

  enable(): this {
    this.enabled = true;
    return this;
  }

  /** A big job just ended: release once things are quiet (a later call postpones it). */
  soon(): void {
    if (!this.enabled) return;
    this.lastActivity = this.now();
    if (this.timer === undefined) this.arm(this.delayMs);
  }

  /**
   * Collect a start-up step's garbage now (when enabled), so that the next step reuses its memory
   * instead of adding to the peak (after the snapshot's catalog, and after the first scan). A pause of
   * 20–40 ms at 10,000 skills, where start-up is waited for anyway.
   */
  collectNow(): void {
    if (this.enabled) this.collect();
  }

  /** A client message came: a waiting release waits for quiet again (the pause would delay its answer). */
  busy(): void {
    // Noted, not re-armed: a timer cleared and set per message would cost more than the message.
    if (this.timer !== undefined) this.lastActivity = this.now();
  }

  /**
   * Run `hook` just before each release (the search service maps its saved index file again:
   * FullTextIndex.releasePages); returns what removes it.
   */
  beforeRelease(hook: () => void): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** Whether a release is waiting. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  disable(): void {
    this.enabled = false;
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = this.setTimer(() => this.fire(), ms);
  }

  /** The timer's end: the release, or, when a job ended or a message came since, a wait for the rest. */
  private fire(): void {
    const quiet = this.now() - this.lastActivity;
    if (quiet < this.delayMs) {
      this.arm(this.delayMs - quiet);
      return;
    }
    this.timer = undefined;
    for (const hook of this.hooks) hook();
    this.release();
  }
}
