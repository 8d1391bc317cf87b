import { watch as fsWatch, readFileSync } from "node:fs";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { createMemoryLogger, type Logger } from "../util/logger.ts";

/** A watch set up on one path. */
export interface Watching {
  close(): void;
}

/**
 * A watch on `path` and its direct entries (not recursive): `onChange` for any change there, `onError`
 * once when it stops working. Injectable for tests.
 */
export type WatchFn = (path: string, onChange: () => void, onError: (error: unknown) => void) => Watching;

/** fs.watch, not recursive, not keeping the process alive. */
export const defaultWatch: WatchFn = (path, onChange, onError) => {
  const watcher = fsWatch(path, { persistent: false }, () => onChange());
  watcher.on("error", (error) => {
    watcher.close();
    onError(error);
  });
  return watcher;
};

/** Errors of a watch the system refused for want of watches (inotify's per-user limit, or its instances). */
const LIMIT_CODES = new Set(["ENOSPC", "EMFILE"]);

/** Where Linux keeps the per-user limit on inotify watches. */
export const WATCH_LIMIT_FILE = "/proc/sys/fs/inotify/max_user_watches";

/** What the watchers cover after a sync. */
export interface WatchCoverage {
  /** Paths asked for. */
  wanted: number;
  /** Paths watched now. */
  watched: number;
  /** Paths the system refused a watch for want of watches. */
  refused: number;
}

export interface FolderWatchersOptions {
  logger: Logger;
  /** For the log: how often the stat check finds what no watch reports (0: it does not run). */
  rescanSeconds: number;
  /** Called on any change reported by a watch, and once when a watch stops working. */
  changed: () => void;
  watchFn?: WatchFn;
}

/**
 * One plain (not recursive) watch per folder where skills appear: the source folders and the folders
 * between them and the skills (collections), never the folders inside skills. New, removed and renamed
 * skills are seen at once; an edit inside a skill is found by the stat check (refresher.ts). So the
 * watches a server holds grow with the folders that hold skills, not with every folder of every skill
 * (a recursive watch on 60,000 real-shaped skills took 133,208 of the system's inotify watches).
 *
 * When the system refuses a watch for want of watches (the per-user limit, shared with every other
 * program), the log says so once, naming the setting; those folders are covered by the stat check.
 */
export class FolderWatchers {
  private readonly watches = new Map<string, Watching>();
  /** Paths whose watch stopped working: not watched again while they stay wanted (no scan per failure). */
  private readonly failed = new Set<string>();
  private coverage: WatchCoverage = { wanted: 0, watched: 0, refused: 0 };
  private limitReported = false;
  private closed = false;

  constructor(private readonly options: FolderWatchersOptions) {}

  /** Watch exactly `paths` (a missing one is skipped: the stat check sees it appear), and report the coverage. */
  sync(paths: Iterable<string>): WatchCoverage {
    if (this.closed) return this.coverage;
    const wanted = new Set(paths);
    for (const [path, watching] of this.watches) {
      if (wanted.has(path)) continue;
      watching.close();
      this.watches.delete(path);
    }
    for (const path of this.failed) if (!wanted.has(path)) this.failed.delete(path);
    let refused = 0;
    let limit = "";
    for (const path of wanted) {
      if (this.watches.has(path) || this.failed.has(path)) continue;
      try {
        const watch = this.options.watchFn ?? defaultWatch;
        this.watches.set(
          path,
          watch(
            path,
            () => this.options.changed(),
            (error) => this.stopped(path, error),
          ),
        );
      } catch (error) {
        const code = errnoCode(error);
        if (code === "ENOENT" || code === "ENOTDIR") continue;
        if (code && LIMIT_CODES.has(code)) {
          refused++;
          limit = errorMessage(error);
          continue;
        }
        this.failed.add(path);
        this.options.logger.warn(`cannot watch ${path} (${errorMessage(error)}); ${this.fallback()}`);
      }
    }
    this.coverage = { wanted: wanted.size, watched: this.watches.size, refused };
    if (refused > 0 && !this.limitReported)
      this.options.logger.warn(
        `the system refused ${refused} of ${wanted.size} file watches (${limit}): its limit on watches per user is reached (${watchLimitText()}), shared with every other program. ${this.fallback()} Raise the limit, e.g. sysctl fs.inotify.max_user_watches=524288.`,
      );
    // Said again if the limit is reached again later.
    this.limitReported = refused > 0;
    return this.coverage;
  }

  /** What the last sync covered. */
  get status(): WatchCoverage {
    return this.coverage;
  }

  close(): void {
    this.closed = true;
    for (const watching of this.watches.values()) watching.close();
    this.watches.clear();
  }

  /** A watch stopped working: dropped (and not set up again while wanted), and a rescan looks for what it missed. */
  private stopped(path: string, error: unknown): void {
    const watching = this.watches.get(path);
    if (!watching || this.closed) return;
    watching.close();
    this.watches.delete(path);
    this.failed.add(path);
    this.options.logger.warn(`the watch on ${path} stopped (${errorMessage(error)}); ${this.fallback()}`);
    this.options.changed();
  }

  private fallback(): string {
    const seconds = this.options.rescanSeconds;
    return seconds > 0
      ? `changes there are found by the stat check every ${seconds} s.`
      : "changes there are found only by refresh_skills or a restart (SKILLHUB_RESCAN_SECONDS is 0).";
  }
}

/** The per-user watch limit as the log and `doctor` name it (Linux; elsewhere its name alone). */
export function watchLimitText(): string {
  try {
    return `fs.inotify.max_user_watches = ${Number.parseInt(readFileSync(WATCH_LIMIT_FILE, "utf8"), 10)}`;
  } catch {
    return "fs.inotify.max_user_watches";
  }
}

/** Set up watches on `paths` and close them at once: what a server here would cover (doctor). */
export function probeWatches(paths: Iterable<string>, watchFn?: WatchFn): WatchCoverage {
  const watchers = new FolderWatchers({
    logger: createMemoryLogger("SILENT"),
    rescanSeconds: 0,
    changed: () => undefined,
    watchFn,
  });
  try {
    return watchers.sync(paths);
  } finally {
    watchers.close();
  }
}

/** The watches as `doctor` shows them: how many, and when the system refused some, why and what covers them. */
export function describeWatches(coverage: WatchCoverage, rescanSeconds: number): string {
  const watched = `on, ${coverage.watched} folder${coverage.watched === 1 ? "" : "s"} where skills appear`;
  if (coverage.refused === 0) return watched;
  const check =
    rescanSeconds > 0 ? `the stat check every ${rescanSeconds} s` : "no stat check (SKILLHUB_RESCAN_SECONDS is 0)";
  return `${watched}; the system refused ${coverage.refused} more: its limit on watches per user is reached (${watchLimitText()}), so changes there are found by ${check}. Raise it, e.g. sysctl fs.inotify.max_user_watches=524288`;
}
