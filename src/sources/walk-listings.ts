import { noteUnreadable } from "./walk-notes.ts";
import type { WalkFs, WalkResult } from "./walk-types.ts";

export const SKILL_FILE = "SKILL.md";

/** "special": a FIFO, socket or device, never read (opening one can block the scan on another process). */
export type EntryKind = "dir" | "file" | "link" | "special";
const KINDS: readonly EntryKind[] = ["dir", "file", "link", "special"];

/**
 * A folder's entries, sorted by name, packed: the names as one string and the kinds as bytes (issue 16,
 * idle: a source root holding 10,000 skill folders kept 10,000 objects and 10,000 names otherwise, each
 * visited by every full collection). Iterating gives each entry as a new object.
 */
export class FolderEntries implements Iterable<{ name: string; kind: EntryKind }> {
  private constructor(
    private readonly names: string,
    private readonly kinds: Uint8Array,
  ) {}

  static of(entries: readonly { name: string; kind: EntryKind }[]): FolderEntries {
    // "/" is the one character no file name holds.
    return new FolderEntries(
      entries.map((e) => e.name).join("/"),
      Uint8Array.from(entries, (e) => KINDS.indexOf(e.kind)),
    );
  }

  *[Symbol.iterator](): IterableIterator<{ name: string; kind: EntryKind }> {
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

/**
 * Listings by folder; a folder holding SKILL.md alone (most skill folders) is kept as its mtime only,
 * since its listing follows from that: one object per skill folder fewer for the collector.
 */
class ListingMap {
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
}

const skillOnlyListing = (mtimeMs: number): DirListing => ({
  mtimeMs,
  entries: SKILL_ONLY,
  hasSkill: true,
  leafSkill: true,
});

/**
 * Each folder's listing keyed by its mtime (Walker), so a rescan of an unchanged tree costs one stat per
 * folder instead of a readdir: an added or removed entry changes its folder's mtime.
 */
export class FolderListings {
  private listings = new ListingMap();
  private nextListings = new ListingMap();

  constructor(private readonly fs: WalkFs) {}

  /** Forget listings of folders not listed since the last call (call once per full rescan). */
  endRescan(): void {
    this.listings = this.nextListings;
    this.nextListings = new ListingMap();
  }

  /**
   * `dir`'s entries, sorted by name: the kept listing while its mtime holds (`quick`: a leaf skill
   * folder's without a stat), else read again. Undefined, with a note in `result`, when unreadable.
   */
  list(dir: string, result: WalkResult, quick: boolean): DirListing | undefined {
    const known = this.listings.get(dir) ?? this.nextListings.get(dir);
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
      const entries = this.fs
        .readdirSync(dir, { withFileTypes: true })
        .map((e) => ({
          name: e.name,
          kind: (e.isSymbolicLink() ? "link" : e.isDirectory() ? "dir" : e.isFile() ? "file" : "special") as EntryKind,
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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
