import * as nodeFs from "node:fs";
import { relative, sep } from "node:path";
import { type Diagnostic, diagnostic } from "../skills/diagnostic.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";

/** Folders never scanned: tooling and dependency trees, not skills. Other hidden folders are (.curated, .system). */
export const SKIPPED_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv"]);
export const SKILL_FILE = "SKILL.md";

/**
 * Diagnostics of a limit that stopped a scan: skills past it are not served, so each one is
 * logged as a warning, listed by `doctor` and shown by `list`, never silent (issue 16).
 */
export const SCAN_LIMIT_CODES: ReadonlySet<string> = new Set(["dir-limit", "depth-limit"]);

export interface FileEntry {
  /** Absolute path. */
  file: string;
  /** Path relative to the source root, with "/" separators. */
  rel: string;
  size: number;
  mtimeMs: number;
}

export interface SkillDirEntry extends FileEntry {
  /** Absolute folder holding SKILL.md. */
  dir: string;
}

export interface WalkResult {
  /** Folders holding a SKILL.md, in walk order (sorted by name at each level). */
  skills: SkillDirEntry[];
  /** `.md` files outside any skill folder: candidate tree nodes (seed 003). */
  markdown: FileEntry[];
  /** `config.yaml` at the source root, if present. */
  configFile?: string;
  /** Whether the root folder exists. */
  exists: boolean;
  dirCount: number;
  /** Folder listings read from disk (not reused) in this walk: 0 means no folder changed. */
  reread: number;
  diagnostics: Diagnostic[];
}

export interface WalkLimits {
  maxDepth: number;
  maxDirs: number;
  /**
   * Trust the remembered listing of leaf skill folders (a SKILL.md and no
   * subfolders) without a stat: the parent's listing still shows added and
   * removed skills and each SKILL.md is still statted, so only a folder newly
   * created inside a skill waits for the next full pass (or the watcher).
   */
  quick?: boolean;
}

/** The few file-system calls the walker makes, injectable for tests. */
export interface WalkFs {
  statSync(path: string): { mtimeMs: number; size: number; isDirectory(): boolean; isFile(): boolean };
  readdirSync(
    path: string,
    options: { withFileTypes: true },
  ): { name: string; isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }[];
  realpathSync(path: string): string;
}

type EntryKind = "dir" | "file" | "link";
/** [path, real path, depth, inside a skill folder, real folder that links must stay in]. */
type Frame = [string, string, number, boolean, string];
interface DirListing {
  mtimeMs: number;
  entries: { name: string; kind: EntryKind }[];
  /** Holds a SKILL.md file. */
  hasSkill: boolean;
  /** Holds SKILL.md and no folders or links: see WalkLimits.quick. */
  leafSkill: boolean;
}

/**
 * Walks source folders. Keeps each folder's listing keyed by its mtime, so a
 * rescan of an unchanged tree costs one stat per folder and per skill file
 * instead of a readdir: an added or removed entry changes its folder's mtime.
 */
export class Walker {
  private listings = new Map<string, DirListing>();
  private nextListings = new Map<string, DirListing>();

