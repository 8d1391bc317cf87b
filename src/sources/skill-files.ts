import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import { isInside } from "../util/safe-path.ts";
import { statOf } from "../util/stat.ts";
import { isVersionControl } from "./version-control.ts";
import { SKILL_FILE, SKIPPED_DIRS } from "./walk.ts";
import { type FolderEntry, readEntries } from "./walk-listings.ts";

export interface SkillFileEntry {
  /** Relative to the skill folder, "/" separators. */
  path: string;
  size: number;
}

export interface SkillFileList {
  /** Shallow files first (breadth-first, names in code-unit order), files under tooling folders last. */
  files: SkillFileEntry[];
  /** Every folder whose files are listed, relative, "/" separators. */
  folders: string[];
  /** True when the listing stopped at `max`: the skill has more files and folders than were listed. */
  truncated: boolean;
  /** Links met (relative paths), whatever they lead to; a link to a file inside the skill is in `files` too. */
  links: string[];
  /** FIFOs, sockets and devices met: never a file of the skill (reading one could block). */
  specials: string[];
  /** Folders that could not be listed (permission, a path past PATH_MAX, gone during the walk). */
  unreadable: string[];
  /** What the folder holds besides the skill's files: version-control metadata and nested skills' folders. */
  skipped: string[];
  /** Links (in `links`) to a folder inside the skill: what they lead to is listed under its own path. */
  folderLinks: string[];
  /** Entries whose name is not UTF-8, or reads as one that is not: no name SkillHub has opens them. */
  unnamed: string[];
}

/** Most files and folders a skill's listing holds unless told otherwise. */
export const MAX_SKILL_ENTRIES = 500;

export interface ListOptions {
  /** Most files and folders listed (default MAX_SKILL_ENTRIES, 500). */
  max?: number;
  /** The folder's real path when the caller has just resolved it (a link's target must lie inside it). */
  realDir?: string;
  /**
   * A folder's entries as the last scan listed it, while its stamp holds (Walker.knownEntries): one
   * stat instead of a readdir.
   */
  knownEntries?: (folder: string) => Iterable<FolderEntry> | undefined;
  /**
   * Whether a SKILL.md at the folder's top is the skill's own file, recorded apart (default true). A tree
   * node's resource folder has none (the node's .md lies beside it): a SKILL.md there is listed like any file.
   */
  ownSkillFile?: boolean;
}

/**
 * The files of one skill: the one answer to "which files does this skill
 * have", for the lock, `verify`, frozen serving, load_skill, the web page and
 * the skills extension alike. Every regular file under the skill's folder, in
 * every folder and at any depth, except:
 * - the skill's own SKILL.md (the lock records it on its own);
 * - the folders of nested skills (a subfolder with its own SKILL.md is a skill
 *   of its own, served only as itself);
 * - FIFOs, sockets and devices, and links that do not lead to a file inside
 *   the skill's real folder (listed in `specials` and `links`).
 *
 * - version-control metadata (`.git`, a folder or a file): never part of a
 *   skill, never served (its config can hold a remote's credentials).
 *
 * Tooling folders (`node_modules`, `.venv`, `__pycache__`) are files of the
 * skill like any other, since a server could serve them and a script could
 * load them; they are listed after the rest so that a capped listing shows a
 * skill's own files first.
 *
 * Security: `max` bounds the work, not only the answer: folders count against
 * it too, so a skill of 30,000 empty folders costs `max` readdirs, and a
 * listing that stops is marked `truncated` (the lock then refuses the skill
 * rather than vouch for part of it). Never throws.
 */
