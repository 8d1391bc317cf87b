import { watch as fsWatch, lstatSync, readFileSync, statfsSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { SKIPPED_DIRS } from "../sources/walk.ts";
import type { Covers } from "../sources/walk-record.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { createMemoryLogger, type Logger } from "../util/logger.ts";
import { nextTurn } from "../util/next-turn.ts";
import { plural } from "../util/plural.ts";
import { isInside } from "../util/safe-path.ts";

/** A watch set up on one path. */
export interface Watching {
  close(): void;
}

/**
 * A watch on `path`: with `recursive`, on every folder below it too (new ones included), else on its
 * direct entries. `onChange` for any change there, with the changed entry's path relative to `path`
 * (none when `path` itself went) and whether its content changed ("change") or an entry came, went or
 * was renamed ("rename"); `onError` once when it stops working (a watch the system refuses part of the
 * way, for want of watches, stops so). Injectable for tests.
 */
export type WatchFn = (
  path: string,
  recursive: boolean,
  onChange: (name?: string, event?: string) => void,
  onError: (error: unknown) => void,
) => Watching;

/** fs.watch, not keeping the process alive. */
export const defaultWatch: WatchFn = (path, recursive, onChange, onError) => {
  const watcher = fsWatch(path, { persistent: false, recursive }, (event, name) => onChange(name ?? undefined, event));
  watcher.on("error", (error) => {
    watcher.close();
    onError(error);
  });
  return watcher;
};

/** Errors of a watch the system refused for want of watches (inotify's per-user limit, or its instances). */
const LIMIT_CODES = new Set(["ENOSPC", "EMFILE"]);

/**
 * Whether a change below a source folder can change what a scan finds: not one in a folder no scan
 * enters (.git, __pycache__: a git fetch, a script's byte-code cache), nor new content in a file a scan
 * never reads (a log or cache a skill's script writes, an editor's swap file). An entry that comes, goes
 * or is renamed always can.
 */
function scanSees(name: string, event: string | undefined): boolean {
  const parts = name.split(/[\\/]/);
  if (parts.some((part, i) => i < parts.length - 1 && SKIPPED_DIRS.has(part))) return false;
  const file = parts[parts.length - 1] as string;
  return event !== "change" || file.endsWith(".md") || file === "config.yaml";
}

/**
 * What a watch is set on: a path's device, inode and birth time ("" when it cannot be statted). A folder
 * removed and made again often gets the same inode number, never the same birth time.
 */
function folderIdentity(path: string): string {
  try {
    const stats = statSync(path);
    return `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
  } catch {
    return "";
  }
}

/** Where Linux keeps the per-user limit on inotify watches. */
export const WATCH_LIMIT_FILE = "/proc/sys/fs/inotify/max_user_watches";

/**
 * File systems whose watches see only this machine's changes (NFS, SMB, FUSE such as sshfs and
 * virtiofs, 9p as in WSL and containers' shared folders, Ceph, AFS, VirtualBox and Parallels shares):
 * not watched; the stat check covers them.
 */
const REMOTE_FILE_SYSTEMS = new Set([
  0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x01021997, 0x00c36400, 0x5346414f, 0x6b414653, 0x73757245,
  0x564c, 0x786f4256, 0x7c7c6673, 0x0bd00bd0,
]);

/** Whether `path` is on a file system whose watches see every change (not a network or shared one). */
export function seesEveryChange(path: string): boolean {
  try {
    return !REMOTE_FILE_SYSTEMS.has(statfsSync(path).type);
  } catch {
    return true;
  }
}

/** What the watches are set on (Refresher.watchTargets). */
export interface WatchTargets {
  /** Folders watched with every folder below them. */
  roots: string[];
  /** Real paths of file systems mounted inside them: not covered when on a network file system. */
  mounts: string[];
  /** Files and folders watched plainly (the source list's inputs). */
  inputs: string[];
  /** Source folders left to the stat check, and why. */
  unwatched: { path: string; why: string }[];
  /** Source folders not there (yet): their nearest folder that is, watched for the entry leading to them. */
  absent?: string[];
}

/**
 * Where a source folder not there yet will appear: its nearest folder that exists, and the name of the
 * entry there on the way to it (`.agents` for `<project>/.agents/skills`). None when the path exists (a
 * file, a dangling link: the stat check covers those) or only the file system's root does.
 */
function awaitedEntry(path: string): { folder: string; name: string } | undefined {
  let child = path;
  for (let folder = path; ; child = folder, folder = dirname(folder)) {
    try {
      const stat = lstatSync(folder);
      return folder !== path && stat.isDirectory() && folder !== dirname(folder)
        ? { folder, name: basename(child) }
        : undefined;
    } catch {
      if (folder === dirname(folder)) return undefined;
    }
  }
}

/** What the watchers cover after a sync. */
export interface WatchCoverage {
  /** Folders asked for (each with everything below it), and inputs. */
  wanted: number;
  /** Folders watched now, each with everything below it. */
  watched: number;
  /** Paths watched plainly now: the source list's inputs, and folders where a missing source folder will appear. */
  inputs: number;
  /** Refused by the system for want of watches. */
  refused: number;
  /** Folders on a network or shared file system (sources, or mounted inside one): not covered by a watch. */
  remote: number;
  /** Source folders not watched: a dependency tree in them, or too many folders (WatchTargets.unwatched). */
  large: number;
}

/**
 * The most folders a server's watches may take: a quarter of the system's per-user limit on watches
 * (Linux), so that a few servers (one per client) never take the watches other programs need. No bound
 * elsewhere.
 */
export function watchBudget(): number {
  try {
    return Math.floor(Number.parseInt(readFileSync(WATCH_LIMIT_FILE, "utf8"), 10) / 4) || Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export interface FolderWatchersOptions {
  logger: Logger;
  /** For the log: how often the stat check finds what no watch reports (0: it does not run). */
  rescanSeconds: number;
  /** Called on any change reported by a watch, and once when a watch stops working. */
  changed: () => void;
  watchFn?: WatchFn;
  /** Whether a folder's watch sees every change (seesEveryChange); injectable for tests. */
  local?: (path: string) => boolean;
  /**
   * Whether a watch on a folder reports an edit of any file below it, so the stat check may leave those
   * to it: Linux's inotify does; elsewhere the check still stats everything. Default: on Linux.
   */
  trusted?: boolean;
}

/**
 * One watch on each source folder (and each folder a source links in), covering every folder below it,
 * and a plain watch on each of the source list's inputs. A change anywhere is rescanned after the
 * debounce; on Linux the watches cover an edit inside a skill too, so the 30 s stat check only stats
 * what no working watch covers (`covers`), and an idle server costs next to nothing.
 *
 * When the system refuses watches for want of them (the per-user limit, shared with every other
 * program), the log says so once, naming the setting; the folders of that source are covered by the
 * stat check. A folder on a network file system is not watched: the check covers it.
 */
export class FolderWatchers {
  private readonly watches = new Map<string, Watching>();
  /** The folder each watch was set on (device and inode): a folder removed and made again is watched again. */
  private readonly watchedFolders = new Map<string, string>();
  /** Paths whose watch stopped working: not watched again while they stay wanted (no scan per failure). */
  private readonly failed = new Set<string>();
  private readonly refusedPaths = new Set<string>();
  /** Folders watched for a source folder to appear in them, and the entry names that lead to one. */
  private awaited = new Map<string, Set<string>>();
  private coverage: WatchCoverage = { wanted: 0, watched: 0, inputs: 0, refused: 0, remote: 0, large: 0 };
  /** Mounted file systems inside the roots whose watches miss other machines' changes. */
  private remoteMounts: string[] = [];
  /** Watches set up on folders with everything below them, since the start: a new one calls for a check. */
  setUps = 0;
  /** Source folders whose being left unwatched was logged. */
  private readonly largeReported = new Set<string>();
  private roots: string[] = [];
  private coversNow: Covers | undefined;
  private limitReported = false;
  private closed = false;

  constructor(private readonly options: FolderWatchersOptions) {}

  /**
   * Watch exactly `roots` (each with everything below it) and `inputs` (plainly); a missing one is
   * skipped (the stat check sees it appear). Where an `absent` source folder will appear is watched
   * plainly for the entry leading to it, so a source folder made while the server runs (`mkdir -p
   * .agents/skills/x`) is served as soon as a skill folder is. Logs once each source folder left
   * unwatched. Reports the coverage.
   */
  sync({ roots, mounts, inputs, unwatched, absent = [] }: WatchTargets): WatchCoverage {
    if (this.closed) return this.coverage;
    for (const { path, why } of unwatched) {
      if (this.largeReported.has(path)) continue;
      this.largeReported.add(path);
      this.options.logger.warn(`not watching ${path}: ${why}; ${this.fallback()}`);
    }
    const local = this.options.local ?? seesEveryChange;
    const wanted = new Map<string, boolean>();
    let remote = 0;
    for (const path of inputs) wanted.set(path, false);
    for (const root of roots) {
      if (local(root)) wanted.set(root, true);
      else remote++;
    }
    this.remoteMounts = mounts.filter((mount) => !local(mount));
    this.awaited = new Map();
    for (const path of absent) {
      const entry = awaitedEntry(path);
      // A folder already watched (an input, or inside a root) reports the entry anyway.
      if (!entry || (wanted.has(entry.folder) && !this.awaited.has(entry.folder))) continue;
      if (roots.some((root) => isInside(root, entry.folder)) || !local(entry.folder)) continue;
      wanted.set(entry.folder, false);
      this.awaited.set(entry.folder, (this.awaited.get(entry.folder) ?? new Set()).add(entry.name));
    }
    for (const [path, watching] of this.watches) {
      if (wanted.has(path) && this.watchedFolders.get(path) === folderIdentity(path)) continue;
      watching.close();
      this.watches.delete(path);
      this.watchedFolders.delete(path);
    }
    for (const set of [this.failed, this.refusedPaths]) for (const path of set) if (!wanted.has(path)) set.delete(path);
    let limit = "";
    for (const [path, recursive] of wanted) {
      if (this.watches.has(path) || this.failed.has(path)) continue;
      try {
        const watch = this.options.watchFn ?? defaultWatch;
        this.watchedFolders.set(path, folderIdentity(path));
        this.watches.set(
          path,
          watch(
            path,
            recursive,
            (name, event) => {
              if (recursive && !name) this.gone(path);
              else if (recursive ? scanSees(name as string, event) : this.awaits(path, name)) this.options.changed();
            },
            (error) => this.stopped(path, error),
          ),
        );
        if (recursive) this.setUps++;
      } catch (error) {
        const code = errnoCode(error);
        if (code === "ENOENT" || code === "ENOTDIR") continue;
        this.failed.add(path);
        if (code && LIMIT_CODES.has(code)) {
          this.refusedPaths.add(path);
          limit = errorMessage(error);
          continue;
        }
        this.options.logger.warn(`cannot watch ${path} (${errorMessage(error)}); ${this.fallback()}`);
      }
    }
    this.roots = [...wanted].filter(([path, recursive]) => recursive && this.watches.has(path)).map(([path]) => path);
    this.coverage = {
      wanted: wanted.size,
      watched: this.roots.length,
      inputs: this.watches.size - this.roots.length,
      refused: this.refusedPaths.size,
      remote: remote + this.remoteMounts.length,
      large: unwatched.length,
    };
    this.coversNow = undefined;
    this.reportLimit(limit);
    return this.coverage;
  }

  /** Whether an entry changed in a plainly watched folder matters: any does, but in a folder awaiting a source folder. */
  private awaits(folder: string, name: string | undefined): boolean {
    const names = this.awaited.get(folder);
    return !names || (name !== undefined && names.has(basename(name)));
  }

  /** What the last sync covered. */
  get status(): WatchCoverage {
    return this.coverage;
  }

  /**
   * Whether a real folder is at or below a working watch that reports every change there (Covers); the
   * same function while the watches stay as they are. Undefined where watches are not trusted to.
   */
  get covers(): Covers | undefined {
    if (!(this.options.trusted ?? process.platform === "linux")) return undefined;
    const { roots, remoteMounts } = this;
    this.coversNow ??= (folder) =>
      roots.some((root) => isInside(root, folder)) && !remoteMounts.some((mount) => isInside(mount, folder));
    return this.coversNow;
  }

  close(): void {
    this.closed = true;
    for (const watching of this.watches.values()) watching.close();
    this.watches.clear();
    this.watchedFolders.clear();
  }

  /**
   * The folder a watch was set on went (removed or moved away): its watch sees nothing more. Dropped, and
   * set up again by the sync after the rescan that follows if a folder is there again.
   */
  private gone(path: string): void {
    if (this.drop(path)) this.options.changed();
  }

  /** A watch stopped working: dropped (and not set up again while wanted), and a rescan looks for what it missed. */
  private stopped(path: string, error: unknown): void {
    if (!this.drop(path)) return;
    this.failed.add(path);
    const code = errnoCode(error);
    if (code && LIMIT_CODES.has(code)) {
      this.refusedPaths.add(path);
      this.coverage = { ...this.coverage, refused: this.refusedPaths.size };
      this.limitReported = false;
      this.reportLimit(errorMessage(error));
    } else {
      this.options.logger.warn(`the watch on ${path} stopped (${errorMessage(error)}); ${this.fallback()}`);
    }
    this.options.changed();
  }

  /** Close the watch on `path` and stop counting on it; false when there is none (or all are closed). */
  private drop(path: string): boolean {
    const watching = this.watches.get(path);
    if (!watching || this.closed) return false;
    watching.close();
    this.watches.delete(path);
    this.watchedFolders.delete(path);
    this.roots = this.roots.filter((root) => root !== path);
    this.coversNow = undefined;
    this.coverage = { ...this.coverage, watched: this.roots.length, inputs: this.watches.size - this.roots.length };
    return true;
  }

  /** Says once, while watches stay refused, that the system's limit is reached and what covers the rest. */
  private reportLimit(limit: string): void {
    const refused = this.coverage.refused;
    if (refused > 0 && !this.limitReported && limit)
      this.options.logger.warn(
        `the system refused file watches on ${refused} of ${this.coverage.wanted} folders (${limit}): its limit on watches per user is reached (${watchLimitText()}), shared with every other program. ${this.fallback()} Raise the limit, e.g. sysctl fs.inotify.max_user_watches=524288.`,
      );
    // Said again if the limit is reached again later.
    this.limitReported = refused > 0;
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

/**
 * Set up the watches and close them at once: what a server here would cover (doctor). A watch the
 * system refuses part of the way says so on the next turn of the event loop: the probe waits for it.
 */
export async function probeWatches(targets: WatchTargets, watchFn?: WatchFn): Promise<WatchCoverage> {
  const watchers = new FolderWatchers({
    logger: createMemoryLogger("SILENT"),
    rescanSeconds: 0,
    changed: () => undefined,
    watchFn,
  });
  try {
    watchers.sync(targets);
    await nextTurn();
    return watchers.status;
  } finally {
    watchers.close();
  }
}

/** The watches as `doctor` shows them: how many, and when some are missing, why and what covers them. */
export function describeWatches(coverage: WatchCoverage, rescanSeconds: number): string {
  const watched =
    coverage.watched > 0
      ? `on, ${plural(coverage.watched, "folder")} and every folder below them`
      : "on, no folder watched";
  const check =
    rescanSeconds > 0 ? `the stat check every ${rescanSeconds} s` : "no stat check (SKILLHUB_RESCAN_SECONDS is 0)";
  const notes: string[] = [];
  if (coverage.remote > 0)
    notes.push(`${plural(coverage.remote, "folder")} on a network file system not watched: covered by ${check}`);
  if (coverage.large > 0)
    notes.push(
      `${plural(coverage.large, "source folder")} not watched (a node_modules or .venv in it, deeper than sources.max_depth, or more folders than a quarter of fs.inotify.max_user_watches): covered by ${check}`,
    );
  if (coverage.refused > 0)
    notes.push(
      `the system refused ${coverage.refused} more: its limit on watches per user is reached (${watchLimitText()}), so changes there are found by ${check}. Raise it, e.g. sysctl fs.inotify.max_user_watches=524288`,
    );
  return [watched, ...notes].join("; ");
}
