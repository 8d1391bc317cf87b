/** The calls a check makes (WalkFs's, without importing walk-types, which imports this file). */
type StatFs = {
  statSync(path: string): { mtimeMs: number; size: number; isDirectory(): boolean };
  realpathSync(path: string): string;
};

/**
 * What one walk looked at, so that a later pass can tell by stat alone that a
 * new walk would give the same result (issue 16: an unchanged rescan nearly
 * free). A walk's result depends only on the listings of the folders it read
 * (an added, removed or renamed entry changes its folder's mtime), on the
 * size and mtime of the files it statted, and on where its links lead.
 *
 * Entries come in three groups, so that a pass can check some every time and
 * spread the others over several passes (Walker.verify):
 * - `structure`: folders outside skills (source roots, collections), where new
 *   skills appear;
 * - `skillDirs`: skill folders and the folders inside them;
 * - `files`: every SKILL.md and loose `.md` file (tree nodes) the walk statted.
 */
export class WalkRecord {
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

  constructor(readonly structure = new StatList()) {}

  /** This record without what the watch worker now checks (pack): its folders outside skills only, never verified. */
  structureOnly(): WalkRecord {
    const record = new WalkRecord(this.structure);
    record.verifiable = false;
    return record;
  }

  /**
   * Whether a new walk would give the same result as the one that made this
   * record, by stat alone: false at the first difference. Pauses every
   * VERIFY_CHUNK entries, like Walker.steps().
   */
  *verify(fs: StatFs, plan: VerifyPlan): Generator<void, boolean, void> {
    for (const [path, real] of this.links) if (realOrEmpty(fs, path) !== real) return false;
    let n = 0;
    const groups = [
      [this.structure, "all"],
      [this.skillDirs, plan.skillDirs],
      [this.files, plan.files],
    ] as const;
    for (const [list, how] of groups) {
      const [first, stride] = sliceOf(how, plan);
      for (let i = first; i < list.length; i += stride) {
        if (!list.same(fs, i)) return false;
        if (++n % VERIFY_CHUNK === 0) yield;
      }
    }
    return true;
  }

  /** Entries a full check stats. */
  get size(): number {
    return this.structure.length + this.skillDirs.length + this.files.length + this.links.length;
  }

  /**
   * This record in a compact form to post to the watch worker, which runs the watched check there
   * (refresh/watcher.ts): a list's paths after the walk's root as one string, its numbers as typed arrays
   * (0.6 MB at 10,000 skills, where 20,000 path strings would take 2 MB).
   */
  pack(): PackedRecord {
    const lists = [this.structure, this.skillDirs, this.files];
    // The walk's root, which every path it recorded starts with, is kept once.
    const root = this.structure.paths[0] ?? this.skillDirs.paths[0] ?? "";
    const prefix = lists.every((l) => l.paths.every((path) => path.startsWith(root))) ? root : "";
    const list = (l: StatList): PackedList => {
      const paths = l.paths.map((path) => path.slice(prefix.length));
      const ends = new Uint32Array(paths.length);
      let at = -1;
      for (const [i, path] of paths.entries()) ends[i] = at += path.length + 1;
      return { paths: paths.join("\0"), ends, mtimes: Float64Array.from(l.mtimes), sizes: Float64Array.from(l.sizes) };
    };
    return {
      prefix,
      lists: lists.map(list) as PackedRecord["lists"],
      links: this.links.flat().join("\0"),
    };
  }
}

/**
 * WalkRecord.verify over a packed record, all at once: only the paths `plan` stats are made into strings,
 * and only those entries are visited (the watch worker's check: 5,000 of 20,000 at 10,000 skills).
 */
export function verifyPacked(fs: StatFs, packed: PackedRecord, plan: VerifyPlan): boolean {
  const links = packed.links === "" ? [] : packed.links.split("\0");
  for (let i = 0; i + 1 < links.length; i += 2) if (realOrEmpty(fs, links[i] as string) !== links[i + 1]) return false;
  const hows = ["all", plan.skillDirs, plan.files] as const;
  for (const [n, list] of packed.lists.entries()) {
    const [first, stride] = sliceOf(hows[n] as "all" | "slice", plan);
    for (let i = first; i < list.mtimes.length; i += stride) {
      const path = packed.prefix + list.paths.slice(i === 0 ? 0 : (list.ends[i - 1] as number) + 1, list.ends[i]);
      if (!sameStat(fs, path, list.mtimes[i] as number, list.sizes[i] as number)) return false;
    }
  }
  return true;
}

/** The first entry and the stride of a group checked `how`, by `plan`. */
function sliceOf(how: "all" | "slice", plan: VerifyPlan): [first: number, stride: number] {
  return how === "all" ? [0, 1] : [plan.phase, Math.max(1, plan.slices)];
}

/** A StatList packed: paths joined by NUL (which no path holds), and where each ends in that string. */
export interface PackedList {
  paths: string;
  ends: Uint32Array;
  mtimes: Float64Array;
  sizes: Float64Array;
}

/** WalkRecord.pack(): structure, skill folders, files, their paths after `prefix`; links as path, real, path, real… */
export interface PackedRecord {
  prefix: string;
  lists: [PackedList, PackedList, PackedList];
  links: string;
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
    return sameStat(fs, this.paths[i] as string, this.mtimes[i] as number, this.sizes[i] as number);
  }
}

/** Whether `path` is as recorded (StatList.same). */
function sameStat(fs: StatFs, path: string, recorded: number, size: number): boolean {
  let stat: { mtimeMs: number; size: number; isDirectory(): boolean };
  try {
    stat = fs.statSync(path);
  } catch {
    return Number.isNaN(recorded);
  }
  if (Number.isNaN(recorded)) return !stat.isDirectory();
  return stat.mtimeMs === recorded && (size < 0 || stat.size === size);
}

/**
 * Which entries one verification pass stats. Groups set to "all" are statted
 * in full; "slice" groups are split into `slices` interleaved parts (entries
 * i ≡ `phase` mod `slices`) and only part `phase` is statted, so `slices`
 * consecutive passes with phases 0…slices−1 stat every entry exactly once.
 */
export interface VerifyPlan {
  skillDirs: "all" | "slice";
  files: "all" | "slice";
  /** Parts the "slice" groups are split into (≥ 1). */
  slices: number;
  /** Which part this pass stats (0 ≤ phase < slices). */
  phase: number;
}

/**
 * Entries statted between pauses of an asynchronous verification (a pause lets requests in): about
 * 0.6 ms of stats (2.3 µs each on the benchmark VM). A call that takes two turns of the event loop
 * waits for two chunks; at 1,000 a call made during the check after the watchers start (every
 * entry, 40,000 at 20,000 skills) took 4.5 ms instead of 0.4.
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
