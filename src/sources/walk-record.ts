/** The calls a check makes (WalkFs's, without importing walk-types, which imports this file). */
type StatFs = {
  statSync(path: string): { mtimeMs: number; size: number; isDirectory(): boolean };
  realpathSync(path: string): string;
};

/**
 * What one walk looked at, so that a later check can tell by stat alone that a new walk would give the
 * same result (an unchanged rescan costs a stat per entry, no readdir and no parse). A walk's result
 * depends only on the listings of the folders it read (an added, removed or renamed entry changes its
 * folder's mtime), on the size and mtime of the files it statted, and on where its links lead.
 *
 * Entries come in three groups:
 * - `structure`: folders outside skills (source roots, collections), where new skills appear: what the
 *   file watcher watches (refresh/folder-watchers.ts);
 * - `skillDirs`: skill folders and the folders inside them;
 * - `files`: every SKILL.md and loose `.md` file (tree nodes) the walk statted.
 */
export class WalkRecord {
  readonly structure = new StatList();
  readonly skillDirs = new StatList();
  readonly files = new StatList();
  /** Links the walk followed, with the real path each led to (a link retargeted elsewhere changes nothing else). */
  readonly links: [path: string, real: string][] = [];
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

  /** Entries a check stats. */
  get size(): number {
    return this.structure.length + this.skillDirs.length + this.files.length + this.links.length;
  }
}

/** Paths with the mtime (and, for files, size) seen; parallel arrays, shared path strings. */
export class StatList {
  readonly paths: string[] = [];
  readonly mtimes: number[] = [];
  /** -1 for folders (their size says nothing). */
  readonly sizes: number[] = [];

  get length(): number {
    return this.paths.length;
  }

  /** `mtimeMs` NaN: a source folder that did not exist (or was not a folder), and must still not. */
  add(path: string, mtimeMs: number, size = -1): void {
    this.paths.push(path);
    this.mtimes.push(mtimeMs);
    this.sizes.push(size);
  }

  /**
   * Whether entry `i` is as recorded. A stat that fails (gone, unreadable) is
   * a change: the walk that follows says what it is.
   */
  same(fs: StatFs, i: number): boolean {
    const recorded = this.mtimes[i] as number;
    let stat: { mtimeMs: number; size: number; isDirectory(): boolean };
    try {
      stat = fs.statSync(this.paths[i] as string);
    } catch {
      return Number.isNaN(recorded);
    }
    if (Number.isNaN(recorded)) return !stat.isDirectory();
    const size = this.sizes[i] as number;
    return stat.mtimeMs === recorded && (size < 0 || stat.size === size);
  }
}

/**
 * Entries statted between pauses of an asynchronous check (a pause lets requests in): about 0.6 ms of
 * stats. A call that takes two turns of the event loop waits for two chunks.
 */
export const VERIFY_CHUNK = 250;

/** A link's real path, or "" when it leads nowhere (dangling, a loop); as the walk records it. */
export function realOrEmpty(fs: StatFs, path: string): string {
  try {
    return fs.realpathSync(path);
  } catch {
    return "";
  }
}
