import * as nodeFs from "node:fs";
import { diagnostic } from "../util/diagnostic.ts";
import { errnoCode } from "../util/errors.ts";
import { isInside } from "../util/safe-path.ts";
import { type FileStamp, fileStamp } from "./stamp.ts";
import { inVersionControl } from "./version-control.ts";
import { type FolderEntry, FolderListings, SKILL_FILE } from "./walk-listings.ts";
import {
  type Fence,
  noteLinkOutside,
  noteLinkToVersionControl,
  noteRepositoryCopies,
  noteSpecial,
  noteSystemFolder,
  noteUnreadable,
} from "./walk-notes.ts";
import { childPath, inSystemFolder, toRel } from "./walk-paths.ts";
import { type Covers, realOrEmpty, WalkRecord } from "./walk-record.ts";
import type { WalkFs, WalkLimits, WalkResult } from "./walk-types.ts";

/** Folders never scanned: tooling and dependency trees, not skills. Other hidden folders are (.curated, .system). */
export const SKIPPED_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv"]);
/** The skipped folders that may hold any number of folders. */
const DEPENDENCY_DIRS = new Set(["node_modules", ".venv"]);

export { SKILL_FILE } from "./walk-listings.ts";

export type { FileEntry, FolderBudget, SkillDirEntry, WalkFs, WalkLimits, WalkResult } from "./walk-types.ts";
/**
 * Diagnostics of a limit that stopped a scan: skills past it are not served, so each one is
 * logged as a warning, listed by `doctor` and shown by `list`, never silent.
 */
export const SCAN_LIMIT_CODES: ReadonlySet<string> = new Set(["dir-limit", "depth-limit"]);

/** [path, real path, depth, inside a skill folder, real folder that links must stay in]. */
type Frame = [string, string, number, boolean, string];
/**
 * Walks source folders. Keeps each folder's listing keyed by its stamp (mtime,
 * ctime, inode), so a rescan of an unchanged tree costs one stat per folder and
 * per skill file instead of a readdir: an added or removed entry changes its
 * folder's mtime.
 */
export class Walker {
  private readonly listings: FolderListings;

  constructor(private readonly fs: WalkFs = nodeFs as unknown as WalkFs) {
    this.listings = new FolderListings(fs);
  }

  /**
   * A folder's entries, sorted by name, as the last walk listed it, while its stamp shows no change
   * since; undefined otherwise (not walked, changed, gone). One stat instead of a readdir.
   */
  knownEntries(dir: string): readonly FolderEntry[] | undefined {
    try {
      return this.listings.entriesAt(dir, this.fs.statSync(dir));
    } catch {
      return undefined;
    }
  }

  /** Walk to completion, synchronously. */
  walk(root: string, limits: WalkLimits): WalkResult {
    const steps = this.steps(root, limits);
    let step = steps.next();
    while (!step.done) step = steps.next();
    return step.value;
  }

