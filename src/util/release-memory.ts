import { releaseEmbeddedPages } from "./embedded-pages.ts";
import type { Logger } from "./logger.ts";

/**
 * Giving freed memory back to the system once a big job is over (a first scan, an index build or load,
 * a worker's end, a snapshot save). JavaScriptCore and the allocators keep the pages such a job freed,
 * and a server then idles for hours at its peak: at 10,000 skills, 15–20 MB of a 100 MB settled RSS
 * (issue 16; bench/memory.ts, docs/performance.md). Each release also hands back the resident pages of
 * the binary's embedded modules, read once at start-up (embedded-pages.ts: 9–12 MB at any catalog size).
 */

/** Time without a big job's end or a client message before the release (ms). */
export const RELEASE_DELAY_MS = 1500;

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
  /** When the last big job ended or, while a release waits, the last client message came. */
  private lastActivity = 0;
  private enabled = false;
  private logger?: Pick<Logger, "debug">;
  private readonly hooks = new Set<() => void>();

  constructor(
    private readonly release: () => void = shrink,
    private readonly delayMs = RELEASE_DELAY_MS,
    private readonly collect: () => void = () => Bun.gc(true),
    /** Then hands back the binary's embedded modules' pages (embedded-pages.ts); resolves with the bytes. */
    private readonly dropPages: () => Promise<number> = releaseEmbeddedPages,
  ) {}

  enable(logger?: Pick<Logger, "debug">): this {
    this.enabled = true;
    this.logger = logger;
    return this;
  }

  /** A big job just ended: release once things are quiet (a later call postpones it). */
  soon(): void {
    if (!this.enabled) return;
    this.lastActivity = performance.now();
    if (!this.timer) this.arm(this.delayMs);
  }

  /**
   * Collect a start-up step's garbage now (when enabled), so that the next step reuses its memory
   * instead of adding to the peak: after the snapshot's catalog, and after the first scan, 10,000
   * skills peaked 15 MB lower (bench/memory.ts). A pause of 20–40 ms, where start-up is waited for anyway.
   */
  collectNow(): void {
    if (this.enabled) this.collect();
  }

  /** A client message came: a waiting release waits for quiet again (the pause would delay its answer). */
  busy(): void {
    // Noted, not re-armed: under a stream of calls, a timer cleared and set per message cost 2–3 µs each.
    if (this.timer) this.lastActivity = performance.now();
  }

  /**
   * Run `hook` just before each release (the search service maps its saved index file again:
   * FullTextIndex.releasePages); returns what removes it.
   */
  beforeRelease(hook: () => void): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), ms);
    // Never what keeps a finished process alive.
    this.timer.unref?.();
  }

  /** The timer's end: the release, or, when a job ended or a message came since, a wait for the rest. */
  private fire(): void {
    const quiet = performance.now() - this.lastActivity;
    if (quiet < this.delayMs) {
      this.arm(this.delayMs - quiet);
      return;
    }
    this.timer = undefined;
    for (const hook of this.hooks) hook();
    this.release();
    void this.dropPages().then(
      (bytes) => {
        if (bytes > 0)
          this.logger?.debug(`memory: gave back ${(bytes / 1048576).toFixed(1)} MB of the binary's embedded modules`);
      },
      () => undefined,
    );
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
