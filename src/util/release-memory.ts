/**
 * Giving freed memory back to the system once a big job is over (a first scan, an index build or load,
 * a worker's end, a snapshot save). JavaScriptCore and the allocators keep the pages such a job freed,
 * and a server then idles for hours at its peak: at 10,000 skills, 15–20 MB of a 100 MB settled RSS
 * (issue 16; bench/memory.ts, docs/performance.md).
 */

/** Time without a big job's end or a client message before the release (ms). */
export const RELEASE_DELAY_MS = 1500;

/**
 * Resident growth over the level after the last collection that has a burst of calls collected now
 * rather than when JavaScriptCore would. With a catalog of 10,000 skills live, JavaScriptCore lets the
 * heap grow by about its own size before a full collection: 300 `skill` calls in a row took the server
 * from 160 to 230 MB (a call's garbage is the file read, its JSON and the SDK's validation copies),
 * the floor server, with almost no live heap, collects far sooner. A full collection there is a
 * 20–40 ms pause, so it runs once the turn that noticed is over, at most once per this much growth.
 */
export const GROWTH_BYTES = 16 * 1024 * 1024;
/** Client messages between two looks at resident memory (a read of /proc, a few microseconds). */
export const GROWTH_CHECK_EVERY = 8;

export interface MemoryReleaseOptions {
  /** What a release does. Default: `Bun.shrink()`. */
  release?: () => void;
  /** Quiet time before a release (ms). Default RELEASE_DELAY_MS. */
  delayMs?: number;
  /** A full collection. Default `Bun.gc(true)`. */
  collect?: () => void;
  /** Resident memory (bytes). Default `process.memoryUsage.rss()`. */
  rss?: () => number;
  /** Growth that has calls' garbage collected. Default GROWTH_BYTES. */
  growthBytes?: number;
}

/**
 * `Bun.shrink()`: once the current turn ends, JavaScriptCore drops compiled code (recompiled on next
 * use), collects fully and returns its free pages. A pause of about 60 ms at 10,000 skills (a full
 * collection of the catalog's cells), hence only when clients are quiet.
 */
const shrink = () => Bun.shrink();

/**
 * Releases once the jobs reported through `soon()` are over and no client message (`busy()`) has come
 * for `delayMs`; does nothing until enabled (a server process enables it: a CLI command ends instead,
 * and tests do not want their compiled code dropped).
 */
export class MemoryRelease {
  private timer?: ReturnType<typeof setTimeout>;
  private enabled = false;
  private readonly release: () => void;
  private readonly delayMs: number;
  private readonly collect: () => void;
  private readonly rss: () => number;
  private readonly growthBytes: number;
  /** Resident bytes after the last collection or release (lowered whenever less is seen). */
  private base?: number;
  private collecting = false;
  private messages = 0;
  private readonly hooks = new Set<() => void>();

  constructor(options: MemoryReleaseOptions = {}) {
    this.release = options.release ?? shrink;
    this.delayMs = options.delayMs ?? RELEASE_DELAY_MS;
    this.collect = options.collect ?? (() => Bun.gc(true));
    this.rss = options.rss ?? (() => process.memoryUsage.rss());
    this.growthBytes = options.growthBytes ?? GROWTH_BYTES;
  }

  enable(): this {
    this.enabled = true;
    return this;
  }

  /** A big job just ended: release once things are quiet (a later call postpones it). */
  soon(): void {
    if (!this.enabled) return;
    this.arm();
  }

  /**
   * Collect a start-up step's garbage now (when enabled), so that the next step reuses its memory
   * instead of adding to the peak: after the snapshot's catalog, and after the first scan, 10,000
   * skills peaked 15 MB lower (bench/memory.ts). A pause of 20–40 ms, where start-up is waited for anyway.
   */
  collectNow(): void {
    if (this.enabled) this.collect();
  }

  /**
   * A client message came: a waiting release waits for quiet again (the pause would delay its answer).
   * Every GROWTH_CHECK_EVERY messages, resident memory is compared with what it was after the last
   * collection; past `growthBytes` more, the garbage of the calls in between is collected once this
   * turn ends (see GROWTH_BYTES).
   */
  busy(): void {
    if (this.timer) this.arm();
    if (!this.enabled || this.collecting || ++this.messages % GROWTH_CHECK_EVERY !== 0) return;
    const rss = this.rss();
    if (this.base === undefined || rss < this.base) this.base = rss;
    if (rss - this.base <= this.growthBytes) return;
    this.collecting = true;
    setImmediate(() => {
      this.collecting = false;
      if (!this.enabled) return;
      this.collect();
      this.base = this.rss();
    });
  }

  /**
   * Run `hook` just before each release (search/persist.ts drops a mapped index's resident pages);
   * returns what removes it.
   */
  beforeRelease(hook: () => void): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const hook of this.hooks) hook();
      this.release();
      this.base = this.rss();
    }, this.delayMs);
    // Never what keeps a finished process alive.
    this.timer.unref?.();
  }

  /** Whether a release is waiting. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  disable(): void {
    this.enabled = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The process's one releaser: every big job, wherever it runs, reports to it. */
export const memoryRelease = new MemoryRelease();
