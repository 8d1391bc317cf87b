import * as nodeFs from "node:fs";
import { type Stamp, sameStamp } from "./stamp.ts";
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

export interface DirListing extends Stamp {
  /** The file system's device: another than the source folder's is a file system mounted inside it. */
  dev: number;
  /** Sorted by name (code units). */
  entries: readonly FolderEntry[];
  /** Holds a SKILL.md file. */
  hasSkill: boolean;
}

/** The entries of most skill folders (SKILL.md alone), one list shared by all of them. */
const SKILL_ONLY: readonly FolderEntry[] = Object.freeze([Object.freeze({ name: SKILL_FILE, kind: "file" as const })]);

/** Code-unit order, as `<` orders strings. */
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

/**
 * Each folder's listing keyed by its stamp (Walker), so a rescan of an unchanged tree costs one stat per
 * folder instead of a readdir: an added or removed entry changes its folder's mtime, another folder in
 * its place has another stamp. Kept for the folders the last pass listed.
 */
export class FolderListings {
  private listings = new Map<string, DirListing>();
  private nextListings = new Map<string, DirListing>();

  constructor(private readonly fs: WalkFs) {}

  /** Forget listings of folders not listed since the last call (call once per pass). */
  endRescan(): void {
    this.listings = this.nextListings;
    this.nextListings = new Map();
  }

  /** `dir`'s entries as the last pass (or this one) listed them, if its stamp is still `stamp`. */
  entriesAt(dir: string, stamp: Stamp): readonly FolderEntry[] | undefined {
    const known = this.nextListings.get(dir) ?? this.listings.get(dir);
    return known && sameStamp(known, stamp) ? known.entries : undefined;
  }

  /**
   * `dir`'s entries, sorted by name: the kept listing while its stamp holds, else read again. Undefined,
   * with a note in `result`, when unreadable.
   */
  list(dir: string, result: WalkResult): DirListing | undefined {
    // This pass's listing first: a folder listed twice in one pass (nested sources) keeps its newest.
    const known = this.nextListings.get(dir) ?? this.listings.get(dir);
    let stat: Stamp & { dev: number };
    try {
      stat = this.fs.statSync(dir);
    } catch (error) {
      noteUnreadable(result, dir, error);
      return undefined;
    }
    if (known && sameStamp(known, stat)) {
      this.nextListings.set(dir, known);
      return known;
    }
    try {
      const read = readEntries(dir, this.fs);
      const hasSkill = read.some((e) => e.name === SKILL_FILE && e.kind === "file");
      const entries = hasSkill && read.length === 1 ? SKILL_ONLY : read;
      const { mtimeMs, ctimeMs, ino, dev } = stat;
      const listing = { mtimeMs, ctimeMs, ino, dev, entries, hasSkill };
      this.nextListings.set(dir, listing);
      result.reread++;
      return listing;
    } catch (error) {
      noteUnreadable(result, dir, error);
      return undefined;
    }
  }
}
