import { join } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import type { Scanner, Verdict } from "../catalog/scanner.ts";
import type { CatalogStore } from "../catalog/store.ts";
import { realPathOf } from "../config/repository-copies.ts";
import type { Config } from "../config/schema.ts";
import type { Source } from "../sources/source-list.ts";
import type { WalkLimits } from "../sources/walk.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { nextTurn } from "../util/next-turn.ts";
import { timerDelay } from "../util/timer-limit.ts";
import { Debounce } from "./debounce.ts";
import { FolderWatchers, type WatchCoverage, type WatchFn, type WatchTargets, watchBudget } from "./folder-watchers.ts";

export { MAX_TIMER_MS } from "../util/timer-limit.ts";
export type { WatchFn } from "./folder-watchers.ts";

export interface RefresherOptions {
  store: CatalogStore;
  scanner: Scanner;
  logger: Logger;
  /** The current source list (it changes when the project root does). */
  sources: () => readonly Source[];
  /** Files and folders whose change may change `sources` (Claude Code's plugin registry): watched too. */
  sourceInputs?: () => readonly string[];
  limits: WalkLimits;
  /** Seconds between stat checks; 0 = no timer. */
  rescanSeconds: number;
  /** Watch the sources' folders. */
  watch: boolean;
  /** Watcher debounce. Default 500 ms. */
  debounceMs?: number;
  /** Longest a rescan waits under a steady stream of changes, in ms. Default max(4 × debounce, 2,000). */
  maxWaitMs?: number;
  /** The first scan's garbage is collected before the calls that waited for it (MemoryRelease.collectNow). */
  collectNow?: () => void;
  /** Called after every stat check (other files that change what is served look too: a frozen server's locks). */
  afterCheck?: () => void;
  /** The most folders a watched source may hold (watchBudget). */
  watchBudget?: number;
  /** Injected for tests. */
  watchFn?: WatchFn;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
  now?: () => number;
}

/**
 * The walk limits of the configuration (sources.max_depth, sources.max_dirs), and the repository copies
 * (`<home>/repos`, links followed) that only a synced repository's walk may enter.
 */
export function walkLimitsOf(config: Config): WalkLimits {
  const copies = realPathOf(join(config.home, "repos"));
  return { maxDepth: config.sources.max_depth, maxDirs: config.sources.max_dirs, copies };
}

/**
 * Keeps the catalog fresh, one design for every source:
 * - a watch on each source folder, covering every folder below it (FolderWatchers): any change is
 *   rescanned after the debounce;
 * - every `rescanSeconds`, a stat of every folder and skill file of the last scan that no working watch
 *   covers (Scanner.verify), then a full scan only when something differs: whatever no watch reports
 *   (a network file system, a watch the system refused, a platform whose watches miss edits, or
 *   `--no-watch`: everything) is served within one interval and one scan;
 * - a name not found rescans at once when a folder of that name exists (Hub.findSkill, refreshForMiss).
 * Scans never overlap: a request during a scan runs once more after it, however many came in.
 */
export class Refresher {
  /** Resolves when the first catalog is installed. */
  readonly ready: Promise<void>;
  /**
   * Resolves once the watches are set up and the check that follows them is over (at once without
   * watches). Tests and benchmarks wait on it; nothing else needs to.
   */
  readonly watched: Promise<void>;
  private markReady!: () => void;
  private markWatched!: () => void;
  private running?: Promise<void>;
  private queued?: Promise<void>;
  private readonly watchers?: FolderWatchers;
  private timer: unknown;
  private readonly debounce: Debounce;
  private lastScanEnd = 0;
  /** The stat check under way (a slow file system must not stack them up), and whether it stats everything. */
  private checking?: { done: Promise<Verdict>; all: boolean };
  private stopped = false;
  private readonly now: () => number;

