import type { SourceStatus } from "../catalog/catalog.ts";
import type { PackedRecord } from "../sources/walk-record.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { WORKER_CHECK_TICKS } from "./timer-plan.ts";
import {
  defaultWatch,
  WATCH_IN_WORKER_DIRS,
  type WatchFn,
  type Watching,
  watchWorkerRunning,
  workerCheck,
  workerWatch,
} from "./watcher.ts";

/** The longest delay a timer takes (2^31 − 1 ms, about 24.8 days); a longer one fires at once, over and over. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Whether a recursive fs.watch walks the tree as it is set up: on Linux, Bun adds an inotify watch per
 * folder; elsewhere (FSEvents on macOS) one stream covers the tree, and a worker would only cost memory.
 */
const WATCH_WALKS = process.platform === "linux";

export interface SourceWatchersOptions {
  logger: Logger;
  /** For the warnings: what the server relies on when a watcher fails. */
  rescanSeconds: number;
  /** Called on any change below a watched folder, and once when a watcher fails. */
  changed: () => void;
  /** Called when a watcher fails (before `changed`). */
  failed?: () => void;
  /** Injected for tests; by default a large folder is watched in a worker (watcher.ts). */
  watchFn?: WatchFn;
}

/**
 * The refresher's recursive watchers: one per existing source folder, kept in step with the sources
 * after each scan. A folder whose watcher failed is not watched again (the timer then stats all its
 * files at each tick: healthy() is false).
 */
export class SourceWatchers {
  private readonly watchers = new Map<string, Watching>();
  /** Folders of `watchers` watched in the watch worker. */
  private readonly inWorker = new Set<string>();
  private readonly failed = new Set<string>();
  private closed = false;

  constructor(private readonly options: SourceWatchersOptions) {}

  /**
   * Watch each existing folder of `sources` not watched yet, and stop watching the others. Resolves
   * once every new watcher is set up (a large folder's is set up in a worker, asynchronously).
   */
  sync(sources: readonly SourceStatus[]): Promise<void> {
    const wanted = new Map(sources.filter((s) => s.exists).map((s) => [s.dir, s.dirCount] as const));
    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
        this.inWorker.delete(dir);
      }
    }
    const ready: Promise<void>[] = [];
    for (const [dir, dirCount] of wanted) {
      if (this.watchers.has(dir) || this.failed.has(dir)) continue;
      try {
        const holder: { watcher?: Watching } = {};
        const inWorker = !this.options.watchFn && WATCH_WALKS && dirCount >= WATCH_IN_WORKER_DIRS;
        if (inWorker) this.options.logger.debug(`watching ${dir} (${dirCount} folders) in a worker`);
        const watch = this.options.watchFn ?? (inWorker ? workerWatch : defaultWatch);
        holder.watcher = watch(
          dir,
          () => this.options.changed(),
          (error) => this.stopped(dir, holder.watcher, error),
        );
        if (holder.watcher.ready) ready.push(holder.watcher.ready);
        if (this.failed.has(dir)) continue;
        this.watchers.set(dir, holder.watcher);
        if (inWorker) this.inWorker.add(dir);
      } catch (error) {
        // Missing folders throw ENOENT; too many watches throw ENOSPC. The timer still rescans.
        const message = errorMessage(error);
        if (!/ENOENT|no such file/i.test(message))
          this.options.logger.warn(
            `cannot watch ${dir} (${message}); relying on the ${this.options.rescanSeconds} s rescan.`,
          );
      }
    }
    return Promise.all(ready).then(() => undefined);
  }

  /** Every existing folder of `sources` has a working watcher. */
  healthy(sources: readonly SourceStatus[]): boolean {
    return !this.closed && sources.every((s) => !s.exists || this.watchers.has(s.dir));
  }

  /**
   * Hand the watched check of the records `pack` packs (the last scan's: `sliced` skill folders and
   * files) to the watch worker, which runs it every WORKER_CHECK_TICKS rescan intervals on its own
   * timer; or stop it there (`pack` undefined). Only when one of these folders is watched there. Whether
   * the worker now runs it.
   */
  handCheck(pack: (() => PackedRecord[] | undefined) | undefined, sliced: number): boolean {
    const everyMs = Math.min(this.options.rescanSeconds * 1000 * WORKER_CHECK_TICKS, MAX_TIMER_MS);
    const usable = this.inWorker.size > 0 && !this.closed && everyMs > 0 && watchWorkerRunning();
    const records = usable ? pack?.() : undefined;
    const check = records ? { records, sliced, everyMs } : null;
    // null also stops a check the worker may still run.
    this.workerChecks = workerCheck(check, this.checkOver) && check !== null;
    return this.workerChecks;
  }

  /** The watch worker runs the watched check (handCheck): the refresher's ticks have nothing to do. */
  get checksInWorker(): boolean {
    return this.workerChecks;
  }

  private workerChecks = false;
  /**
   * The check found a difference, or the worker ended: a scan, which records everything again (the
   * server handed its records over).
   */
  private readonly checkOver = () => {
    this.workerChecks = false;
    this.options.changed();
  };

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.inWorker.clear();
  }

  /**
   * A watcher stopped: drop it for good (one that fails again at once would cause a scan each time)
   * and report a change, so that a rescan looks for what it may have missed.
   */
  private stopped(dir: string, watcher: Watching | undefined, error: unknown): void {
    if (this.failed.has(dir)) return;
    this.failed.add(dir);
    watcher?.close();
    if (this.watchers.get(dir) === watcher) this.watchers.delete(dir);
    this.inWorker.delete(dir);
    if (this.closed) return;
    this.options.logger.warn(
      `the watcher on ${dir} stopped (${errorMessage(error)}); relying on the ${this.options.rescanSeconds} s rescan.`,
    );
    this.options.failed?.();
    this.options.changed();
  }
}
