import type { Catalog } from "../catalog/catalog.ts";
import type { Scanner, Verdict } from "../catalog/scanner.ts";
import type { CatalogStore } from "../catalog/store.ts";
import type { Config } from "../config/schema.ts";
import type { Source } from "../sources/source-list.ts";
import type { WalkLimits } from "../sources/walk.ts";
import type { VerifyPlan } from "../sources/walk-record.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { nextTurn } from "../util/next-turn.ts";
import { memoryRelease } from "../util/release-memory.ts";
import { Debounce } from "./debounce.ts";
import { MAX_TIMER_MS, SourceWatchers } from "./source-watchers.ts";
import { StructurePolls } from "./structure-polls.ts";
import { FULL_CHECK, timerPlan, WATCHED_CHECK_TICKS } from "./timer-plan.ts";
import type { WatchFn } from "./watcher.ts";

export { CHECK_STATS, SWEEP_TICKS, timerPlan, WATCHED_CHECK_TICKS } from "./timer-plan.ts";
export type { WatchFn } from "./watcher.ts";

/** Scans that may take the quick path (WalkLimits.quick); watcher events, refreshes and misses never do. */
const QUICK_REASONS = new Set(["timer", "watchers started"]);

export interface RefresherOptions {
  store: CatalogStore;
  scanner: Scanner;
  logger: Logger;
  /** The current source list (it changes when the project root does). */
  sources: () => readonly Source[];
  /** Files and folders whose change may change `sources` (Claude Code's plugin registry): polled like source folders. */
  sourceInputs?: () => readonly string[];
  limits: WalkLimits;
  /** Seconds between rescans; 0 = no timer. */
  rescanSeconds: number;
  /** Start file watchers on the source folders. */
  watch: boolean;
  /** Watcher debounce. Default 500 ms. */
  debounceMs?: number;
  /** Longest a rescan waits under a steady stream of changes, in ms. Default max(4 × debounce, 2,000). */
  maxWaitMs?: number;
  /** Injected for tests. */
  watchFn?: WatchFn;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
  now?: () => number;
}

/** The walk limits of the configuration (sources.max_depth, sources.max_dirs). */
export function walkLimitsOf(config: Config): WalkLimits {
  return { maxDepth: config.sources.max_depth, maxDirs: config.sources.max_dirs };
}

/**
 * Keeps the catalog fresh: an initial scan, a stat-based rescan timer, and recursive watchers with a
 * debounce. Scans never overlap: a request during a scan runs once more after it, however many came in.
 */
export class Refresher {
  /** Resolves when the first catalog is installed. */
  readonly ready: Promise<void>;
  /**
   * Resolves once the watchers are set up and the check that follows them is over (at once when
   * there are no watchers). Tests and benchmarks wait on it; nothing else needs to.
   */
  readonly watched: Promise<void>;
  private markReady!: () => void;
  private markWatched!: () => void;
  private running?: Promise<void>;
  private queued?: Promise<void>;
  private readonly watchers: SourceWatchers;
  private timer: unknown;
  private readonly debounce: Debounce;
  private lastScanEnd = 0;
  /** Stat checks so far (which slice the next one stats). */
  private checks = 0;
  /** Ticks to let pass without a check (a working watcher: see WATCHED_CHECK_TICKS). */
  private quietTicks = 0;
  private readonly polls?: StructurePolls;
  /** A timer tick's stat check is under way (a slow file system must not stack them up). */
  private verifying = false;
  /** Watchers are set up after the first scan; later scans keep them in step with the sources. */
  private watching = false;
  private stopped = false;
  private readonly now: () => number;

  /** A refresher with the configuration's timer, watcher and walk limits (sources.*). */
  static fromConfig(
    config: Config,
    deps: Pick<RefresherOptions, "store" | "scanner" | "logger" | "sources" | "sourceInputs" | "watchFn" | "now">,
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
    this.watchers = new SourceWatchers({
      logger: options.logger,
      rescanSeconds: options.rescanSeconds,
      changed: () => this.changed(),
      // The ticks it let pass check again, here.
      failed: () => {
        this.quietTicks = 0;
        this.handCheck();
      },
      watchFn: options.watchFn,
    });
    if (options.rescanSeconds > 0 && options.watch)
      this.polls = new StructurePolls(options.rescanSeconds * 1000, () => this.changed(), options.sourceInputs);
  }