  /** A refresher with the configuration's timer, watcher and walk limits (sources.*). */
  static fromConfig(
    config: Config,
    deps: Pick<
      RefresherOptions,
      "store" | "scanner" | "logger" | "sources" | "sourceInputs" | "watchFn" | "now" | "collectNow" | "afterCheck"
    >,
  ): Refresher {
    return new Refresher({
      ...deps,
      limits: walkLimitsOf(config),
      rescanSeconds: config.sources.rescan_seconds,
      watch: config.sources.watch,
      debounceMs: config.sources.debounce_ms,
    });
  }

  constructor(private readonly options: RefresherOptions) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.watched = new Promise((resolve) => (this.markWatched = resolve));
    this.now = options.now ?? Date.now;
    const debounceMs = options.debounceMs ?? 500;
    const maxWaitMs = options.maxWaitMs ?? Math.max(4 * debounceMs, 2_000);
    this.debounce = new Debounce(() => void this.rescan("file change"), debounceMs, maxWaitMs, this.now);
    if (options.watch)
      this.watchers = new FolderWatchers({
        logger: options.logger,
        rescanSeconds: options.rescanSeconds,
        changed: () => this.changed(),
        watchFn: options.watchFn,
      });
  }

  /**
   * Scan, then watch, then check once: what changed between the scan and the watches is found by that
   * check, and a scan follows only if something differs.
   */
  start(): Promise<void> {
    const first = this.rescan("startup").then(() => {
      // The scan's garbage, before the calls that waited for it and the index load.
      this.options.collectNow?.();
      this.markReady();
      if (!this.watchers || this.stopped) return this.markWatched();
      // Watches are set up after the calls that waited for the scan are answered.
      void nextTurn()
        .then(() => {
          this.syncWatches();
          return this.checkAfterScans("watches set up");
        })
        .finally(this.markWatched);
    });
    const seconds = this.options.rescanSeconds;
    if (seconds > 0) {
      const set = this.options.setInterval ?? ((fn, ms) => setInterval(fn, ms).unref());
      this.timer = set(() => void this.check("timer", "unwatched"), timerDelay(seconds * 1000));
    }
    return first;
  }

  /**
   * Before the first scan: list the last run's catalog (its snapshot) until that scan ends, and let the
   * scan take its Agent Skills as the parses of files unchanged since. How many it took; undefined
   * (nothing done) once a scan's catalog is installed.
   */
  seed(catalog: Catalog): number | undefined {
    return this.options.store.seed(catalog) ? this.options.scanner.seed(catalog) : undefined;
  }

  /** Install a catalog built elsewhere (synchronous CLI scans) and mark ready. */
  installed(): void {
    this.lastScanEnd = this.now();
    this.markReady();
  }

  /** Rescan now; concurrent calls share one follow-up scan. */
  rescan(reason: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (!this.running) {
      this.running = this.run(reason).finally(() => (this.running = undefined));
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = undefined;
      return this.rescan(reason);
    });
    return this.queued;
  }

  /**
   * The stat check: every entry the last scan recorded ("unwatched": those no working watch covers), then
   * a full scan only when something differs, so a change is served within one interval and one scan. A
   * call while a check that covers it runs shares it; "skipped" during a scan (which looks at everything;
   * what it walked past, the next check finds) and once stopped.
   */
  check(reason = "timer", scope: "all" | "unwatched" = "all"): Promise<Verdict | "skipped"> {
    if (this.stopped || (this.running && !this.checking)) return Promise.resolve("skipped");
    const all = scope === "all";
    if (this.checking && (this.checking.all || !all)) return this.checking.done;
    // A full check waits for the one under way, then for a scan begun meanwhile (what it walked past,
    // the check after it finds).
    if (this.checking) return this.checking.done.then(() => this.checkAfterScans(reason));
    const checking = { done: this.runCheck(reason, all), all };
    this.checking = checking;
    void checking.done.finally(() => {
      if (this.checking === checking) this.checking = undefined;
    });
    return checking.done;
  }

  /** A full check once no scan runs: what a scan under way walked past before a change, this one finds. */
  private async checkAfterScans(reason: string): Promise<Verdict | "skipped"> {
    for (;;) {
      const verdict = await this.check(reason);
      if (verdict !== "skipped" || this.stopped || !this.running) return verdict;
      await this.running;
    }
  }

  private async runCheck(reason: string, all: boolean): Promise<Verdict> {
    let verdict: Verdict;
    try {
      const covers = all ? undefined : this.watchers?.covers;
      verdict = await this.options.scanner.verify(this.options.sources(), nextTurn, covers);
    } catch (error) {
      this.options.logger.error(`rescan check failed: ${errorMessage(error)}`);
      verdict = "unknown";
    }
    this.options.afterCheck?.();
    if (verdict !== "unchanged") await this.rescan(verdict === "changed" ? `${reason}: changed` : reason);
    return verdict;
  }

  /**
   * Called when a name is not found: a skill added a moment ago should load
   * even if no watcher saw it. Rate-limited so misses cannot become a scan storm.
   */
  async refreshForMiss(minIntervalMs = 1000): Promise<boolean> {
    // A scan under way may already have passed the new skill's folder: queue the follow-up and wait for it.
    if (this.running) {
      await this.rescan("lookup miss");
      return true;
    }
    if (this.now() - this.lastScanEnd < minIntervalMs) return false;
    await this.rescan("lookup miss");
    return true;
  }

  /**
   * Before answering from the catalog (skills.list, skills.search): a scan under way, or a change a
   * watcher reported and the debounce still holds, is waited for (a scan that began before the change
   * gets a follow-up); otherwise every entry of the last scan is statted, no file read, and a scan runs
   * only when one differs (or nothing vouches for the last scan). Resolves once the catalog is as
   * fresh as the disk was at the call, with or without watchers.
   */
  async checkNow(reason = "check"): Promise<void> {
    if (this.stopped) return;
    if (this.running || this.debounce.pending) return this.rescan(reason);
    await this.check(reason);
  }

  /** What the watches are set on: each source's folder with everything below it, and the source list's inputs. */
  watchTargets(): WatchTargets {
    return {
      ...this.options.scanner.watchRoots(this.options.watchBudget ?? watchBudget()),
      inputs: [...(this.options.sourceInputs?.() ?? [])],
    };
  }

  /** What the watches cover (tests); undefined without watches. */
  get watchCoverage(): WatchCoverage | undefined {
    return this.watchers?.status;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined)
      (this.options.clearInterval ?? ((h) => clearInterval(h as ReturnType<typeof setInterval>)))(this.timer);
    this.debounce.cancel();
    this.watchers?.close();
  }

  private async run(reason: string): Promise<void> {
    // The first scan waits one turn of the event loop: a client's `initialize`, already in the pipe
    // when the server starts, is answered before the scan competes for the CPU.
    if (reason === "startup") await nextTurn();
    const started = this.now();
    let catalog: Catalog;
    try {
      catalog = await this.options.scanner.scanAsync(this.options.sources(), this.options.limits);
    } catch (error) {
      // A bug in scanning must not take the server down; keep serving the last catalog.
      this.options.logger.error(`scan failed (${reason}): ${errorMessage(error)}`);
      return;
    }
    this.lastScanEnd = this.now();
    const change = this.options.store.swap(catalog);
    this.options.logger.debug(
      `scan (${reason}): ${catalog.skills.length} skills in ${this.lastScanEnd - started} ms${change ? ", changed" : ""}`,
    );
    // The first scan's watches wait for the calls that waited for it (start).
    if (reason === "startup" || !this.watchers) return;
    const setUps = this.watchers.setUps;
    this.syncWatches();
    // A folder watched from now on may have changed after this scan passed it and before its watch.
    if (this.watchers.setUps > setUps) void this.running?.then(() => this.checkAfterScans("watches set up"));
  }

  private syncWatches(): void {
    if (this.stopped || !this.watchers) return;
    this.watchers.sync(this.watchTargets());
  }

  private changed(): void {
    if (!this.stopped) this.debounce.push();
  }
}
