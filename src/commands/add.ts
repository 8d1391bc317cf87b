import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigFileEdit, type RepoItem } from "../config/config-edit.ts";
import { MAX_PROJECT_DIRS, MAX_PROJECT_REPOS, PROJECT_CONFIG_FILE } from "../config/project-file.ts";
import { inRepositoryCopies, realPathOf } from "../config/repository-copies.ts";
import type { RepoEntryConfig } from "../config/schema.ts";
import { lockPath } from "../lock/location.ts";
import { GitError } from "../refresh/git/git-errors.ts";
import { GitSync } from "../refresh/git/git-sync.ts";
import { carriesCredentials, withoutCredentials } from "../refresh/git/git-url.ts";
import { repoEntry, repoPath, sourceKey, targetKey } from "../refresh/repo-targets.ts";
import { createLogger } from "../util/logger.ts";
import { program } from "../util/program-name.ts";
import { scrubUrlCredentials } from "../util/url-credentials.ts";
import { type CommandContext, type CommandRun, scannedHub, sourcesOf } from "./context.ts";
import { reloaded } from "./load-settings.ts";
import { writeLocks } from "./lock.ts";
import { lockPlaceOf, unreadableLock, writtenBy } from "./lock-state.ts";
import { probeRepository } from "./repo-probe.ts";
import { enclosingCheckout, isCheckout, type SourceFile, sourceFile } from "./source-files.ts";
import { sourceReport } from "./source-report.ts";
import { hashRefForm, parseSource, SourceError, type SourceSpec } from "./source-spec.ts";

/** A source `add` recorded: how the user wrote it, and how to find it again once the config is reloaded. */
interface Added {
  written: string;
  change: "added" | "updated" | "unchanged";
  /** A repository (its sourceKey) or a folder (absolute). */
  repo?: RepoEntryConfig;
  dir?: string;
}

/**
 * `skillhub add SOURCE... [--global] [--ref REF] [--path SUBDIR]`: record each source in the
 * project's skillhub.yaml (or, with --global, ~/.skillhub/config.yaml), fetch it, write the lock,
 * and say what became available. A repository is asked what its ref is (a tag or a commit is pinned,
 * a branch followed) and synced before anything is written: a mistyped or unreachable one changes
 * nothing. Exit 2 for a source that cannot be understood, 1 when one cannot be fetched.
 */
export const runAdd: CommandRun = async (ctx) => {
  const words = ctx.args.positionals;
  const { ref, path, global } = ctx.args.options;
  const usage = (text: string) => {
    ctx.err(`skillhub add: ${scrubUrlCredentials(text)}\n`);
    return 2;
  };
  if (words.length === 0) return usage("name a source: a git URL, owner/repo (GitHub), owner/repo/path or a folder.");
  if (words.length > 1 && (ref !== undefined || path !== undefined))
    return usage("--ref and --path apply to one source; give each its own ref as owner/repo@REF or URL#REF.");
  if (ctx.config.lock.frozen)
    return usage(
      "--frozen serves only what skillhub.lock records, and adding a source changes it: run add without it.",
    );
  const where = sourceFile(ctx, global);
  if (typeof where === "string") return usage(where);
  let specs: SourceSpec[];
  try {
    specs = words.map((w) => parseSource(w, { cwd: ctx.cwd, homeDir: ctx.homeDir }));
  } catch (error) {
    if (error instanceof SourceError) return usage(error.message);
    throw error;
  }
  const top = where.scope === "project" && where.projectDir ? enclosingCheckout(where.projectDir) : undefined;
  if (top)
    ctx.err(
      `skillhub add: note: the project root here is the working folder ${where.projectDir}, inside the checkout ${top}; a client started at ${top} reads its own skillhub.yaml (run add there, or pass --project ${top}).\n`,
    );
  // A first skillhub.yaml in a folder that is no checkout (~/Downloads) is rarely where a client starts.
  else if (where.scope === "project" && where.projectDir && !existsSync(where.file) && !isCheckout(where.projectDir))
    ctx.err(
      `skillhub add: note: ${where.projectDir} is no git checkout; its skillhub.yaml is read by servers whose project is this folder (a client started here, or --project ${where.projectDir}). For every project, run ${program()} add --global.\n`,
    );
  // A file that cannot be changed is said before any fetch; the change is made on the file as it is after them.
  const within = where.scope === "project" ? (where.projectDir ?? undefined) : undefined;
  const current = ConfigFileEdit.open(where.file, where.header, within);
  const full =
    where.scope === "project" && where.projectDir ? projectFileFull(current, where.projectDir, specs, path) : undefined;
  if (full) return usage(full);
  const broken = unreadableLock(ctx, writtenBy(where.scope));
  if (broken) return usage(`${broken}; nothing was added.`);
  const changes: Change[] = [];
  for (const spec of specs) {
    const result =
      spec.kind === "folder"
        ? addFolder(where, spec, ctx.config.home)
        : await addRepository(ctx, where, spec, ref, path);
    if (typeof result === "number") return result;
    if (typeof result === "string") return usage(result);
    changes.push(result);
  }
  const added = ConfigFileEdit.update(where.file, where.header, within, (edit) => changes.map((apply) => apply(edit)));
  for (const a of added)
    ctx.out(
      a.change === "unchanged"
        ? `${a.written} is already a source in ${where.file}; nothing changed.\n`
        : `${a.change === "added" ? "Added" : "Updated"} ${a.written} in ${where.file}.\n`,
    );
  return reportAndLock(ctx, added, where.scope);
};

