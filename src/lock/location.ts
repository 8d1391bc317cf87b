import { isAbsolute, join, relative, resolve } from "node:path";
import type { Config } from "../config/schema.ts";
import { repoIdentity } from "../refresh/git/git-url.ts";
import { configRepoTargets, ownUrls } from "../refresh/repo-targets.ts";
import { type Location, PLUGIN_LABEL_PREFIX } from "../sources/source-list.ts";
import { LOCKFILE_NAME } from "./lockfile.ts";

/**
 * Which skills and repositories a lock file covers. A repository is pinned by the lock of the place
 * that names it. "project": the project's own skills, and the repositories of its skillhub.yaml and
 * of SKILLS_REPO (committed with the project, so teammates and CI verify them); "global":
 * this machine's personal skills (global folders, SkillHub's skills folder, Claude Code plugins) and
 * the repositories whose URL the user's own config file names; "all": everything (SKILLHUB_LOCK, or no project root).
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
 * The lock files, the project's first: `lock.file` alone when set; else
 * `<project>/skillhub.lock` and `~/.skillhub/skillhub.lock`; with no project
 * root, `~/.skillhub/skillhub.lock` alone, covering everything.
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

/**
 * The main lock (the first target): the project's, which a frozen server needs to start and whose
 * copies the project's repositories use (repo-targets.ts).
 */
export function lockPath(input: LockPlace): string {
  return lockTargets(input)[0]?.file ?? join(input.home, LOCKFILE_NAME);
}

/**
 * The source labels of the repositories whose URL the user's own config file names (`scope: user`, set
 * by config/load.ts): the global lock pins them and records their skills, inside a project too. Pins go
 * by URL (one copy's commit per URL: git-sync.ts), so a project's entry of the same URL with another
 * folder is pinned by the user's lock as well, and left out of the project lock: one lock decides a
 * URL's commit for pins, checkouts, `skillhub lock` and advice alike.
 */
export function ownRepoLabels(config: Config): ReadonlySet<string> {
  const own = ownUrls(config.git.repos);
  if (own.size === 0) return new Set();
  return new Set(
    configRepoTargets(config)
      .filter((t) => own.has(repoIdentity(t.spec.url)))
      .map((t) => t.label),
  );
}

/**
 * Whether `target` pins the repository labelled `label`: the global lock those of the user's own
 * config file (`own`, ownRepoLabels), the project lock every other. Security: a project's lock never
 * pins a repository the user configured, so a cloned project cannot choose the commit whose scripts
 * run as the user's own.
 */
export function pinsRepo(target: LockTarget, label: string, own: ReadonlySet<string>): boolean {
  return target.scope === "all" || target.scope === (own.has(label) ? "global" : "project");
}

/**
 * Whether `target` covers a skill of the source labelled `source`, at `location` rooted at `root`. A
 * repository's ("remote") skills go with the lock that pins it (pinsRepo). An explicit folder
 * (--skills-dir, sources.dirs) is the project's when it lies inside it.
 */
export function covers(
  target: LockTarget,
  skill: { location: Location; root: string; source: string },
  projectDir: string | null,
  own: ReadonlySet<string> = new Set(),
): boolean {
  if (skill.location === "remote") return pinsRepo(target, skill.source, own);
  if (target.scope === "all") return true;
  return scopeOf(skill, projectDir) === target.scope;
}

function scopeOf(
  source: { location: Location; root: string; source: string },
  projectDir: string | null,
): "project" | "global" {
  // A plugin installed for the project is still this machine's: Claude Code's cache, not the project's files.
  if (source.source.startsWith(PLUGIN_LABEL_PREFIX)) return "global";
  if (source.location === "project") return "project";
  if (source.location === "explicit" && projectDir) {
    const rel = relative(projectDir, source.root);
    if (!rel.startsWith("..") && !isAbsolute(rel)) return "project";
  }
  return "global";
}
