import type { Diagnostic } from "../util/diagnostic.ts";
import type { FileStamp } from "./stamp.ts";
import type { WalkRecord } from "./walk-record.ts";

/** What the walker takes and gives (walk.ts). */

export interface FileEntry extends FileStamp {
  /** Absolute path. */
  file: string;
  /** Path relative to the source root, with "/" separators. */
  rel: string;
}

export interface SkillDirEntry extends FileEntry {
  /** Absolute folder holding SKILL.md. */
  dir: string;
}

export interface WalkResult {
  /** Folders holding a SKILL.md, in walk order (sorted by name at each level). */
  skills: SkillDirEntry[];
  /** `.md` files outside any skill folder: candidate tree nodes. */
  markdown: FileEntry[];
  /** `config.yaml` at the source root, if present. */
  configFile?: string;
  /** Whether the root folder exists. */
  exists: boolean;
  dirCount: number;
  /** Folder listings read from disk (not reused) in this walk: 0 means no folder changed. */
  reread: number;
  diagnostics: Diagnostic[];
  /** What the walk looked at, for Walker.verify. */
  record: WalkRecord;
}

export interface WalkLimits {
  maxDepth: number;
  maxDirs: number;
  /**
   * Refuse every symlink whose target leaves the source's real folder (synced
   * repositories). Without it, links outside skills may point anywhere
   * (installers link skills in) and links inside a skill stay in that skill.
   */
  confineLinks?: boolean;
  /**
   * A folder the source and every link followed in it must stay in, real paths compared: the project root,
   * for the project's own folders (a project may be a repository the user merely cloned). Links leaving it
   * are refused as confineLinks refuses them; a source folder that resolves outside it is not walked.
   */
  within?: string;
  /**
   * Folders several walks may read together (the project's folders share one), counted down by each:
   * at 0 every walk sharing it stops, with a `dir-limit` warning, as at maxDirs.
   */
  shared?: FolderBudget;
  /**
   * SkillHub's repository copies folder (`<home>/repos`), as a real path: never walked into, whether the
   * source holds it, leads to it by a link or lies in it. Unset for a synced repository's own walk (its
   * copy is its source) and when nothing is to be kept out.
   */
  copies?: string;
}

/** Folders left to the walks that share it (WalkLimits.shared), and how many they started with. */
export interface FolderBudget {
  readonly max: number;
  left: number;
}

/** The few file-system calls the walker makes, injectable for tests. */
export interface WalkFs {
  statSync(path: string): {
    mtimeMs: number;
    size: number;
    dev: number;
    /** Names the file has: more than one, and an edit through another name is reported to that name's folder. */
    nlink: number;
    ino: number;
    ctimeMs: number;
    isDirectory(): boolean;
    isFile(): boolean;
  };
  readdirSync(
    path: string,
    options: { withFileTypes: true },
  ): { name: string; isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }[];
  realpathSync(path: string): string;
}