  /**
   * The walk as a generator that pauses every `chunk` folders, so an async
   * driver can let the event loop answer requests during a long first scan.
   */
  *steps(root: string, limits: WalkLimits, chunk = 256): Generator<void, WalkResult, void> {
    const result: WalkResult = {
      skills: [],
      markdown: [],
      exists: false,
      dirCount: 0,
      reread: 0,
      diagnostics: [],
      record: new WalkRecord(),
    };
    const record = result.record;
    record.root = root;
    let rootReal: string;
    try {
      if (!this.fs.statSync(root).isDirectory()) {
        record.structure.add(root, undefined);
        return result;
      }
      rootReal = this.fs.realpathSync(root);
    } catch (error) {
      // Missing: it must still be missing (a source folder created later is a change).
      record.structure.add(root, undefined);
      noteUnreadable(result, root, error);
      return result;
    }
    if (rootReal !== root) record.links.push([root, rootReal]);
    result.exists = true;
    // What links may not leave: the project for its own folders, the source's own folder for a synced
    // repository or a plugin; nothing for the user's own folders, whose links may lead anywhere.
    const fence: Fence | undefined =
      limits.within !== undefined ? "project" : limits.confineLinks ? "source" : undefined;
    const fenceReal = limits.within === undefined ? rootReal : realOrEmpty(this.fs, limits.within);
    // Security: a source that resolves into /proc, /sys or /dev, or a project's folder that resolves outside
    // the project (`.agents/skills` -> /), is not walked: no watch is set on it and nothing in it is served.
    // Its link is recorded above, so pointing it elsewhere is a change a check sees.
    if (inSystemFolder(rootReal)) {
      noteSystemFolder(result, root, rootReal);
      return result;
    }
    if (fence === "project" && (fenceReal === "" || !isInside(fenceReal, rootReal))) {
      noteLinkOutside(result, root, rootReal, fenceReal || (limits.within as string), fence, "not scanned");
      return result;
    }
    // Security: SkillHub's repository copies are served only as their repositories, once a copy's origin and
    // signatures are checked (refresh/git); walked as a plain folder, a copy's files would skip those checks.
    const copies = limits.copies;
    if (copies !== undefined && isInside(copies, rootReal)) {
      noteRepositoryCopies(result, root, rootReal, copies);
      return result;
    }
    record.rootReal = rootReal;
    const visited = new Set<string>();
    let depthWarned = false;
    let rootDev: number | undefined;
    // Depth-first with an explicit stack: [path, real path, depth, inside a skill folder, confining real folder].
    const stack: Frame[] = [[root, rootReal, 0, false, fenceReal]];
    const shared = limits.shared;
    while (stack.length > 0) {
      const [dir, real, depth, insideSkill, base] = stack.pop() as Frame;
      if (visited.has(real)) {
        if (dir !== root)
          result.diagnostics.push(
            diagnostic(
              "symlink-loop",
              "warning",
              dir,
              `already scanned as ${real} (symlink loop or duplicate link); skipped.`,
            ),
          );
        continue;
      }
      visited.add(real);
      if (result.dirCount >= limits.maxDirs) {
        result.diagnostics.push(
          diagnostic(
            "dir-limit",
            "warning",
            root,
            `stopped after ${limits.maxDirs} folders; skills in the rest of this source are not served. Raise sources.max_dirs (SKILLHUB config) or point the source at a smaller folder.`,
          ),
        );
        break;
      }
      if (shared && shared.left <= 0) {
        result.diagnostics.push(
          diagnostic(
            "dir-limit",
            "warning",
            root,
            `stopped: the project's folders together reached ${shared.max} folders; skills in the rest of this folder are not served. Raise sources.max_dirs (SKILLHUB config) or name fewer or smaller folders in the project's skillhub.yaml.`,
          ),
        );
        break;
      }
      result.dirCount++;
      if (shared) shared.left--;
      if (result.dirCount % chunk === 0) yield;
      const listing = this.listings.list(dir, result);
      if (!listing) continue;
      const hasSkill = listing.hasSkill;
      (insideSkill || hasSkill ? record.skillDirs : record.structure).add(dir, listing);
      rootDev ??= listing.dev;
      if (listing.dev !== rootDev && !record.mounts.some((mount) => isInside(mount, real))) record.mounts.push(real);
      if (hasSkill) {
        const file = childPath(dir, SKILL_FILE);
        const stat = this.statFile(file, result);
        if (stat) result.skills.push({ dir, file, rel: toRel(root, file), ...stat });
      }
      const children: Frame[] = [];
      for (const entry of listing.entries) {
        const path = childPath(dir, entry.name);
        if (entry.kind === "special") {
          noteSpecial(result, path);
          continue;
        }
        if (entry.kind === "file") {
          if (depth === 0 && entry.name === "config.yaml") result.configFile = path;
          // `skill.md`, `Skill.md`: not a skill (the Agent Skills rule, and other clients', is SKILL.md), nor a
          // skill tree's node, but said so: it would otherwise vanish without a word.
          if (!hasSkill && entry.name !== SKILL_FILE && entry.name.toLowerCase() === "skill.md") {
            result.diagnostics.push(
              diagnostic(
                "misnamed-skill-file",
                "error",
                path,
                `is named ${entry.name}; a skill's file must be named SKILL.md, in capitals. Skill not served: rename the file to SKILL.md.`,
              ),
            );
            continue;
          }
          if (!hasSkill && !insideSkill && entry.name.endsWith(".md") && entry.name !== SKILL_FILE) {
            const stat = this.statFile(path, result);
            if (stat) result.markdown.push({ file: path, rel: toRel(root, path), ...stat });
          }
          continue;
        }
        if (SKIPPED_DIRS.has(entry.name)) {
          if (DEPENDENCY_DIRS.has(entry.name)) record.dependencyTrees++;
          continue;
        }
        let childReal = childPath(real, entry.name);
        // Inside a skill, links may not leave that skill's own folder.
        let childBase = hasSkill ? real : base;
        if (entry.kind === "link") {
          // Installers (npx skills) link skill folders in; follow them, but by real path so loops end.
          try {
            // A dangling link that gets a target later changes nothing a folder's mtime shows: record it.
            record.links.push([path, realOrEmpty(this.fs, path)]);
            const target = this.fs.statSync(path);
            if (!target.isDirectory() && !target.isFile()) {
              // Security: a link to /dev/zero, /dev/stdin or a FIFO would make a read block or never end.
              noteSpecial(result, path);
              continue;
            }
            if (!target.isDirectory()) {
              if (!hasSkill && !insideSkill && entry.name.endsWith(".md")) {
                if (fence && !this.linkInside(path, base, fence, result)) continue;
                const stat = this.statFile(path, result);
                if (stat) result.markdown.push({ file: path, rel: toRel(root, path), ...stat });
              }
              continue;
            }
            childReal = this.fs.realpathSync(path);
          } catch (error) {
            if (errnoCode(error) !== "ENOENT") noteUnreadable(result, path, error);
            continue;
          }
          // Security: outside skills, a link of the user's own folders is an installed skill or collection and
          // may live anywhere (npx skills creates such links). Inside a skill, a link is followed only while it
          // stays in that skill's folder, so a link to / in a skill cannot turn the scan loose on the whole disk.
          const inSkill = insideSkill || hasSkill;
          if (fence && !inSkill && !isInside(base, childReal)) {
            // Security: a synced repository, a plugin or a project is someone else's content; a link in it must
            // not reach the operator's files (~/.claude/skills, /): only targets inside its fence are followed.
            noteLinkOutside(result, path, childReal, base, fence);
            continue;
          }
          if (fence && inVersionControl(base, childReal)) {
            noteLinkToVersionControl(result, path, childReal);
            continue;
          }
          if (!inSkill) {
            if (!fence) childBase = childReal;
          } else if (!isInside(childBase, childReal)) {
            result.diagnostics.push(
              diagnostic(
                "symlink-outside",
                "warning",
                path,
                `links to ${childReal}, outside its skill's folder ${childBase}; not followed.`,
              ),
            );
            continue;
          }
          record.linkedFolders.push(childReal);
        }
        // A folder that holds the copies (`--skills-dir ~`) is walked, the copies are not: met by descent, they
        // are SkillHub's own files, skipped like .git; reached by a link, that link is said.
        if (copies !== undefined && isInside(copies, childReal)) {
          if (entry.kind === "link") noteRepositoryCopies(result, path, childReal, copies);
          continue;
        }
        // Security: /proc, /sys and /dev hold processes, kernel objects and devices, never skills: reached
        // from `/` or by a link, their walk would not end (/proc/<pid>/fd, /proc/<pid>/root).
        if (inSystemFolder(childReal)) {
          noteSystemFolder(result, path, childReal);
          continue;
        }
        if (depth + 1 > limits.maxDepth) {
          if (!depthWarned) {
            result.diagnostics.push(
              diagnostic(
                "depth-limit",
                "warning",
                path,
                `deeper than ${limits.maxDepth} levels below ${root}; not scanned. Raise sources.max_depth to serve skills there.`,
              ),
            );
            depthWarned = true;
            record.depthLimited = true;
          }
          continue;
        }
        children.push([path, childReal, depth + 1, insideSkill || hasSkill, childBase]);
      }
      // Reverse so that popping visits children in name order.
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Frame);
    }
    return result;
  }

  /** Forget listings of folders not seen in the walks since the last call (call once per pass). */
  endRescan(): void {
    this.listings.endRescan();
  }

  /**
   * Whether a file link's target stays inside `base` (confined sources and the project's folders), out of
   * version-control metadata; a diagnostic otherwise.
   */
  private linkInside(path: string, base: string, fence: Fence, result: WalkResult): boolean {
    let real: string;
    try {
      real = this.fs.realpathSync(path);
    } catch {
      return false;
    }
    if (!isInside(base, real)) noteLinkOutside(result, path, real, base, fence, "not read");
    else if (inVersionControl(base, real)) noteLinkToVersionControl(result, path, real);
    else return true;
    return false;
  }

  /**
   * Whether a new walk would give the same result as the one that made
   * `record`, by stat alone (WalkRecord.verify).
   */
  verify(record: WalkRecord): Generator<void, boolean, void> {
    return record.verify(this.fs);
  }

  /** `verify` of what no watch covers (WalkRecord.verifyUnwatched). */
  verifyUnwatched(record: WalkRecord, covers: Covers): Generator<void, boolean, void> {
    return record.verifyUnwatched(this.fs, covers);
  }

  private statFile(file: string, result: WalkResult): FileStamp | undefined {
    try {
      const stat = this.fs.statSync(file);
      result.record.files.add(file, stat, stat.size);
      if (stat.nlink > 1) result.record.hardLinked.add(file);
      return fileStamp(stat);
    } catch (error) {
      if (errnoCode(error) !== "ENOENT") noteUnreadable(result, file, error);
      return undefined;
    }
  }
}