/**
 * Why the project's file cannot take these sources: it would name more repositories or folders than a
 * project's skillhub.yaml may (the ones past the cap would be ignored). Undefined when it can.
 */
function projectFileFull(
  edit: ConfigFileEdit,
  projectDir: string,
  specs: readonly SourceSpec[],
  pathOption?: string,
): string | undefined {
  const repos = new Set(edit.repos().map((item) => sourceKey(repoEntry(item))));
  const dirs = new Set(edit.dirs().map((dir) => resolve(projectDir, dir)));
  for (const spec of specs)
    if (spec.kind === "git") repos.add(sourceKey({ url: spec.url, path: spec.path ?? pathOption }));
    else dirs.add(spec.dir);
  if (repos.size > MAX_PROJECT_REPOS)
    return `a project's ${PROJECT_CONFIG_FILE} names at most ${MAX_PROJECT_REPOS} repositories, and ${edit.path} would name ${repos.size}: remove one first (${program()} remove), or add it for yourself with --global.`;
  if (dirs.size > MAX_PROJECT_DIRS)
    return `a project's ${PROJECT_CONFIG_FILE} adds at most ${MAX_PROJECT_DIRS} folders, and ${edit.path} would add ${dirs.size}: remove one first (${program()} remove), or add it for yourself with --global.`;
  return undefined;
}

/** What one source does to the file, once it is ready to be recorded. */
type Change = (edit: ConfigFileEdit) => Added;

/** A folder: inside the project for its file (relative, so teammates share it), anywhere for the user's. */
function addFolder(where: SourceFile, spec: SourceSpec & { kind: "folder" }, home: string): Change | string {
  // Refused before it is written: every later start would refuse the file's sources.dirs (config/resolve.ts).
  const copy = inRepositoryCopies(spec.dir, home, realPathOf);
  if (copy) return `${spec.written}: ${copy}`;
  let stored = spec.dir;
  if (where.scope === "project" && where.projectDir) {
    const rel = relative(where.projectDir, spec.dir);
    if (rel.startsWith("..") || isAbsolute(rel))
      return `${spec.dir} is outside the project ${where.projectDir}; a project's sources must be inside it (a teammate has no such folder): add it for yourself with --global, or add its git URL.`;
    stored = rel === "" ? "." : rel.split(sep).join("/");
  }
  return (edit) => {
    const known = edit.dirs().some((d) => d === stored);
    if (!known) edit.addDir(stored);
    return { written: spec.written, change: known ? "unchanged" : "added", dir: spec.dir };
  };
}

