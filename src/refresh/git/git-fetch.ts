import { classifyFailure, GitError } from "./git-errors.ts";
import type { GitOutput } from "./git-runner.ts";
import {
  FULL_COMMIT,
  type RepoTarget,
  refOf,
  remoteHeadBranch,
  type SyncContext,
  type SyncWant,
} from "./git-target.ts";

/**
 * Fetch what the copy should serve into `dir` and return its commit: the
 * wanted commit (no network when it is already there), the pinned commit or
 * tag, or the branch tip.
 */
export async function fetchWanted(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  want: SyncWant,
  shallow: boolean,
): Promise<string> {
  const depth = shallow ? ["--depth", "1"] : [];
  const commit = want.commit ?? (target.ref && FULL_COMMIT.test(target.ref) ? target.ref : undefined);
  if (commit) {
    if (await hasCommit(dir, commit, ctx)) return commit;
    ctx.progress(`fetching ${target.spec.url} (commit ${commit.slice(0, 12)})`);
    const out = await ctx.git.run(
      ["fetch", "--no-tags", "--quiet", ...depth, target.spec.url, commit],
      remoteOptions(ctx, dir),
    );
    if (out.code !== 0) {
      if (MISSING_OBJECT.test(out.stderr)) {
        const why = want.commit
          ? `commit ${commit.slice(0, 12)} recorded in skillhub.lock is not in ${target.spec.url} any more (force-pushed or deleted?); review the repository, then run \`skillhub sync --update\` to lock its current state.`
          : `commit ${commit} (SKILLS_REF / git.ref) is not in ${target.spec.url}; check the hash.`;
        throw new GitError("GIT_REF_NOT_FOUND", why, { details: { url: target.spec.url, commit } });
      }
      throw failure(target, ctx, out, commit);
    }
    if (!(await hasCommit(dir, commit, ctx)))
      throw new GitError("GIT_REF_NOT_FOUND", `${target.spec.url} did not send commit ${commit}.`);
    return commit;
  }
  const [source, local_] = target.ref
    ? [`refs/tags/${target.ref}`, `refs/tags/${target.ref}`]
    : [`refs/heads/${target.branch}`, `refs/remotes/origin/${target.branch}`];
  ctx.progress(`fetching ${target.spec.url} (${refOf(target)})`);
  // Not --depth on an existing copy: the server sends only the commits since the last sync, and their ancestry stays known.
  const out = await ctx.git.run(
    ["fetch", "--no-tags", "--quiet", ...depth, target.spec.url, `+${source}:${local_}`],
    remoteOptions(ctx, dir),
  );
  if (out.code !== 0) {
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
  const tip = (
    await ctx.git.run(["rev-parse", "--verify", "--quiet", `${local_}^{commit}`], { cwd: dir })
  ).stdout.trim();
  if (!FULL_COMMIT.test(tip)) throw new GitError("GIT_FAILED", `${source} of ${target.spec.url} is not a commit.`);
  return tip;
}

/** git's words when a wanted ref or object is not on the server. */
const MISSING_OBJECT =
  /couldn't find remote ref|not our ref|no such remote ref|unadvertised object|remote error: upload-pack/i;

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
 * `master`), else the ones it has, so the fix is one setting; a repository with no branch at all is
 * empty, which no setting fixes. One `git ls-remote`; undefined when that says nothing better.
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

async function hasCommit(dir: string, commit: string, ctx: SyncContext): Promise<boolean> {
  const out = await ctx.git.run(["cat-file", "-e", `${commit}^{commit}`], { cwd: dir });
  return out.code === 0;
}
