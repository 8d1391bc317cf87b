import { lstatSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { SKILL_FILE, SKIPPED_DIRS } from "./walk.ts";
import { type FolderEntry, readEntries } from "./walk-listings.ts";

export interface SkillFileEntry {
  /** Relative to the skill folder, "/" separators. */
  path: string;
  size: number;
}

export interface SkillFileList {
  files: SkillFileEntry[];
  /** True when the listing stopped at `max`. */
  truncated: boolean;
}

/**
 * The files of one skill, for load_skill: every regular file under its
 * folder except SKILL.md, skipping nested skills (they are skills of their
 * own), tooling folders, and links that lead outside the skill.
 *
 * Security: `max` bounds the work, not only the answer: folders count against
 * it too, so a skill of 30,000 empty folders costs `max` readdirs per call,
 * not 30,000.
 */
export function listSkillFiles(dir: string, options: ListOptions = {}): SkillFileList {
  const max = options.max ?? 500;
  const files: SkillFileEntry[] = [];
  let folders = 0;
  let real: string;
  try {
    real = options.realDir ?? realpathSync(dir);
  } catch {
    return { files, truncated: false };
  }
  const visit = (folder: string, depth: number): boolean => {
    const known = options.knownEntries?.(folder);
    const entries = known ?? readable(folder);
    if (!entries) return true;
    for (const entry of entries) {
      const path = join(folder, entry.name);
      // Security: a kept listing can be older than a subfolder swapped for a link (its parent's mtime
      // put back): a folder is entered only if it is one now, as a fresh listing would have it.
      if (entry.kind === "dir" && (!known || isRealFolder(path))) {
        if (SKIPPED_DIRS.has(entry.name) || depth >= MAX_DEPTH) continue;
        if (++folders + files.length > max) return false;
        if (isSkillFolder(path)) continue;
        if (!visit(path, depth + 1)) return false;
        continue;
      }
      if (depth === 0 && entry.name === SKILL_FILE) continue;
      const size = fileSize(path, entry.kind === "link", real);
      if (size === undefined) continue;
      if (files.length + folders >= max) return false;
      files.push({ path: relative(dir, path).split(sep).join("/"), size });
    }
    return true;
  };
  const complete = visit(dir, 0);
  return { files, truncated: !complete };
}

export interface ListOptions {
  /** Most files and folders listed (default 500). */
  max?: number;
  /** The folder's real path when the caller has just resolved it (a link's target must lie inside it). */
  realDir?: string;
  /**
   * A folder's entries as the last scan listed it, while its mtime holds (Walker.knownEntries): one
   * stat instead of a readdir, which took load_skill as long as the rest of its listing (issue 16).
   */
  knownEntries?: (folder: string) => Iterable<FolderEntry> | undefined;
}

/** A folder's entries sorted by name (code units); undefined when unreadable. */
function readable(folder: string): FolderEntry[] | undefined {
  try {
    return readEntries(folder);
  } catch {
    return undefined;
  }
}

function isRealFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Folders deeper than this are not listed. */
const MAX_DEPTH = 8;

function isSkillFolder(path: string): boolean {
  try {
    return statSync(join(path, SKILL_FILE)).isFile();
  } catch {
    return false;
  }
}

/** Size of a regular file; a link counts only when it resolves to a file inside the skill. */
function fileSize(path: string, isLink: boolean, realRoot: string): number | undefined {
  try {
    if (!isLink) {
      const stat = lstatSync(path);
      return stat.isFile() ? stat.size : undefined;
    }
    const target = realpathSync(path);
    if (target !== realRoot && !target.startsWith(realRoot + sep)) return undefined;
    const stat = statSync(target);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}
