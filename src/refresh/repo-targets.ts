import { dirname, join, posix, resolve } from "node:path";
import type { Loaded } from "../config/load.ts";
import type { Resolved } from "../config/resolve.ts";
import type { Config, RepoEntryConfig } from "../config/schema.ts";
import { BRANCH_NAME, isGitRef } from "../config/schema-values.ts";
import { LOCKFILE_NAME } from "../lock/lockfile.ts";
import { isReservedLabel } from "../sources/source-list.ts";
import { ConfigError } from "../util/errors.ts";
import { scrubUrlCredentials } from "../util/url-credentials.ts";
import { FULL_COMMIT, type RepoTarget } from "./git/git-target.ts";
import { copyIdentity, parseRepo, repoIdentity, repoName, sameRepository, sha256Hex } from "./git/git-url.ts";

/** A `repos:` item as a mapping: a bare URL is `{ url }`. */
export function repoEntry(item: string | RepoEntryConfig): RepoEntryConfig {
  return typeof item === "string" ? { url: item } : item;
}

/**
 * A repository's skills folder as written (`skills/pdf`, `./skills/pdf/`) → its normal form, or
 * undefined for the root. Throws ConfigError for a path that is absolute or climbs out with `..`.
 */
export function repoPath(path: string | undefined, where: string): string | undefined {
  if (path === undefined) return undefined;
  const slashed = path.replace(/\\/g, "/");
  const normal = posix.normalize(slashed).replace(/^(\.\/)+|\/+$/g, "");
  // Security: the skills folder is served from inside the copy only.
  if (
    slashed.startsWith("/") ||
    /^[A-Za-z]:/.test(slashed) ||
    normal === ".." ||
    normal.startsWith("../") ||
    path.includes("\0")
  )
    throw new ConfigError(
      `Invalid configuration: ${where} path ${JSON.stringify(path)}: expected a folder inside the repository, such as skills/pdf.`,
      { key: "git.repos" },
    );
  return normal === "." || normal === "" ? undefined : normal;
}

/** What identifies a source among the configured ones: its copy's repository (copyIdentity) and its folder. */
export function sourceKey(entry: RepoEntryConfig): string {
  return `${copyIdentity(entry.url)}|${repoPath(entry.path, "repos entry") ?? ""}`;
}

/** A target's sourceKey: the configured entry it came from has the same. */
export function targetKey(target: RepoTarget): string {
  return `${copyIdentity(target.spec.url)}|${target.path ?? ""}`;
}

/**
 * The configured repositories as sync targets: validated branch, ref, path and
 * URL, one per repository and folder (duplicates dropped), each with a unique
 * source label and its copy's folder under `<home>/repos`. An entry's own
 * `ref` or `branch` wins over SKILLS_REF / SKILLS_BRANCH. Throws ConfigError.
 *
 * `lock` is the skillhub.lock that pins these copies (lock/location.ts; SkillHub's own lock when
 * unset). Each lock has copies of its own: a pin, a frozen commit or a sync in one project must never
 * change the files another project serves, so runs that read different locks never share a copy. The
 * runs that read the same lock (a project's servers, `skillhub sync`, `verify`) share its copies. A
 * repository whose URL the user's own config file names (`scope: user`) is pinned by SkillHub's own lock
 * (~/.skillhub/skillhub.lock) in every project, so it has that lock's copy wherever it is served; pass
 * the repositories through copyRepos, which leaves no such entry when lock.file pins everything.
 *
 * `hash` is sha256 in hex, of which folder names take 8 characters; tests inject one that collides.
 */
