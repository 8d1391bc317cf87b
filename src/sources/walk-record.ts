import { readlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Stamp } from "./stamp.ts";

/** The calls a check makes (WalkFs's, without importing walk-types, which imports this file). */
type StatFs = {
  statSync(path: string): Stamp & { size: number; isDirectory(): boolean };
  realpathSync(path: string): string;
};

/** Whether a real folder is under a working watch that reports every change in it and below (refresh/folder-watchers.ts). */
export type Covers = (realFolder: string) => boolean;

/** The entries of a record no watch covers, by index: what the timer's check stats. */
interface Unwatched {
  skillDirs: number[];
  files: number[];
  links: number[];
}

/**
 * What one walk looked at, so that a later check can tell by stat alone that a new walk would give the
 * same result (an unchanged rescan costs a stat per entry, no readdir and no parse). A walk's result
 * depends only on the listings of the folders it read (an added, removed or renamed entry changes its
 * folder's mtime; another folder in its place has another stamp), on the size and stamp of the files it
 * statted, and on where its links lead.
 *
 * Entries come in three groups:
 * - `structure`: folders outside skills (source roots, collections), where new skills appear;
 * - `skillDirs`: skill folders and the folders inside them;
 * - `files`: every SKILL.md and loose `.md` file (tree nodes) the walk statted.
 */
export class WalkRecord {
  readonly structure = new StatList();
  readonly skillDirs = new StatList();
  readonly files = new StatList();
  /** Links the walk followed, with the real path each led to (a link retargeted elsewhere changes nothing else). */
  readonly links: [path: string, real: string][] = [];
  /** Files with more than one name: an edit through another name is seen by no watch on this one's folder. */
  readonly hardLinked = new Set<string>();
  /** The source folder, and its real path ("" when it is missing): where a watch on the source is set. */
  root = "";
  rootReal = "";
  /** Real paths of the folders the walk entered through a link (installed skills, linked collections). */
  readonly linkedFolders: string[] = [];
  /** Dependency trees (`node_modules`, `.venv`) the walk passed by: a watch on the source would enter them. */
  dependencyTrees = 0;
  /** Whether the walk stopped at the depth limit: a watch on the source would go deeper. */
  depthLimited = false;
  /** Real paths of the folders where another file system is mounted inside the source. */
  readonly mounts: string[] = [];
  /** What the last `unwatched` call found, and for which coverage. */
  private unwatchedFor?: { covers: Covers; entries: Unwatched };
  /**
   * False when the walk met something a stat cannot vouch for (an unreadable
   * folder or file: permissions can change without touching mtime). Such a
   * record is never verified; the caller walks again.
   */
  verifiable = true;

  /**
   * Whether a new walk would give the same result as the one that made this record, by stat alone:
   * false at the first difference. Pauses every VERIFY_CHUNK entries, like Walker.steps().
   */
  *verify(fs: StatFs): Generator<void, boolean, void> {
    for (const [path, real] of this.links) if (realOrEmpty(fs, path) !== real) return false;
    let n = 0;
    for (const list of [this.structure, this.skillDirs, this.files]) {
      for (let i = 0; i < list.length; i++) {
        if (!list.same(fs, i)) return false;
        if (++n % VERIFY_CHUNK === 0) yield;
      }
    }
    return true;
  }

  /**
   * `verify` for what no watch covers: the source folder and the collection folders (a source folder
   * replaced or removed is seen by no watch inside it), and the skill folders, files and links whose real
   * folder `covers` refuses, and files with more than one name. Where a watch covers everything, a few stats.
   */
  *verifyUnwatched(fs: StatFs, covers: Covers): Generator<void, boolean, void> {
    const unwatched = this.unwatched(covers);
    for (const i of unwatched.links) {
      const [path, real] = this.links[i] as [string, string];
      if (realOrEmpty(fs, path) !== real) return false;
    }
    let n = 0;
    for (let i = 0; i < this.structure.length; i++) {
      if (!this.structure.same(fs, i)) return false;
      if (++n % VERIFY_CHUNK === 0) yield;
    }
    for (const [list, indices] of [
      [this.skillDirs, unwatched.skillDirs],
      [this.files, unwatched.files],
    ] as const) {
      for (const i of indices) {
        if (!list.same(fs, i)) return false;
        if (++n % VERIFY_CHUNK === 0) yield;
      }
    }
    return true;
  }