  /**
   * Scan, then watch: the first catalog is not held up by setting up a recursive watcher (thousands
   * of inotify watches at 10,000 skills). What changed before the watcher existed is caught by a stat
   * check of everything the first scan saw, then a scan only if something differs (a walk cost 0.5 s
   * of the event loop at 20,000 skills, just when a client's first calls come in).
   */
  start(): Promise<void> {
    const first = this.rescan("startup").then(() => {
      // The scan's garbage, before the calls that waited for it and the index load.
      memoryRelease.collectNow();
      this.markReady();
      if (!this.options.watch || this.stopped) return this.markWatched();
      setTimeout(() => {
        if (this.stopped) return this.markWatched();
        this.watching = true;
        void this.watchers
          .sync(this.options.store.catalog.sources)
          .then(() => this.checkThenScan("watchers started", () => this.checked(FULL_CHECK)))
          .then((verdict) => verdict === "unchanged" && this.handCheck())
          .finally(this.markWatched);
      }, 0);
    });
    const seconds = this.options.rescanSeconds;
    if (seconds > 0) {
      const set = this.options.setInterval ?? ((fn, ms) => setInterval(fn, ms).unref());
      this.timer = set(() => this.tick(), Math.min(seconds * 1000, MAX_TIMER_MS));
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
    let verdict: Verdict;
    try {
      verdict = await this.options.scanner.verify(this.options.sources(), FULL_CHECK);
    } catch (error) {
      this.options.logger.error(`check failed: ${errorMessage(error)}`);
      verdict = "unknown";
    }
    if (verdict !== "unchanged") await this.rescan(`${reason}: ${verdict}`);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined)
      (this.options.clearInterval ?? ((h) => clearInterval(h as ReturnType<typeof setInterval>)))(this.timer);
    this.debounce.cancel();
    this.watchers.close();
    this.polls?.close();
  }

  /**
   * A timer tick: the stat check; with a working watcher, only one tick in WATCHED_CHECK_TICKS checks
   * and the others just count (issue 16: idle CPU), while the runtime polls the folders where new skills
   * appear (StructurePolls). Nothing at all when the watch worker runs the check (handCheck).
   */
  private tick(): void {
    if (this.watchers.checksInWorker) return;
    if (this.quietTicks > 0) this.quietTicks--;
    else void this.timerPass();
  }

  /** A stat check of the last scan (timerPlan), then a full scan only if something differs (issue 16). */
  timerPass(): Promise<Verdict | "skipped"> {
    return this.checkThenScan("timer", () => {
      const healthy = this.watcherHealthy();
      return this.checked(timerPlan(this.checks++, healthy, this.options.scanner.slicedEntries), healthy);
    });
  }

  /** A check by `plan` is starting: with a working watcher, the next one is WATCHED_CHECK_TICKS ticks away. */
  private checked(plan: VerifyPlan, healthy = this.watcherHealthy()): VerifyPlan {
    this.quietTicks = healthy ? WATCHED_CHECK_TICKS - 1 : 0;
    return plan;
  }

  /**
   * A stat check of the last scan by `plan`, then a scan only when something differs. `reason` names
   * the scan and says whether it may be quick (QUICK_REASONS) when there was nothing to check against.
   */
  private async checkThenScan(reason: string, plan: () => VerifyPlan): Promise<Verdict | "skipped"> {
    if (this.stopped || this.verifying) return "skipped";
    // A scan under way is followed by one more, which looks at everything anyway.
    if (this.running) {
      await this.rescan(reason);
      return "skipped";
    }
    this.verifying = true;
    let verdict: Verdict;
    try {
      verdict = await this.options.scanner.verify(this.options.sources(), plan());
    } catch (error) {
      this.options.logger.error(`rescan check failed: ${errorMessage(error)}`);
      verdict = "unknown";
    } finally {
      this.verifying = false;
    }
    if (verdict === "unchanged") return verdict;
    // Something differs: walk everything (a quick walk would trust the leaf folders the check just doubted).
    await this.rescan(verdict === "changed" ? `${reason}: changed` : reason);
    return verdict;
  }

  /** With the watchers working and one in the watch worker, that worker checks (SourceWatchers.handCheck). */
  private handCheck(): void {
    if (!this.watcherHealthy()) this.watchers.handCheck(undefined, 0);
    else this.options.scanner.handRecords((pack, sliced) => this.watchers.handCheck(pack, sliced));
  }

  /** Every existing source folder has a working watcher (see timerPlan). */
  watcherHealthy(): boolean {
    if (!this.watching || this.stopped) return false;
    return this.watchers.healthy(this.options.store.catalog.sources);
  }

  private async run(reason: string): Promise<void> {
    // The first scan waits one turn of the event loop: a client's `initialize`, already in the pipe
    // when the server starts, is answered before the scan competes for the CPU (issue 16).
    if (reason === "startup") await nextTurn();
    const started = this.now();
    let catalog: Catalog;
    try {
      // Only QUICK_REASONS take the quick path; a watcher event, a refresh or a miss look at everything.
      catalog = await this.options.scanner.scanAsync(this.options.sources(), {
        ...this.options.limits,
        quick: QUICK_REASONS.has(reason),
      });
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
    if (this.watching && !this.stopped) {
      void this.watchers.sync(this.options.store.catalog.sources);
      this.handCheck();
    }
    if (!this.stopped) this.polls?.sync(this.options.scanner.structureFolders);
  }

  private changed(): void {
    if (!this.stopped) this.debounce.push();
  }
}