async function addRepository(
  ctx: CommandContext,
  where: SourceFile,
  spec: SourceSpec & { kind: "git" },
  refOption: string | undefined,
  pathOption: string | undefined,
): Promise<Change | number> {
  const fail = (text: string, code = 2) => {
    ctx.err(`skillhub add: ${scrubUrlCredentials(text)}\n`);
    return code;
  };
  // Security: the file is kept in plain text, and a project's is committed; git's own ways keep a secret.
  if (carriesCredentials(spec.url))
    return fail(
      `the URL holds a password, a token or a user name, which ${where.file} would keep in plain text: add ${withoutCredentials(spec.written)} instead, and ${where.scope === "project" ? "set up an SSH key or a git credential helper for its host (a project's repositories never receive GITHUB_TOKEN)" : "set GITHUB_TOKEN where skillhub starts (sent to https:// repositories as a header), or set up a git credential helper or an SSH key"}.`,
    );
  if (spec.ref !== undefined && refOption !== undefined && spec.ref !== refOption)
    return fail(`${spec.written} names ref '${spec.ref}' and --ref says '${refOption}': give one.`);
  if (spec.path !== undefined && pathOption !== undefined && repoPath(spec.path, "") !== repoPath(pathOption, ""))
    return fail(`${spec.written} names the folder '${spec.path}' and --path says '${pathOption}': give one.`);
  const path = repoPath(spec.path ?? pathOption, spec.written);
  const base: RepoEntryConfig = {
    url: spec.url,
    ...(path ? { path } : {}),
    scope: where.scope === "project" ? "project" : "user",
  };
  let entry: RepoEntryConfig;
  try {
    const found = await probeRepository(base, spec.ref ?? refOption, { env: ctx.env, token: ctx.config.git.token });
    // A branch is written only when it is not the one every repository follows (SKILLS_BRANCH).
    const branch = found.branch && found.branch !== ctx.config.git.branch ? found.branch : undefined;
    entry = { ...base, ...(found.ref ? { ref: found.ref } : {}), ...(branch ? { branch } : {}) };
    await fetchCopy(ctx, entry);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return fail(`${failureSentence(error, spec)} Nothing was added.`, 1);
  }
  const item = written(entry);
  const key = sourceKey(entry);
  return (edit) => {
    const index = edit.repos().findIndex((r) => sourceKey(repoEntry(r)) === key);
    const same = index >= 0 && JSON.stringify(edit.repos()[index]) === JSON.stringify(item);
    if (!same) edit.setRepo(item, index >= 0 ? index : undefined);
    return {
      written: describe(spec, entry),
      change: same ? "unchanged" : index >= 0 ? "updated" : "added",
      repo: entry,
    };
  };
}

/** Sync the new repository alone, as the server would, so its copy is there before it is recorded. */
async function fetchCopy(ctx: CommandContext, entry: RepoEntryConfig): Promise<void> {
  const config = { ...ctx.config, git: { ...ctx.config.git, repos: [entry] } };
  // The progress lines say what happens; the sync's own log lines would say it twice.
  const logger = ctx.config.log_level === "DEBUG" ? ctx.logger : createLogger({ level: "WARN", write: ctx.err });
  // Into the copy this project's runs serve (repo-targets.ts: copies are kept per lock).
  const lock = lockPath(lockPlaceOf(ctx));
  const git = GitSync.fromConfig(config, logger, {
    lockFile: () => lock,
    intervalMs: 0,
    runner: { env: ctx.env },
    progress: (line) => ctx.err(`add: ${line}…\n`),
    // Nothing is recorded after a failure, so a later `skillhub sync` would not fetch it: add it again.
    retry: `run \`${program()} add\` again once that is fixed`,
  });
  try {
    const outcome = await git?.refresh("add");
    const report = outcome?.repos[0];
    if (report?.error) throw new GitError(report.error.code as GitError["code"], report.error.message);
  } finally {
    git?.close();
  }
}

/** What the file holds for an entry: the URL alone when nothing else is set; never the scope (the file gives it). */
function written(entry: RepoEntryConfig): RepoItem {
  const { scope: _, ...rest } = entry;
  return Object.keys(rest).length === 1 ? rest.url : rest;
}

function describe(spec: SourceSpec & { kind: "git" }, entry: RepoEntryConfig): string {
  const text = spec.written;
  const details = [
    spec.bare ? `the git repository ${entry.url}` : entry.url !== text ? entry.url : "",
    entry.path ? `folder ${entry.path}` : "",
    entry.ref ? `pinned to ${entry.ref}` : entry.branch ? `following branch ${entry.branch}` : "",
  ].filter(Boolean);
  return details.length > 0 ? `${text} (${details.join(", ")})` : text;
}

/**
 * One sentence for a repository `add` could not fetch: offline, unknown, private, or a ref it lacks; on this
 * machine (file://), a folder that is not there or holds no repository. A URL ending in `@REF` is the
 * shorthand's way to give a ref, which a URL writes `#REF`: said when it is not found.
 */
