import * as nodeFs from "node:fs";
import { TermList } from "../util/term-list.ts";
import { noteUnreadable } from "./walk-notes.ts";
import type { WalkFs, WalkResult } from "./walk-types.ts";

export const SKILL_FILE = "SKILL.md";

/** "special": a FIFO, socket or device, never read (opening one can block the scan on another process). */
export type EntryKind = "dir" | "file" | "link" | "special";
/** One entry of a folder's listing. */
export interface FolderEntry {
  name: string;
  kind: EntryKind;
}
const KINDS: readonly EntryKind[] = ["dir", "file", "link", "special"];

/**
 * A folder's entries, sorted by name, packed: the names as one string and the kinds as bytes (issue 16,
 * idle: a source root holding 10,000 skill folders kept 10,000 objects and 10,000 names otherwise, each
 * visited by every full collection). Iterating gives each entry as a new object.
 */
export class FolderEntries implements Iterable<FolderEntry> {
  private constructor(
    private readonly names: string,
    private readonly kinds: Uint8Array,
  ) {}

  static of(entries: readonly FolderEntry[]): FolderEntries {
    // "/" is the one character no file name holds.
    return new FolderEntries(
      entries.map((e) => e.name).join("/"),
      Uint8Array.from(entries, (e) => KINDS.indexOf(e.kind)),
    );
  }

  *[Symbol.iterator](): IterableIterator<FolderEntry> {
    if (this.kinds.length === 0) return;
    for (const [i, name] of this.names.split("/").entries())
      yield { name, kind: KINDS[this.kinds[i] as number] as EntryKind };
  }
}

export interface DirListing {
  mtimeMs: number;
  entries: FolderEntries;
  /** Holds a SKILL.md file. */
  hasSkill: boolean;
  /** Holds SKILL.md and no folders or links: see WalkLimits.quick. */
  leafSkill: boolean;
}

/** The entries of most skill folders (SKILL.md alone), kept once for all of them. */
const SKILL_ONLY = FolderEntries.of([{ name: SKILL_FILE, kind: "file" }]);

const skillOnlyListing = (mtimeMs: number): DirListing => ({
  mtimeMs,
  entries: SKILL_ONLY,
  hasSkill: true,
  leafSkill: true,
});

/** Code-unit order, as `<` orders strings (and TermList compares). */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `dir`'s entries with their kinds, sorted by name (code units); throws as readdirSync does. */
export function readEntries(dir: string, fs: Pick<WalkFs, "readdirSync"> = nodeFs as unknown as WalkFs): FolderEntry[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .map((e) => ({
      name: e.name,
      kind: (e.isSymbolicLink() ? "link" : e.isDirectory() ? "dir" : e.isFile() ? "file" : "special") as EntryKind,
    }))
    .sort((a, b) => byCodeUnits(a.name, b.name));
}

interface Listings {
  get(dir: string): DirListing | undefined;
}

/**
 * The listings of one pass as it goes; a folder holding SKILL.md alone (most skill folders) is kept as
 * its mtime only, since its listing follows from that.
 */
class ListingMap implements Listings {
  private readonly folders = new Map<string, DirListing>();
  private readonly skillOnly = new Map<string, number>();

  get(dir: string): DirListing | undefined {
    const mtimeMs = this.skillOnly.get(dir);
    return mtimeMs === undefined ? this.folders.get(dir) : skillOnlyListing(mtimeMs);
  }

  set(dir: string, listing: DirListing): void {
    if (listing.entries === SKILL_ONLY) {
      this.folders.delete(dir);
      this.skillOnly.set(dir, listing.mtimeMs);
    } else {
      this.skillOnly.delete(dir);
      this.folders.set(dir, listing);
    }
  }

  /** These listings at rest (KeptListings). Plain loops: this runs once a pass, before any JIT warms it up. */
  kept(): KeptListings {
    const dirs = new Array<string>(this.skillOnly.size);
    const mtimes = new Float64Array(dirs.length);
    let sorted = true;
    let i = 0;
    for (const [dir, mtimeMs] of this.skillOnly) {
      if (i > 0 && (dirs[i - 1] as string) > dir) sorted = false;
      dirs[i] = dir;
      mtimes[i++] = mtimeMs;
    }
    // A walk lists a flat source's folders in order already: sort only when it did not.
    if (!sorted) {
      dirs.sort(byCodeUnits);
      for (let k = 0; k < dirs.length; k++) mtimes[k] = this.skillOnly.get(dirs[k] as string) as number;
    }
    return new KeptListings(this.folders, TermList.of(dirs), mtimes);
  }
}

