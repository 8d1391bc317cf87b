import { isAbsolute, join, relative, resolve } from "node:path";
import type { Location } from "../skills/skill.ts";
import { LOCKFILE_NAME } from "./lockfile.ts";

/**
 * Which skills a lock file covers. "project": the project's own skills and
 * the git sources (committed with the project, so teammates and CI verify
 * them); "global": this machine's personal skills (global folders, SkillHub's
 * skills folder, Claude Code plugins); "all": everything (SKILLHUB_LOCK, or
 * no project root).
 */
export type LockScope = "project" | "global" | "all";

/** One lock file and what it covers. */
export interface LockTarget {
  scope: LockScope;
  file: string;
}

export interface LockPlace {
  /** lock.file (SKILLHUB_LOCK): one file for everything. */
  file?: string;
  projectDir: string | null;
  /** SkillHub's home (~/.skillhub). */
  home: string;
  cwd: string;
}

/**
 * The lock files, the one that records git sources first: `lock.file` alone
 * when set; else `<project>/skillhub.lock` and `~/.skillhub/skillhub.lock`;
 * with no project root, `~/.skillhub/skillhub.lock` alone, covering everything.
 */
export function lockTargets(input: LockPlace): LockTarget[] {
  if (input.file) return [{ scope: "all", file: isAbsolute(input.file) ? input.file : resolve(input.cwd, input.file) }];
  const global = join(input.home, LOCKFILE_NAME);
  if (!input.projectDir) return [{ scope: "all", file: global }];
  return [
    { scope: "project", file: join(input.projectDir, LOCKFILE_NAME) },
    { scope: "global", file: global },
  ];
}

/** The lock that records git sources and their pins (the first target). */
export function lockPath(input: LockPlace): string {
  return lockTargets(input)[0]?.file ?? join(input.home, LOCKFILE_NAME);
}

/**
 * Whether `target` covers a skill (or source) at `location` rooted at `root`.
 * Git sources ("remote") go with the project: the code has no per-project
 * repository setting (a folder's config.yaml may not set git.repos), and a
 * team pins its repositories in the lock it commits. An explicit folder
 * (--skills-dir, sources.dirs) is the project's when it lies inside it.
 */
export function covers(
  target: LockTarget,
  source: { location: Location; root: string },
  projectDir: string | null,
): boolean {
  if (target.scope === "all") return true;
  return scopeOf(source, projectDir) === target.scope;
}

function scopeOf(source: { location: Location; root: string }, projectDir: string | null): "project" | "global" {
  if (source.location === "project" || source.location === "remote") return "project";
  if (source.location === "explicit" && projectDir) {
    const rel = relative(projectDir, source.root);
    if (!rel.startsWith("..") && !isAbsolute(rel)) return "project";
  }
  return "global";
}