export function failureSentence(error: GitError, spec: Pick<SourceSpec & { kind: "git" }, "url" | "written">): string {
  const { written } = spec;
  const hashed = hashRefForm(written);
  const refHint = hashed ? ` If '${hashed.ref}' is a ref, a URL gives it after '#': ${hashed.url}.` : "";
  const why = error.message.replace(/^cannot reach \S+: |\.$/g, "");
  switch (error.code) {
    case "GIT_UNREACHABLE":
    case "GIT_TIMEOUT": {
      const folder = localFolder(spec.url);
      if (folder)
        return existsSync(folder)
          ? `git cannot read a repository in ${folder} (${why}).${refHint}`
          : `the folder ${folder} (${written}) does not exist.${refHint}`;
      return `cannot reach ${written} (${why}): check the network or the URL, then try again.${refHint}`;
    }
    case "GIT_AUTH_FAILED":
      return `${written} was not found, or it is private: check the name; for a private repository set up an SSH key or a git credential helper for its host (or GITHUB_TOKEN, for your own --global sources).${refHint}`;
    case "GIT_REF_NOT_FOUND":
    case "GIT_BRANCH_NOT_FOUND":
      return `${error.message.replace(/; set SKILLS_BRANCH.*$/, ".")}`;
    case "GIT_NOT_FOUND":
      return error.message;
    default:
      return `${written} could not be fetched: ${error.message}`;
  }
}

/** The folder a file:// URL names on this machine; undefined for any other URL. */
function localFolder(url: string): string | undefined {
  if (!/^file:/i.test(url)) return undefined;
  try {
    return fileURLToPath(url);
  } catch {
    // file://host/path: another machine's (or a Windows share's), reached as the URL says.
    return undefined;
  }
}

/** Reload the configuration with the new sources, say what each brings, and write the locks of their place. */
async function reportAndLock(
  ctx: CommandContext,
  added: readonly Added[],
  scope: SourceFile["scope"],
): Promise<number> {
  const next = await reloaded(ctx);
  // What the new sources' config.yaml brings that does not apply (a branch a project's entry does not follow).
  for (const warning of next.configWarnings)
    if (!ctx.configWarnings.includes(warning)) ctx.err(`skillhub: warning: config ${warning}\n`);
  for (const entry of chosenBranches(next, added, scope)) {
    ctx.err(`add: the config.yaml of ${entry.url} names branch ${entry.branch}, the one it publishes…\n`);
    try {
      await fetchCopy(next, entry);
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      ctx.err(`skillhub add: ${scrubUrlCredentials(error.message)}\n`);
    }
  }
  const previous = sourcesOf(ctx);
  const hub = await scannedHub(next);
  // The lock entries add writes: those of the sources it added or changed, every other one as it was.
  const labels = new Set<string>();
  try {
    const targets = hub.git?.targets ?? [];
    const repos = new Map((hub.git?.sources() ?? []).map((s) => [s.label, s.dir]));
    for (const a of added) {
      const key = a.repo ? sourceKey(a.repo) : undefined;
      const target = key ? targets.find((t) => targetKey(t) === key) : undefined;
      const source = target
        ? { label: target.label, dir: repos.get(target.label) }
        : hub.catalog.sources.find((s) => s.dir === a.dir);
      if (source && a.change !== "unchanged") labels.add(source.label);
      if (source?.dir) ctx.out(`${sourceReport(hub.catalog, source.label, source.dir).join("\n")}\n`);
    }
  } finally {
    hub.close();
  }
  // Your own sources are pinned by your own lock: --global writes no lock in the working folder.
  return (await writeLocks(next, { which: writtenBy(scope), sources: labels, previous })) === 0 ? 0 : 1;
}

/**
 * The added repositories whose config.yaml, now that their copy is there, chooses the branch they publish
 * (ownBranches): fetched again at that branch, so that the lock records its commit, not the default
 * branch's under its name.
 */
function chosenBranches(next: CommandContext, added: readonly Added[], scope: SourceFile["scope"]): RepoEntryConfig[] {
  const fetched = new Map(added.flatMap((a) => (a.repo ? [[sourceKey(a.repo), a.repo] as const] : [])));
  const branch = (entry: RepoEntryConfig) => entry.branch ?? next.config.git.branch;
  // The same repository in the other file is another copy, pinned by another lock: add leaves it be.
  const ours = (entry: RepoEntryConfig) => (entry.scope === "project") === (scope === "project");
  return next.config.git.repos.map(repoEntry).filter((entry) => {
    if (!ours(entry)) return false;
    const before = fetched.get(sourceKey(entry));
    return before && before.ref === undefined && entry.ref === undefined && branch(entry) !== branch(before);
  });
}