export function repoTargets(options: {
  repos: readonly (string | RepoEntryConfig)[];
  branch: string;
  ref?: string;
  home: string;
  lock?: string;
  hash?: (text: string) => string;
}): RepoTarget[] {
  checkBranch(options.branch, "SKILLS_BRANCH / git.branch");
  if (options.ref !== undefined) checkRef(options.ref, "SKILLS_REF / git.ref");
  const hash = options.hash ?? sha256Hex;
  const hash8 = (text: string) => hash(text).slice(0, 8);
  const seen = new Set<string>();
  const found: Found[] = [];
  const forLock = copySuffix(options.home, options.lock, hash8);
  const own = ownUrls(options.repos);
  for (const item of options.repos) {
    const entry = repoEntry(item);
    const raw = entry.url;
    const shown = JSON.stringify(scrubUrlCredentials(raw));
    const where = typeof item === "string" ? `SKILLS_REPO / repos entry ${shown}` : `repos entry ${shown}`;
    if (raw.trim().startsWith("-"))
      throw new ConfigError(`Invalid configuration: ${where}: expected a git URL, not an option.`, {
        key: "git.repos",
      });
    if (entry.branch !== undefined) checkBranch(entry.branch, `${where} branch`);
    if (entry.ref !== undefined) checkRef(entry.ref, `${where} ref`);
    const path = repoPath(entry.path, where);
    // Security: a repository the user configured (their config file, SKILLS_REPO) follows the branch and pin
    // of the user's entry, whatever a project's skillhub.yaml says of it: its scripts run as the user's, so a
    // project you clone must not choose its commit (a fork's, which GitHub serves under the original URL, or
    // an old one). A project's entry of a folder the user's entry serves is that entry (its URL as the user
    // spells it, its rights), in the project's place.
    const chosen = decidingEntry(options.repos, entry);
    const yours = chosen !== entry && repoPath(chosen.path, where) === path;
    const parsed = parseRepo(chosen.url, hash);
    const branch = chosen.branch ?? options.branch;
    // An entry's own branch means following it, whatever SKILLS_REF pins the others to.
    const ref = chosen.ref ?? (chosen.branch ? undefined : options.ref);
    // Security: one copy per repository and folder, never per folder name: 8 hex can be made to match.
    const key = `${copyIdentity(chosen.url)}|${path ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // Each folder of a repository has its own copy, so that one sync never waits for another's lock.
    const source = path ? `${parsed.slug}-${hash8(path)}` : parsed.slug;
    const suffix = own.has(repoIdentity(parsed.url)) ? "" : forLock;
    const slug = `${source}${suffix}`;
    // A folder's name as a repository's is made (letters, digits, `.`, `_`, `-`): it is printed in summaries.
    const name = path ? `${parsed.name}-${repoName(path)}` : parsed.name;
    found.push({
      // A repository never takes a fixed source's label.
      wanted: isReservedLabel(name) ? `repo-${name}` : name,
      key,
      suffix,
      target: {
        spec: { ...parsed, slug },
        dir: join(options.home, "repos", slug),
        branch,
        // A commit hash is compared with git's (lower-case) output.
        ...(ref ? { ref: FULL_COMMIT.test(ref.toLowerCase()) ? ref.toLowerCase() : ref } : {}),
        ...(path ? { path } : {}),
        ...(entry.scope === "project" && !yours ? { project: true } : {}),
      },
    });
  }
  return withLabels(withOwnFolders(found, hash));
}

/** A target before its label: its repository and folder (`key`), and what ends its folder name (the lock's). */
interface Found {
  wanted: string;
  key: string;
  suffix: string;
  target: Omit<RepoTarget, "label">;
}

/**
 * Security: each copy's folder is one repository's. When two repositories' folder names are the same (8 hex
 * of their hash alike, which a project can choose its URL to make), the one the user configured keeps the
 * name, so its copy stays its own; the other is named with the whole hash of its repository and folder.
 */
function withOwnFolders(found: readonly Found[], hash: (text: string) => string): Found[] {
  const taken = new Set<string>();
  const renamed = new Map<number, Found>();
  for (const i of yoursFirst(found)) {
    const item = found[i] as Found;
    const { target } = item;
    if (!taken.has(target.spec.slug)) {
      taken.add(target.spec.slug);
      continue;
    }
    const slug = `${target.spec.name}-${hash(item.key)}${item.suffix}`;
    taken.add(slug);
    renamed.set(i, {
      ...item,
      target: { ...target, spec: { ...target.spec, slug }, dir: join(dirname(target.dir), slug) },
    });
  }
  return found.map((item, i) => renamed.get(i) ?? item);
}

/** The indexes of `found`, the user's repositories first (a project's after them), each kind in order. */
function yoursFirst(found: readonly { target: Omit<RepoTarget, "label"> }[]): number[] {
  const projects = (i: number) => (found[i]?.target.project ? 1 : 0);
  return [...found.keys()].sort((a, b) => projects(a) - projects(b));
}

/**
 * Each target with a unique label, its name or the name and `-2`, `-3`…, kept in order. The repositories
 * the user configured take theirs first: a project's repository of the same name gets the `-2`, so the
 * label the user's lock records (and `sync --update NAME` names) is the same in every project.
 */
function withLabels(found: readonly { wanted: string; target: Omit<RepoTarget, "label"> }[]): RepoTarget[] {
  const used = new Set<string>();
  const labels: string[] = [];
  for (const i of yoursFirst(found)) {
    const wanted = found[i]?.wanted ?? "repo";
    let label = wanted;
    for (let n = 2; used.has(label); n++) label = `${wanted}-${n}`;
    used.add(label);
    labels[i] = label;
  }
  return found.map(({ target }, i) => ({ ...target, label: labels[i] ?? "repo" }));
}

/**
 * The repositories (their repoIdentity) that an entry of the user's own config file names: SkillHub's own
 * lock pins them, whatever folder a project's entry of the same repository serves (lock/location.ts).
 */
export function ownUrls(repos: readonly (string | RepoEntryConfig)[]): ReadonlySet<string> {
  return new Set(
    repos.flatMap((item) => (typeof item !== "string" && item.scope === "user" ? [repoIdentity(item.url)] : [])),
  );
}

/**
 * The entry whose branch and pin decide `entry`'s copy: for a project's entry of a repository the user
 * configured (their config file's `scope: user`, or SKILLS_REPO's, which has no scope), the user's entry of
 * it (the one of the same folder if there is one, else the first); else `entry` itself. The repository is
 * the same however either URL spells it (sameRepository: `git@github.com:org/team.git` is
 * `https://github.com/org/team`).
 */
function decidingEntry(repos: readonly (string | RepoEntryConfig)[], entry: RepoEntryConfig): RepoEntryConfig {
  if (entry.scope !== "project") return entry;
  const mine = repos.map(repoEntry).filter((e) => e.scope !== "project" && sameRepository(e.url, entry.url));
  const folder = repoPath(entry.path, "repos entry");
  return mine.find((e) => repoPath(e.path, "repos entry") === folder) ?? mine[0] ?? entry;
}

/**
 * What a project's skillhub.yaml asks of a repository that the user's own configuration decides instead
 * (decidingEntry): a ref or branch that is not served, said so that the project's pin is not believed.
 * `git` is the configuration's: SKILLS_REPO's entries follow its branch and ref (SKILLS_BRANCH, SKILLS_REF).
 */
export function overriddenPins(git: Pick<Config["git"], "repos" | "branch" | "ref">): string[] {
  const said: string[] = [];
  for (const entry of git.repos.map(repoEntry)) {
    if (entry.scope !== "project" || (entry.ref === undefined && entry.branch === undefined)) continue;
    const chosen = decidingEntry(git.repos, entry);
    if (chosen === entry) continue;
    // As repoTargets applies them: an entry's own branch means following it, whatever SKILLS_REF says.
    const branch = chosen.branch ?? git.branch;
    const ref = chosen.ref ?? (chosen.branch ? undefined : git.ref);
    if (ref === entry.ref && (ref !== undefined || branch === entry.branch)) continue;
    const asked = entry.ref !== undefined ? `ref ${entry.ref}` : `branch ${entry.branch}`;
    const served = ref ? `ref ${ref}` : chosen.branch ? `branch ${branch}` : "its default branch";
    const where =
      chosen.scope === "user"
        ? "your ~/.skillhub/config.yaml names that repository too, and your entry decides"
        : "SKILLS_REPO names that repository too, and your setting decides";
    said.push(
      `the project's skillhub.yaml gives ${scrubUrlCredentials(entry.url)} ${asked}, but ${where} its copy (${served}): take it out of ${chosen.scope === "user" ? "one of the two files" : "the project's file or SKILLS_REPO"} to serve the project's.`,
    );
  }
  return said;
}

/**
 * `loaded` with each content repository's `git.branch` (its config.yaml's, by the copy holding it) on its
 * own entries that choose none: the branch it publishes is its own, never the others' default. An entry's
 * own branch or ref, SKILLS_BRANCH and a pin of every repository (git.ref) decide over it, and a project's
 * entries are decided by the user's (decidingEntry).
 */
export function ownBranches(
  loaded: Loaded,
  copies: readonly { file: string; project: boolean; key: string }[],
  env: Record<string, string | undefined>,
): Resolved {
  const { repoBranches, ...resolved } = loaded;
  const git = resolved.config.git;
  if (env.SKILLS_BRANCH || git.ref !== undefined) return resolved;
  const branches = new Map<string, string>();
  for (const copy of copies) {
    const branch = repoBranches.get(copy.file);
    if (branch !== undefined && !copy.project) branches.set(copy.key, branch);
  }
  if (branches.size === 0) return resolved;
  const repos = git.repos.map((item) => {
    const entry = repoEntry(item);
    if (entry.scope === "project" || entry.branch !== undefined || entry.ref !== undefined) return item;
    const branch = branches.get(sourceKey(entry));
    return branch === undefined ? item : { ...entry, branch };
  });
  return { ...resolved, config: { ...resolved.config, git: { ...git, repos } } };
}

/**
 * A configuration's repositories as repoTargets takes them. With lock.file (SKILLHUB_LOCK) that one lock
 * pins every repository, the user's own too: their entries lose `scope: user`, so their copies are that
 * lock's and not the ones SkillHub's own lock pins elsewhere; a project's entry of one of them takes its
 * branch and pin first, as repoTargets would give it.
 */
export function copyRepos(config: Config): (string | RepoEntryConfig)[] {
  const repos = config.git.repos;
  if (!config.lock.file) return [...repos];
  return repos.map((item) => {
    if (typeof item === "string") return item;
    if (item.scope === "project") {
      // Decided before the user's entries lose their scope (repoTargets' decidingEntry).
      const { ref: _ref, branch: _branch, ...entry } = item;
      const { ref, branch } = decidingEntry(repos, item);
      return { ...entry, ...(ref !== undefined ? { ref } : {}), ...(branch !== undefined ? { branch } : {}) };
    }
    if (item.scope !== "user") return item;
    const { scope: _, ...entry } = item;
    return entry;
  });
}

/** The targets of a configuration (repoTargets of its git settings), their copies those of `lock`'s. */
export function configRepoTargets(config: Config, lock?: string): RepoTarget[] {
  return repoTargets({
    repos: copyRepos(config),
    branch: config.git.branch,
    ref: config.git.ref,
    home: config.home,
    ...(lock ? { lock } : {}),
  });
}

/**
 * What ends the folder name of the copies `lock` pins: nothing for SkillHub's own lock (the copies
 * of runs outside any project, named as before copies were kept per project), else 8 hex of its path.
 */
function copySuffix(home: string, lock: string | undefined, hash8: (text: string) => string): string {
  if (lock === undefined) return "";
  const file = resolve(lock);
  return file === resolve(home, LOCKFILE_NAME) ? "" : `-${hash8(file)}`;
}

/**
 * Source labels of the repositories a project's skillhub.yaml added: their server scripts are the
 * project's, which run only with scripts.allow_project.
 */
export function projectRepoLabels(config: Config): ReadonlySet<string> {
  if (!config.git.repos.some((r) => typeof r !== "string" && r.scope === "project")) return new Set();
  return new Set(
    configRepoTargets(config)
      .filter((t) => t.project)
      .map((t) => t.label),
  );
}

function checkBranch(branch: string, what: string): void {
  if (!BRANCH_NAME.test(branch))
    throw new ConfigError(`Invalid configuration: ${what} = ${JSON.stringify(branch)}: expected a branch name.`, {
      key: "git.branch",
    });
}

function checkRef(ref: string, what: string): void {
  if (!isGitRef(ref))
    throw new ConfigError(
      `Invalid configuration: ${what} = ${JSON.stringify(ref)}: expected a tag name or a full commit hash (40 hex).`,
      { key: "git.ref" },
    );
}