export function listSkillFiles(dir: string, options: ListOptions = {}): SkillFileList {
  const max = options.max ?? MAX_SKILL_ENTRIES;
  const list: SkillFileList = {
    files: [],
    folders: [],
    truncated: false,
    links: [],
    specials: [],
    unreadable: [],
    skipped: [],
    folderLinks: [],
    unnamed: [],
  };
  let real: string;
  try {
    real = options.realDir ?? realpathSync(dir);
  } catch {
    return list;
  }
  let counted = 0;
  // Breadth-first; tooling folders (and everything under them) wait in their own queue.
  const queues: [string[], string[]] = [[""], []];
  for (const [q, queue] of queues.entries()) {
    for (let at = 0; at < queue.length; at++) {
      const rel = queue[at] as string;
      const folder = rel === "" ? dir : join(dir, rel);
      const known = options.knownEntries?.(folder);
      const entries = known ?? readable(folder);
      if (!entries) {
        list.unreadable.push(rel);
        continue;
      }
      let undecodable: boolean | undefined;
      const unnamed = (name: string): boolean => {
        if (!name.includes("\uFFFD")) return false;
        undecodable ??= holdsUndecodable(folder);
        return undecodable;
      };
      for (const entry of entries) {
        const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
        if (isVersionControl(entry.name)) {
          list.skipped.push(path);
          continue;
        }
        // Security: a name that is not UTF-8 is listed with U+FFFD in place of its bytes, so it opens another
        // file or none (`\xff` and `\xfe` both read as the file named U+FFFD): its bytes would never be hashed.
        if (unnamed(entry.name)) {
          list.unnamed.push(path);
          continue;
        }
        const full = join(folder, entry.name);
        // Security: a kept listing can be older than a subfolder swapped for a link (its parent's mtime
        // put back): a folder is entered only if it is one now, as a fresh listing would have it.
        if (entry.kind === "dir" && (!known || isRealFolder(full))) {
          // Under a tooling folder a SKILL.md is a package's file: the catalog looks for no skill there.
          const tooling = q === 1 || SKIPPED_DIRS.has(entry.name);
          if (!tooling && isSkillFolder(full)) {
            list.skipped.push(path);
            continue;
          }
          if (++counted > max) return { ...list, truncated: true };
          list.folders.push(path);
          queues[tooling ? 1 : 0].push(path);
          continue;
        }
        if (rel === "" && entry.name === SKILL_FILE && options.ownSkillFile !== false) continue;
        if (entry.kind === "special") {
          list.specials.push(path);
          continue;
        }
        if (entry.kind === "link") list.links.push(path);
        const size = fileSize(full, entry.kind === "link", real, list, path);
        if (size === undefined) continue;
        if (++counted > max) return { ...list, truncated: true };
        list.files.push({ path, size });
      }
    }
  }
  return list;
}

/**
 * Why `rel` (a normalised "/" path under the skill folder `dir`) is not a file of that skill although
 * it lies in its folder, or undefined: inside a nested skill (whose files are its own, served only as
 * that skill), or version-control metadata.
 */
export function notOfSkill(dir: string, rel: string): string | undefined {
  if (rel.split("/").some(isVersionControl)) return `'${rel}' is version-control metadata, not a file of the skill.`;
  const nested = nestedSkillOf(dir, rel);
  if (nested !== undefined)
    return `'${rel}' belongs to the nested skill in '${nested}/'. Load that skill by its own name and read its files from it.`;
  return undefined;
}

/**
 * Why the file at the real path `real`, inside the skill's real folder `realRoot`, is not the skill's:
 * what a link inside the skill leads to is judged by where it is, not by the link's name.
 */
export function notOfSkillReal(realRoot: string, real: string): string | undefined {
  if (real === realRoot) return undefined;
  return notOfSkill(
    realRoot,
    real
      .slice(realRoot.length + 1)
      .split(sep)
      .join("/"),
  );
}

/**
 * The folder of the nested skill that `rel` (a normalised "/" path under the
 * skill folder `dir`) lies in, or undefined: a nested skill's files are its
 * own, never its parent's. Under a tooling folder there is none (listSkillFiles).
 */
export function nestedSkillOf(dir: string, rel: string): string | undefined {
  const parts = rel.split("/");
  let folder = "";
  for (let i = 0; i < parts.length - 1; i++) {
    const name = parts[i] as string;
    if (SKIPPED_DIRS.has(name)) return undefined;
    folder = folder === "" ? name : `${folder}/${name}`;
    const full = join(dir, folder);
    if (isSkillFolder(full)) return folder;
    // No folder there: nothing deeper is either (a path of many made-up folders costs one stat).
    if (!statOf(full)?.isDirectory()) return undefined;
  }
  return undefined;
}

/** A folder's entries sorted by name (code units); undefined when unreadable. */
function readable(folder: string): FolderEntry[] | undefined {
  try {
    return readEntries(folder);
  } catch {
    return undefined;
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Whether `folder` holds an entry whose name is not UTF-8 (read as bytes). Security: true when it cannot be
 * listed so, since which name is which cannot then be told.
 */
function holdsUndecodable(folder: string): boolean {
  try {
    return readdirSync(folder, { encoding: "buffer" }).some((name) => {
      try {
        UTF8.decode(name);
        return false;
      } catch {
        return true;
      }
    });
  } catch {
    return true;
  }
}

function isRealFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function isSkillFolder(path: string): boolean {
  return statOf(join(path, SKILL_FILE))?.isFile() ?? false;
}

/** Size of a regular file; a link counts only when it resolves to a regular file inside the skill. */
function fileSize(
  path: string,
  isLink: boolean,
  realRoot: string,
  list: SkillFileList,
  rel: string,
): number | undefined {
  try {
    if (!isLink) {
      const stat = lstatSync(path);
      return stat.isFile() ? stat.size : undefined;
    }
    const target = realpathSync(path);
    if (!isInside(realRoot, target) || notOfSkillReal(realRoot, target) !== undefined) return undefined;
    const stat = statSync(target);
    if (stat.isFile()) return stat.size;
    if (stat.isDirectory()) list.folderLinks.push(rel);
    else list.specials.push(rel);
    return undefined;
  } catch {
    return undefined;
  }
}