  constructor(private readonly fs: WalkFs = nodeFs as unknown as WalkFs) {}

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
    const result: WalkResult = { skills: [], markdown: [], exists: false, dirCount: 0, reread: 0, diagnostics: [] };
    let rootReal: string;
    try {
      if (!this.fs.statSync(root).isDirectory()) return result;
      rootReal = this.fs.realpathSync(root);
    } catch (error) {
      this.noteUnreadable(result, root, error);
      return result;
    }
    result.exists = true;
    const visited = new Set<string>();
    let depthWarned = false;
    // Depth-first with an explicit stack: [path, real path, depth, inside a skill folder, confining real folder].
    const stack: Frame[] = [[root, rootReal, 0, false, rootReal]];
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
      result.dirCount++;
      if (result.dirCount % chunk === 0) yield;
      const listing = this.list(dir, result, limits.quick === true);
      if (!listing) continue;
      const hasSkill = listing.hasSkill;
      if (hasSkill) {
        const file = childPath(dir, SKILL_FILE);
        const stat = this.statFile(file, result);
        if (stat) result.skills.push({ dir, file, rel: toRel(root, file), size: stat.size, mtimeMs: stat.mtimeMs });
      }
      const children: Frame[] = [];
      for (const entry of listing.entries) {
        const path = childPath(dir, entry.name);
        if (entry.kind === "file") {
          if (depth === 0 && entry.name === "config.yaml") result.configFile = path;
          if (!hasSkill && !insideSkill && entry.name.endsWith(".md") && entry.name !== SKILL_FILE) {
            const stat = this.statFile(path, result);
            if (stat)
              result.markdown.push({ file: path, rel: toRel(root, path), size: stat.size, mtimeMs: stat.mtimeMs });
          }
          continue;
        }
        if (SKIPPED_DIRS.has(entry.name)) continue;
        let childReal = `${real}/${entry.name}`;
        // Inside a skill, links may not leave that skill's own folder.
        let childBase = hasSkill ? real : base;
        if (entry.kind === "link") {
          // Installers (npx skills) link skill folders in; follow them, but by real path so loops end.
          try {
            if (!this.fs.statSync(path).isDirectory()) {
              if (!hasSkill && !insideSkill && entry.name.endsWith(".md")) {
                const stat = this.statFile(path, result);
                if (stat)
                  result.markdown.push({ file: path, rel: toRel(root, path), size: stat.size, mtimeMs: stat.mtimeMs });
              }
              continue;
            }
            childReal = this.fs.realpathSync(path);
          } catch (error) {
            if (errnoCode(error) !== "ENOENT") this.noteUnreadable(result, path, error);
            continue;
          }
          // Security: outside skills, a link is an installed skill or collection and may live anywhere
          // (npx skills creates such links). Inside a skill, a link is followed only while it stays in
          // that skill's folder, so a link to / in a skill cannot turn the scan loose on the whole disk.
          if (!insideSkill && !hasSkill) childBase = childReal;
          else if (!isWithin(childBase, childReal)) {
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

  /** Forget listings of folders not seen in the walks since the last call (call once per full rescan). */
  endRescan(): void {
    this.listings = this.nextListings;
    this.nextListings = new Map();
  }

  private list(dir: string, result: WalkResult, quick: boolean): DirListing | undefined {
    const known = this.listings.get(dir) ?? this.nextListings.get(dir);
    if (quick && known?.leafSkill) {
      this.nextListings.set(dir, known);
      return known;
    }
    let mtimeMs: number;
    try {
      mtimeMs = this.fs.statSync(dir).mtimeMs;
    } catch (error) {
      this.noteUnreadable(result, dir, error);
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
          kind: (e.isSymbolicLink() ? "link" : e.isDirectory() ? "dir" : "file") as EntryKind,
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const hasSkill = entries.some((e) => e.name === SKILL_FILE && e.kind === "file");
      const leafSkill = hasSkill && !entries.some((e) => e.kind !== "file");
      const listing = { mtimeMs, entries, hasSkill, leafSkill };
      this.nextListings.set(dir, listing);
      result.reread++;
      return listing;
    } catch (error) {
      this.noteUnreadable(result, dir, error);
      return undefined;
    }
  }

  private statFile(file: string, result: WalkResult): { size: number; mtimeMs: number } | undefined {
    try {
      const stat = this.fs.statSync(file);
      return { size: stat.size, mtimeMs: stat.mtimeMs };
    } catch (error) {
      if (errnoCode(error) !== "ENOENT") this.noteUnreadable(result, file, error);
      return undefined;
    }
  }

  private noteUnreadable(result: WalkResult, path: string, error: unknown): void {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return;
    result.diagnostics.push(
      diagnostic("unreadable", "warning", path, `cannot read (${code ?? errorMessage(error)}); skipped.`),
    );
  }
}

function isWithin(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/** `dir/name` without path.join's normalisation: both parts are already clean (hot path at 10,000 skills). */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

function toRel(root: string, path: string): string {
  // Paths under the root are built by childPath, so a prefix cut is exact.
  const rel = path.startsWith(root + sep) ? path.slice(root.length + 1) : relative(root, path);
  return sep === "/" ? rel : rel.split(sep).join("/");
}
