import { mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { classifyFailure, GitError, gitMessage } from "./git-errors.ts";
import { finishTempClone, tempCloneDir } from "./git-leftovers.ts";
import type { GitOutput } from "./git-runner.ts";
import { FetchLimit } from "./git-size-limit.ts";
import {
  FULL_COMMIT,
  namedRef,
  type RepoTarget,
  refOf,
  remoteHeadBranch,
  type SyncContext,
  type SyncWant,
  updateCommand,
} from "./git-target.ts";

/** A sync's context while it fetches into one copy: its fetches are held to git.max_repo_bytes together. */
type FetchContext = SyncContext & { limit: FetchLimit };

/** What fetchWanted fetched. */
export interface Fetched {
  /** The commit the copy should serve. */
  commit: string;
  /**
   * The commit the configured branch or tag is at, as this fetch read it from the remote; undefined when it
   * was not read (a full commit hash configured as the ref, a remote that gave no answer).
   */
  refCommit?: string;
}

/**
 * Fetch what the copy should serve into `dir` and return its commit: the pinned commit, the lock's
 * commit (`want.commit`) once the configured branch or tag is known to reach it (inRefHistory), the
 * pinned tag's commit, or the branch tip. `existing`: `dir` is an existing copy, with its record of the
 * branch or tag (recordOf); a lock's commit only that record reaches adds a warning to its `warnings`.
 * Without it, `dir` is a first copy, which fetches as little history as it can.
 */
export async function fetchWanted(
  target: RepoTarget,
  sync: SyncContext,
  dir: string,
  want: SyncWant,
  existing?: { record: string | undefined; warnings: string[] },
): Promise<Fetched> {
  const limit = await FetchLimit.start(sync.git, dir, {
    max: sync.maxRepoBytes ?? 0,
    url: target.spec.url,
    refs: [refNames(target)[1]],
  });
  const ctx: FetchContext = { ...sync, limit };
  // Not --depth on an existing copy: the server sends only the commits since the last sync, and their
  // ancestry stays known.
  const depth = existing ? [] : ["--depth", "1"];
  // Into a first copy, the fetch is the clone the progress line before named ("cloning …"): said once.
  const fetching = existing ? ctx.progress : () => undefined;
  // A full hash configured as the ref is its own pin: the lock can record no other commit for it (sync
  // records the commit checked out), so one it names otherwise is not followed.
  const pinned = target.ref && FULL_COMMIT.test(target.ref) ? target.ref : undefined;
  const commit = pinned ?? want.commit;
  if (!commit) {
    fetching(`fetching ${target.spec.url} (${refOf(target)})`);
    await fetchRef(target, ctx, dir, depth);
    const tip = await tipOf(target, ctx, dir);
    return { commit: tip, refCommit: tip };
  }
  // The lock's commit is fetched by its hash, and only its own files: what the branch or tag holds now (a
  // huge file pushed to its tip) is never fetched, so it cannot make a frozen sync fail.
  if (!(await hasCommit(dir, commit, ctx))) {
    fetching(`fetching ${target.spec.url} (commit ${commit.slice(0, 12)})`);
    await fetchCommit(target, ctx, dir, commit, Boolean(pinned), depth);
  }
  if (pinned) return { commit };
  let history: { reached: boolean; tip?: string };
  try {
    history = await inRefHistory(target, ctx, dir, commit);
  } catch (error) {
    if (!(await reachedUnread(target, ctx, dir, commit, error, existing?.warnings))) throw error;
    return { commit };
  }
  const refCommit = history.tip ? { refCommit: history.tip } : {};
  if (history.reached) {
    await recordReaching(target, ctx, dir, commit);
    return { commit, ...refCommit };
  }
  if (!(await keptByRecord(target, ctx, dir, commit, existing?.record))) throw notInRef(target, commit);
  existing?.warnings.push(movedAway(target, commit));
  return { commit, ...refCommit };
}

/** Why a lock's commit is served although the branch or tag moved away from it (keptByRecord). */
function movedAway(target: RepoTarget, commit: string): string {
  const ref = namedRef(target);
  return `${ref} of ${target.spec.url} ${target.ref ? "was moved" : "was force-pushed"} away from commit ${commit.slice(0, 12)} recorded in skillhub.lock: that commit, which the ${target.ref ? "tag" : "branch"} reached when SkillHub last fetched it, is still served; review the current ${ref}, then run \`${updateCommand(target)}\` to lock it.`;
}

/**
 * Whether the lock's `commit` may be taken although the configured branch or tag could not be read (`error`):
 * the remote was unreachable, timed out, refused the credentials this machine has (CI without the secret),
 * sent more than git.max_repo_bytes (a server that cannot send commits alone), or has no such branch or
 * tag any more; and the branch or tag, as the copy last fetched it, reaches the commit. A frozen or pinned
 * sync then works offline, and without access, once the copy holds the commit; a deleted branch or tag is
 * taken as a force-push is (keptByRecord), with a warning in `warnings`.
 *
 * Security: that record is written only by fetching the ref from the configured URL (fetchRef), or where
 * such a fetch reached the commit (recordReaching), so what it reaches was in the branch's or tag's
 * history then. A fork's commit comes by its hash alone, which it does not reach: offline, that one is
 * never taken.
 */
async function reachedUnread(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  commit: string,
  error: unknown,
  warnings: string[] | undefined,
): Promise<boolean> {
  const code = error instanceof GitError ? error.code : undefined;
  const why =
    code === "GIT_UNREACHABLE" || code === "GIT_TIMEOUT"
      ? "gave no answer"
      : code === "GIT_AUTH_FAILED"
        ? "refused access"
        : code === "GIT_TOO_LARGE"
          ? `sent more than git.max_repo_bytes for the history of ${namedRef(target)} (it sends commits only with their files)`
          : code === "GIT_BRANCH_NOT_FOUND" || code === "GIT_REF_NOT_FOUND"
            ? `has no ${namedRef(target)} any more`
            : undefined;
  if (why === undefined || !(await reachedByRef(target, ctx, dir, commit))) return false;
  const kept = `${target.spec.url} ${why}: commit ${commit.slice(0, 12)} recorded in skillhub.lock, which ${namedRef(target)} reached when SkillHub last fetched it, is still served`;
  if (code === "GIT_TOO_LARGE") warnings?.push(`${kept}.`);
  else if (code === "GIT_BRANCH_NOT_FOUND" || code === "GIT_REF_NOT_FOUND")
    warnings?.push(`${kept}; review the repository, then run \`${updateCommand(target)}\` to lock what it serves now.`);
  else
    ctx.progress(
      `${target.spec.url} ${why}: commit ${commit.slice(0, 12)} checked against ${namedRef(target)} as last fetched`,
    );
  return true;
}

/** Fetch `commit` by its hash: the pinned one (`pinned`), else the lock's. Throws GIT_REF_NOT_FOUND when the server lacks it. */
async function fetchCommit(
  target: RepoTarget,
  ctx: FetchContext,
  dir: string,
  commit: string,
  pinned: boolean,
  depth: readonly string[],
): Promise<void> {
  const out = await ctx.limit.fetch(
    ["fetch", "--no-tags", "--quiet", ...depth, target.spec.url, commit],
    remoteOptions(ctx, dir),
  );
  if (out.code !== 0) {
    if (MISSING_OBJECT.test(out.stderr)) {
      const why = pinned
        ? `commit ${commit} (SKILLS_REF / git.ref) is not in ${target.spec.url}; check the hash.`
        : `commit ${commit.slice(0, 12)} recorded in skillhub.lock is not in ${target.spec.url} any more (force-pushed or deleted?); review the repository, then run \`${updateCommand(target)}\` to lock its current state.`;
      throw new GitError("GIT_REF_NOT_FOUND", why, { details: { url: target.spec.url, commit } });
    }
    throw failure(target, ctx, out, commit);
  }
  if (!(await hasCommit(dir, commit, ctx)))
    throw new GitError("GIT_REF_NOT_FOUND", `${target.spec.url} did not send commit ${commit}.`);
}

/**
 * Commits after the lock's commit carry a later committer date, unless a clock was off: the history check
 * fetches the ref's commits dated from this many seconds before it.
 */
const CLOCK_SLACK_S = 86_400;

/**
 * Whether the lock's `commit` (held in `dir`) is in the history of the configured branch or tag as the
 * remote has it now, and the commit the ref is at (`tip`, undefined when it names none). With `from`, in
 * the history of that commit instead (fetched by its hash: the very commit a sync is about to take, not
 * the ref, which the remote may have moved again since).
 *
 * Security: a server hands out any commit it holds by its hash, and GitHub holds, under a repository's
 * URL, the commits of all its forks. Checked out unchecked, a lock naming a fork's commit (in a project
 * someone else wrote) would have that fork's skills served, and its scripts run, as the repository's.
 *
 * Network: the ref's commits alone, without their files (`--filter=tree:0`), into a scratch repository
 * that is removed after: a huge file at the tip costs nothing, and the copy never holds a commit without
 * its files. First those dated from a day before the commit; only when they do not reach it (a refusal, a
 * clock far off) the ref's whole history: a date never decides, the history does. A server that cannot
 * filter sends the files too, held to git.max_repo_bytes like any fetch.
 */
export async function inRefHistory(
  target: RepoTarget,
  sync: SyncContext,
  dir: string,
  commit: string,
  from?: string,
): Promise<{ reached: boolean; tip?: string }> {
  const parent = dirname(target.dir);
  mkdirSync(parent, { recursive: true });
  const scratch = tempCloneDir(parent, `${target.spec.slug}.history`, sync.now());
  try {
    const init = await sync.git.run(["init", "--quiet", "--template=", scratch], { cwd: parent });
    if (init.code !== 0) throw new GitError("GIT_FAILED", `git init failed in ${scratch}: ${gitMessage(init.stderr)}.`);
    const [, local] = refNames(target);
    const limit = await FetchLimit.start(sync.git, scratch, {
      max: sync.maxRepoBytes ?? 0,
      url: target.spec.url,
      refs: [local],
    });
    const ctx: FetchContext = { ...sync, limit };
    const history = `fetching the history of ${refOf(target)} from ${target.spec.url} back to commit ${commit.slice(0, 12)}`;
    const fetchCommits = async (deepen: readonly string[]) => {
      if (from === undefined) await fetchRef(target, ctx, scratch, ["--filter=tree:0", ...deepen]);
      else {
        const args = ["fetch", "--no-tags", "--quiet", "--filter=tree:0", ...deepen, target.spec.url, from];
        const out = await ctx.limit.fetch(args, remoteOptions(ctx, scratch));
        if (out.code !== 0 && !NOTHING_SINCE.test(out.stderr)) throw failure(target, ctx, out, from);
      }
      // Security: fetching with a filter makes the URL a promisor remote, from which git would fetch any
      // object it lacks on demand (a fork's commit by its hash): only what the ref's history brought counts.
      await sync.git.run(["config", "--remove-section", `remote.${target.spec.url}`], { cwd: scratch });
      await sync.git.run(["config", "--unset-all", "extensions.partialClone"], { cwd: scratch });
    };
    const head = from ?? local;
    // A commit `dir` does not hold has no date to start from: the whole history at once.
    const since = (await commitTime(dir, commit, ctx)) - CLOCK_SLACK_S;
    let reached = false;
    if (since > 0) {
      ctx.progress(history);
      await fetchCommits([`--shallow-since=@${since}`]);
      reached = await reaches(ctx, scratch, head, commit);
    }
    // Not reached among the commits since then (or none was since then: nothing fetched), or never tried.
    if (!reached && (since <= 0 || (await isShallow(scratch, ctx)) || !(await hasCommit(scratch, head, ctx)))) {
      ctx.progress(`${history}${since > 0 ? " (all of it)" : ""}`);
      await fetchCommits((await isShallow(scratch, ctx)) ? ["--unshallow"] : []);
      reached = await reaches(ctx, scratch, head, commit);
    }
    const tip = from ?? (await refTip(target, ctx, scratch));
    return { reached, ...(tip ? { tip } : {}) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
    finishTempClone(scratch);
  }
}

/**
 * Whether `commit` is `ancestor` or descends from it: told by the repository in `dir` when it holds
 * `ancestor`, else from `commit`'s history on the remote (inRefHistory). A shallow repository (a first copy
 * is one) lacks the history below its boundary, so only its yes is trusted: its no is asked of the remote.
 */
export async function descendsFrom(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  ancestor: string,
  commit: string,
): Promise<boolean> {
  if (ancestor === commit) return true;
  const held = await hasCommit(dir, ancestor, ctx);
  if (held && (await reaches(ctx, dir, commit, ancestor))) return true;
  if (held && !(await isShallow(dir, ctx))) return false;
  return (await inRefHistory(target, ctx, dir, ancestor, commit)).reached;
}

/** GIT_COMMIT_NOT_IN_REF: the lock's `commit` is neither in the ref's history nor in the copy's record of it. */
function notInRef(target: RepoTarget, commit: string): GitError {
  const moved = target.ref ? "the tag moved" : "the branch was force-pushed";
  const ref = namedRef(target);
  return new GitError(
    "GIT_COMMIT_NOT_IN_REF",
    `commit ${commit.slice(0, 12)} recorded in skillhub.lock is not in the history of ${ref} of ${target.spec.url} (a commit from a fork, or ${moved}): review it, then run \`${updateCommand(target)}\` to lock the current ${ref}.`,
    { details: { url: target.spec.url, ref: refOf(target), commit } },
  );
}

/**
 * After inRefHistory found `commit` in the ref's history: the copy's record of the ref (refNames' local ref)
 * is made to reach it, when it does not yet (a first copy, a lock newer than the copy's last fetch), so
 * that an offline sync, or one after a force-push, takes it too (reachedUnread, keptByRecord).
 */
async function recordReaching(target: RepoTarget, ctx: SyncContext, dir: string, commit: string): Promise<void> {
  if (await reachedByRef(target, ctx, dir, commit)) return;
  const [, local] = refNames(target);
  const out = await ctx.git.run(["update-ref", "--no-deref", local, commit], { cwd: dir });
  if (out.code !== 0) throw new GitError("GIT_FAILED", `git update-ref failed in ${dir}: ${out.stderr.trim()}.`);
}

/**
 * Whether `commit` is in the history of the configured branch or tag as last fetched into `dir` (the copy's
 * record of it).
 */
export async function reachedByRef(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  commit: string,
): Promise<boolean> {
  const [, local] = refNames(target);
  return reaches(ctx, dir, local, commit);
}

/** Whether `tip` (a ref or object naming a commit, or a tag of one) is `commit` or has it in its history. */
export async function reaches(
  ctx: Pick<SyncContext, "git">,
  dir: string,
  tip: string,
  commit: string,
): Promise<boolean> {
  const out = await ctx.git.run(["merge-base", "--is-ancestor", commit, `${tip}^{commit}`], { cwd: dir });
  return out.code === 0;
}

/**
 * The copy's record of the configured branch or tag (refNames' local ref, as SkillHub last fetched it): its
 * object, or undefined when there is none. Read before a fetch overwrites it (keptByRecord).
 */
export async function recordOf(target: RepoTarget, ctx: SyncContext, dir: string): Promise<string | undefined> {
  const [, local] = refNames(target);
  const out = await ctx.git.run(["rev-parse", "--verify", "--quiet", local], { cwd: dir });
  const id = out.stdout.trim();
  return out.code === 0 && FULL_COMMIT.test(id) ? id : undefined;
}

/**
 * Whether the copy's `record` of the branch or tag from before this sync's fetch reaches `commit`, although
 * the branch or tag as fetched now does not: it was force-pushed, or the tag moved, away from it. Such a
 * commit is still served (a locked one, the copy's own): it was in the ref's history when it was reviewed,
 * and the lock moves only with `skillhub sync --update`. The record is then put back, so that the next sync
 * (and an offline one, reachedUnread) decides the same until the lock moves.
 *
 * Security: the record is written only by fetching the ref from the configured URL (fetchRef), or put back
 * here to what such a fetch wrote: a fork's commit, fetched by its hash alone, is never in its history. A
 * first copy has no record: a commit its branch or tag does not reach now is refused there, as a fork's.
 */
export async function keptByRecord(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  commit: string,
  record: string | undefined,
): Promise<boolean> {
  if (!record || !(await reaches(ctx, dir, record, commit))) return false;
  await putBackRecord(target, ctx, dir, record);
  return true;
}

/**
 * Put the copy's record of the branch or tag back to `record`, as it was before this sync's fetch (recordOf),
 * or remove it when there was none. Security: a fetched tip that is refused (an unsigned commit, a rollback)
 * is not left as the record, which would make it what the branch reached (keptByRecord, reachedUnread): a
 * later frozen sync would then find the lock's commit outside that history and drop the locked copy.
 */
export async function putBackRecord(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  record: string | undefined,
): Promise<void> {
  const [, local] = refNames(target);
  const args = record ? ["update-ref", "--no-deref", local, record] : ["update-ref", "--no-deref", "-d", local];
  const out = await ctx.git.run(args, { cwd: dir });
  if (out.code !== 0) throw new GitError("GIT_FAILED", `git update-ref failed in ${dir}: ${out.stderr.trim()}.`);
}

/** Where the configured ref is fetched from, and kept in the copy: the tag, else the branch's remote-tracking ref. */
function refNames(target: RepoTarget): [source: string, local: string] {
  return target.ref
    ? [`refs/tags/${target.ref}`, `refs/tags/${target.ref}`]
    : [`refs/heads/${target.branch}`, `refs/remotes/origin/${target.branch}`];
}

/**
 * Fetch the configured branch or tag into its local ref (refNames), with `deepen` (--depth,
 * --shallow-since, --unshallow) saying how much of its history. Throws GitError.
 */
async function fetchRef(target: RepoTarget, ctx: FetchContext, dir: string, deepen: readonly string[]): Promise<void> {
  const [source, local] = refNames(target);
  const out = await ctx.limit.fetch(
    ["fetch", "--no-tags", "--quiet", ...deepen, target.spec.url, `+${source}:${local}`],
    remoteOptions(ctx, dir),
  );
  if (out.code === 0) return;
  // --shallow-since later than the ref's last commit: there was nothing to fetch.
  if (NOTHING_SINCE.test(out.stderr)) return;
  if (target.ref && MISSING_OBJECT.test(out.stderr))
    throw new GitError(
      "GIT_REF_NOT_FOUND",
      `tag '${target.ref}' (SKILLS_REF / git.ref) does not exist in ${target.spec.url}; pin an existing tag or a full commit hash.`,
      { details: { url: target.spec.url, ref: target.ref } },
    );
  const error = failure(target, ctx, out, refOf(target));
  if (error.code === "GIT_BRANCH_NOT_FOUND") throw (await withDefaultBranch(error, target, ctx, dir)) ?? error;
  throw error;
}

/** The commit the configured ref names in `dir`, once fetched. */
async function tipOf(target: RepoTarget, ctx: SyncContext, dir: string): Promise<string> {
  const tip = await refTip(target, ctx, dir);
  if (!tip) throw new GitError("GIT_FAILED", `${refNames(target)[0]} of ${target.spec.url} is not a commit.`);
  return tip;
}

/** The commit the configured ref names in `dir` as last fetched, or undefined when it names none. */
async function refTip(target: RepoTarget, ctx: SyncContext, dir: string): Promise<string | undefined> {
  const [, local] = refNames(target);
  const tip = (
    await ctx.git.run(["rev-parse", "--verify", "--quiet", `${local}^{commit}`], { cwd: dir })
  ).stdout.trim();
  return FULL_COMMIT.test(tip) ? tip : undefined;
}

/** git's words when a wanted ref or object is not on the server. */
const MISSING_OBJECT =
  /couldn't find remote ref|not our ref|no such remote ref|unadvertised object|remote error: upload-pack/i;

/** git's words when --shallow-since selects none of a ref's commits (all are older). */
const NOTHING_SINCE = /no commits selected for shallow requests/i;

function failure(target: RepoTarget, ctx: SyncContext, out: GitOutput, ref: string): GitError {
  return classifyFailure({
    url: target.spec.url,
    branch: ref,
    withCredentials: ctx.auth.config.length > 0,
    stderr: out.stderr,
    timedOut: out.timedOut,
    timeoutMs: ctx.timeoutMs,
  });
}

/**
 * A missing branch, said with the branch the repository does have by default (many still call it
 * `master`), else the ones it has, so the fix is one setting (a tag named as the branch: pin it instead); a
 * repository with no branch at all is empty, which no setting fixes. One `git ls-remote`; undefined when that says nothing better.
 */
async function withDefaultBranch(
  error: GitError,
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
): Promise<GitError | undefined> {
  const out = await ctx.git.run(
    ["ls-remote", "--symref", target.spec.url, "HEAD", "refs/heads/*", "refs/tags/*"],
    remoteOptions(ctx, dir),
  );
  if (out.code !== 0) return undefined;
  const named = (kind: string) =>
    [...out.stdout.matchAll(new RegExp(`^[0-9a-f]{40,64}\trefs/${kind}/(\\S+)$`, "gm"))]
      .map((m) => m[1] as string)
      .filter((name) => !name.endsWith("^{}"));
  const branches = named("heads");
  const tags = named("tags");
  const some = (names: string[]) =>
    names
      .slice(0, 5)
      .map((name) => `'${name}'`)
      .join(", ");
  // A tag given as the branch (SKILLS_BRANCH, or a frozen sync taking a pinned lock's ref for one).
  if (!branches.includes(target.branch) && tags.includes(target.branch))
    return new GitError(
      "GIT_BRANCH_NOT_FOUND",
      `'${target.branch}' is a tag of ${target.spec.url}, not a branch: pin it as the ref, \`ref: ${target.branch}\` in its entry (in place of any \`branch:\`) or SKILLS_REF=${target.branch}.`,
      { details: { ...error.details, tag: target.branch } },
    );
  if (branches.length === 0 && tags.length > 0)
    return new GitError(
      "GIT_BRANCH_NOT_FOUND",
      `${target.spec.url} has no branch, only tags (${some(tags)}): pin one with SKILLS_REF (or \`ref:\` in its entry).`,
      { details: { ...error.details, tags: tags.slice(0, 5) } },
    );
  if (branches.length === 0)
    return new GitError(
      "GIT_BRANCH_NOT_FOUND",
      `${target.spec.url} has no branch yet (an empty repository): push a first commit of skills to it, then sync again.`,
      { details: { ...error.details, empty: true } },
    );
  const head = remoteHeadBranch(out.stdout) ?? (branches.length === 1 ? branches[0] : undefined);
  const set = (branch: string) =>
    `set SKILLS_BRANCH=${branch} (or \`branch: ${branch}\` in its entry, or git.branch in config.yaml)`;
  if (head && head !== target.branch)
    return new GitError(
      "GIT_BRANCH_NOT_FOUND",
      `branch '${target.branch}' does not exist in ${target.spec.url}, whose default branch is '${head}'; ${set(head)}.`,
      { details: { ...error.details, default_branch: head } },
    );
  if (head) return undefined;
  return new GitError(
    "GIT_BRANCH_NOT_FOUND",
    `branch '${target.branch}' does not exist in ${target.spec.url}, whose branches include ${some(branches)}; ${set(branches[0] as string)}, or another of them.`,
    { details: { ...error.details, branches: branches.slice(0, 5) } },
  );
}

/** How git talks to the remote for `dir`'s copy: the repository's credentials, its time limit. */
function remoteOptions(ctx: SyncContext, dir: string) {
  return { cwd: dir, config: ctx.auth.config, env: ctx.auth.env, secrets: ctx.auth.secrets, timeoutMs: ctx.timeoutMs };
}

/** Whether the repository in `dir` holds `commit` (a commit, or a tag of one). */
export async function hasCommit(dir: string, commit: string, ctx: Pick<SyncContext, "git">): Promise<boolean> {
  const out = await ctx.git.run(["cat-file", "-e", `${commit}^{commit}`], { cwd: dir });
  return out.code === 0;
}

/** The committer time of `commit` in `dir`, in seconds since 1970 (0 when git cannot say). */
async function commitTime(dir: string, commit: string, ctx: SyncContext): Promise<number> {
  const out = await ctx.git.run(["show", "--no-patch", "--format=%ct", commit], { cwd: dir });
  return Number.parseInt(out.stdout.trim(), 10) || 0;
}

/** Whether the repository in `dir` lacks part of some history (a copy made with --depth or --shallow-since). */
export async function isShallow(dir: string, ctx: Pick<SyncContext, "git">): Promise<boolean> {
  const out = await ctx.git.run(["rev-parse", "--is-shallow-repository"], { cwd: dir });
  return out.stdout.trim() !== "false";
}