  /**
   * The entries whose real folder (a file's: the folder holding it; a link's: the folder holding the
   * link) no watch covers, computed once per coverage: a folder reached through a link is where that
   * link leads.
   */
  unwatched(covers: Covers): Unwatched {
    if (this.unwatchedFor?.covers === covers) return this.unwatchedFor.entries;
    const linkReal = new Map(this.links);
    const realOf = (folder: string): string => {
      if (linkReal.size === 0) return folder;
      for (let cut = folder.length; cut > 0; cut = folder.lastIndexOf("/", cut - 1)) {
        const real = linkReal.get(folder.slice(0, cut));
        if (real !== undefined) return real && real + folder.slice(cut);
      }
      return folder;
    };
    const watched = (folder: string) => {
      const real = realOf(folder);
      return real !== "" && covers(real);
    };
    // A link is the watches' only while it leads somewhere straight: a dangling one, or one through
    // another link elsewhere, can change where it leads with no change in any watched folder.
    const straight = (path: string, real: string) => {
      const from = realOf(dirname(path));
      return real !== "" && from !== "" && resolve(from, readlinkOrEmpty(path)) === real;
    };
    // A file that is itself a link changes where it leads: its target's folder.
    const fileWatched = (path: string) => {
      if (this.hardLinked.has(path)) return false;
      const real = linkReal.get(path);
      return real === undefined
        ? watched(dirname(path))
        : straight(path, real) && watched(dirname(path)) && covers(dirname(real));
    };
    const indices = <T>(items: readonly T[], isWatched: (item: T) => boolean) => {
      const found: number[] = [];
      for (let i = 0; i < items.length; i++) if (!isWatched(items[i] as T)) found.push(i);
      return found;
    };
    const entries: Unwatched = {
      skillDirs: indices(this.skillDirs.paths, (path) => path !== this.root && watched(path)),
      files: indices(this.files.paths, fileWatched),
      links: indices(this.links, ([path, real]) => straight(path, real) && watched(dirname(path))),
    };
    this.unwatchedFor = { covers, entries };
    return entries;
  }

  /** Entries a check stats. */
  get size(): number {
    return this.structure.length + this.skillDirs.length + this.files.length + this.links.length;
  }
}

/** Paths with the stamp (and, for files, size) seen; parallel arrays, shared path strings. */
export class StatList {
  readonly paths: string[] = [];
  /** NaN: a source folder that did not exist (or was not a folder), and must still not. */
  readonly mtimes: number[] = [];
  readonly ctimes: number[] = [];
  readonly inos: number[] = [];
  /** -1 for folders (their size says nothing). */
  readonly sizes: number[] = [];

  get length(): number {
    return this.paths.length;
  }

  /** `stamp` undefined: a source folder that did not exist (or was not a folder), and must still not. */
  add(path: string, stamp: Stamp | undefined, size = -1): void {
    this.paths.push(path);
    this.mtimes.push(stamp ? stamp.mtimeMs : Number.NaN);
    this.ctimes.push(stamp ? stamp.ctimeMs : Number.NaN);
    this.inos.push(stamp ? stamp.ino : Number.NaN);
    this.sizes.push(size);
  }

  /**
   * Whether entry `i` is as recorded. A stat that fails (gone, unreadable) is
   * a change: the walk that follows says what it is.
   */
  same(fs: StatFs, i: number): boolean {
    const recorded = this.mtimes[i] as number;
    let stat: Stamp & { size: number; isDirectory(): boolean };
    try {
      stat = fs.statSync(this.paths[i] as string);
    } catch {
      return Number.isNaN(recorded);
    }
    if (Number.isNaN(recorded)) return !stat.isDirectory();
    const size = this.sizes[i] as number;
    // sameStamp, field by field: a check compares every entry, and makes no object for each.
    const same = stat.mtimeMs === recorded && stat.ctimeMs === this.ctimes[i] && stat.ino === this.inos[i];
    return same && (size < 0 || stat.size === size);
  }
}

/**
 * Entries statted between pauses of an asynchronous check (a pause lets requests in): about 0.6 ms of
 * stats. A call that takes two turns of the event loop waits for two chunks.
 */
export const VERIFY_CHUNK = 250;

/** What a link holds ("" when it cannot be read). */
function readlinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

/** A link's real path, or "" when it leads nowhere (dangling, a loop); as the walk records it. */
export function realOrEmpty(fs: StatFs, path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return "";
  }
}
