import { noteUnreadable } from "./walk-notes.ts";
import type { WalkFs, WalkResult } from "./walk-types.ts";

export const SKILL_FILE = "SKILL.md";

/** "special": a FIFO, socket or device, never read (opening one can block the scan on another process). */
export type EntryKind = "dir" | "file" | "link" | "special";

export interface DirListing {
  mtimeMs: number;
  entries: readonly { name: string; kind: EntryKind }[];
  /** Holds a SKILL.md file. */
  hasSkill: boolean;
  /** Holds SKILL.md and no folders or links: see WalkLimits.quick. */
  leafSkill: boolean;
}

/** The listing of most skill folders, kept once for all of them (10,000 arrays and names otherwise). */
const SKILL_ONLY = Object.freeze([Object.freeze({ name: SKILL_FILE, kind: "file" as EntryKind })]);

/**
 * Each folder's listing keyed by its mtime (Walker), so a rescan of an unchanged tree costs one stat per
 * folder instead of a readdir: an added or removed entry changes its folder's mtime.
 */
export class FolderListings {
  private listings = new Map<string, DirListing>();
  private nextListings = new Map<string, DirListing>();

  constructor(private readonly fs: WalkFs) {}

  /** Forget listings of folders not listed since the last call (call once per full rescan). */
  endRescan(): void {
    this.listings = this.nextListings;
    this.nextListings = new Map();
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
      const listing = {
        mtimeMs,
        entries: leafSkill && entries.length === 1 ? SKILL_ONLY : entries,
        hasSkill,
        leafSkill,
      };
      this.nextListings.set(dir, listing);
      result.reread++;
      return listing;
    } catch (error) {
      noteUnreadable(result, dir, error);
      return undefined;
    }
  }
}