/**
 * The listings of the last pass, kept until the next one ends (issue 16, idle): a full collection visits
 * every string and object, and a key per SKILL.md-only folder was 10,000 strings at 10,000 skills. Those
 * folders' paths are one sorted string here (TermList), their mtimes a typed array, found by binary
 * search; other folders (source roots, skill folders holding more than SKILL.md: few) stay in a map.
 */
class KeptListings implements Listings {
  constructor(
    private readonly folders: ReadonlyMap<string, DirListing>,
    private readonly skillOnly: TermList,
    private readonly mtimes: Float64Array,
  ) {}

  static readonly EMPTY = new KeptListings(new Map(), TermList.EMPTY, new Float64Array(0));

  /** Where the next look-up is tried first. */
  private next = 0;

  get(dir: string): DirListing | undefined {
    const listing = this.folders.get(dir);
    if (listing) return listing;
    // A walk looks folders up in about the order they are kept here: try the one after the last found
    // before a binary search (which cost 1 µs a look-up at 10,000 folders, a tenth of a quick pass).
    let i = this.next;
    if (i >= this.skillOnly.length || this.skillOnly.compare(i, dir) !== 0) {
      i = this.skillOnly.lowerBound(dir);
      if (i === this.skillOnly.length || this.skillOnly.compare(i, dir) !== 0) return undefined;
    }
    this.next = i + 1;
    return skillOnlyListing(this.mtimes[i] as number);
  }
}

/**
 * Each folder's listing keyed by its mtime (Walker), so a rescan of an unchanged tree costs one stat per
 * folder instead of a readdir: an added or removed entry changes its folder's mtime.
 */
export class FolderListings {
  private listings = KeptListings.EMPTY;
  private nextListings = new ListingMap();

  constructor(private readonly fs: WalkFs) {}

  /** Forget listings of folders not listed since the last call, and pack the rest (call once per pass). */
  endRescan(): void {
    this.listings = this.nextListings.kept();
    this.nextListings = new ListingMap();
  }

  /** `dir`'s entries as the last pass (or this one) listed them, if its mtime is still `mtimeMs`. */
  entriesAt(dir: string, mtimeMs: number): FolderEntries | undefined {
    const known = this.nextListings.get(dir) ?? this.listings.get(dir);
    return known && known.mtimeMs === mtimeMs ? known.entries : undefined;
  }

  /**
   * `dir`'s entries, sorted by name: the kept listing while its mtime holds (`quick`: a leaf skill
   * folder's without a stat), else read again. Undefined, with a note in `result`, when unreadable.
   */
  list(dir: string, result: WalkResult, quick: boolean): DirListing | undefined {
    // This pass's listing first: a folder listed twice in one pass (nested sources) keeps its newest.
    const known = this.nextListings.get(dir) ?? this.listings.get(dir);
    if (quick && known?.leafSkill) {
      this.nextListings.set(dir, known);
      return known;
    }
    let mtimeMs: number;
    try {
      mtimeMs = this.fs.statSync(dir).mtimeMs;
    } catch (error) {
      noteUnreadable(result, dir, error);
      return undefined;
    }
    if (known && known.mtimeMs === mtimeMs) {
      this.nextListings.set(dir, known);
      return known;
    }
    try {
      const entries = readEntries(dir, this.fs);
      const hasSkill = entries.some((e) => e.name === SKILL_FILE && e.kind === "file");
      const leafSkill = hasSkill && !entries.some((e) => e.kind !== "file");
      const listing =
        leafSkill && entries.length === 1
          ? skillOnlyListing(mtimeMs)
          : { mtimeMs, entries: FolderEntries.of(entries), hasSkill, leafSkill };
      this.nextListings.set(dir, listing);
      result.reread++;
      return listing;
    } catch (error) {
      noteUnreadable(result, dir, error);
      return undefined;
    }
  }
}
