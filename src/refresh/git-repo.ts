import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { RepoAuth } from "./git-auth.ts";
import { classifyFailure, GitError, gitMessage } from "./git-errors.ts";
import { finishTempClone, tempCloneDir } from "./git-leftovers.ts";
import type { GitOutput, GitRunner } from "./git-runner.ts";
import type { RepoSpec } from "./git-url.ts";

/** One configured repository and where its copy lives. */
export interface RepoTarget {
  spec: RepoSpec;
  /** Source label (the repository's name, made unique). */
  label: string;
  /** `<home>/repos/<slug>`. */
  dir: string;
  branch: string;
  /** A pinned tag or full commit hash (SKILLS_REF / git.ref); unset = follow `branch`. */
  ref?: string;
}

/** What this sync must bring the copy to, beyond the target's own ref. */
export interface SyncWant {
  /** Stay at (or go back to) this commit: the lock's, for a pinned source or in frozen mode. */
  commit?: string;
  /** SSH allowed-signers file: the commit checked out must be signed by a key it lists. */
  allowedSigners?: string;
}

export interface RepoSyncResult {
  commit: string;
  previous: string | null;
  changed: boolean;
  filesChanged: number;
  cloned: boolean;
  /** Local changes or local commits were discarded. */
  warnings: string[];
}

/** What the last successful sync left behind, in `.git/skillhub-sync.json` (no credentials). */
export interface RepoState {
  url: string;
  branch: string;
  /** The pinned tag or commit, when one is configured. */
  ref?: string;
  commit: string;
  last_sync: string;
}

export interface SyncContext {
  git: GitRunner;
  auth: RepoAuth;
  now: () => number;
  progress: (line: string) => void;
  /** Network commands are killed after this long. */
  timeoutMs: number;
}

/** A full commit hash (SHA-1 or SHA-256): a ref that names a commit rather than a tag. */
export const FULL_COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The ref a copy follows, as the lock records it: the pinned tag or commit, else the branch. */
export function refOf(target: RepoTarget): string {
  return target.ref ?? target.branch;
}

/**
 * Bring one local copy to the commit it should serve: the remote branch's tip,
 * or the pinned tag or commit, or `want.commit` (the lock's). A first sync
 * clones (shallow); later ones fetch. The copy is a cache: local edits or
 * commits are discarded (with a warning) so that it always equals the remote.
 * With `want.allowedSigners`, a commit not signed by a listed key is refused
 * and the copy keeps its last good checkout. Throws GitError.
 */
export async function syncRepo(target: RepoTarget, ctx: SyncContext, want: SyncWant = {}): Promise<RepoSyncResult> {
  const previous = existsSync(join(target.dir, ".git")) ? await head(target.dir, ctx) : null;
  const warnings: string[] = [];
  if (previous === null && existsSync(target.dir)) {
    warnings.push(`${target.dir} was not a usable git copy; it was removed and cloned again.`);
    await removeCopy(target.dir);
  }
  if (previous === null) return clone(target, ctx, want, warnings);

  const tip = await fetchWanted(target, ctx, target.dir, want, false);
  await verifySigned(target, ctx, target.dir, tip, want);
  const following = !target.ref && !want.commit;
  const branch = target.branch;
  const dirty = (await local(target, ctx, ["status", "--porcelain"])).trim() !== "";
  const current = (
    await ctx.git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: target.dir })
  ).stdout.trim();
  const placed = following ? current === branch : current === "";
  if (tip === previous && !dirty && placed) {
    writeState(target, tip, ctx.now);
    return { commit: tip, previous, changed: false, filesChanged: 0, cloned: false, warnings };
  }
  const fastForward =
    tip === previous ||
    (await ctx.git.run(["merge-base", "--is-ancestor", previous, tip], { cwd: target.dir })).code === 0;
  if (dirty)
    warnings.push(
      `local changes in ${target.dir} were discarded: it is a cache of ${target.spec.url}, change the repository instead.`,
    );
  if (following && !fastForward)
    warnings.push(
      `the copy in ${target.dir} had commits that are not on ${target.spec.url} (${branch}), e.g. after a force-push; it was reset to the remote.`,
    );
  if (following && fastForward && !dirty && placed) {
    await local(target, ctx, ["merge", "--ff-only", "--quiet", tip]);
  } else {
    // A pinned tag or commit is checked out detached: nothing may move it but a new pin.
    await local(target, ctx, ["checkout", "--quiet", "--force", ...(following ? ["-B", branch] : ["--detach"]), tip]);
    if (dirty) await local(target, ctx, ["clean", "-ffdq"]);
  }
  const commit = await head(target.dir, ctx);
  if (commit === null)
    throw new GitError(
      "GIT_FAILED",
      `the copy in ${target.dir} has no commit after the update; delete it and sync again.`,
    );
  const filesChanged =
    commit === previous
      ? 0
      : countLines(await local(target, ctx, ["diff", "--name-only", "-z", previous, commit]), "\0");
  writeState(target, commit, ctx.now);
  return { commit, previous, changed: commit !== previous, filesChanged, cloned: false, warnings };
}

async function clone(
  target: RepoTarget,
  ctx: SyncContext,
  want: SyncWant,
  warnings: string[],
): Promise<RepoSyncResult> {
  const parent = dirname(target.dir);
  mkdirSync(parent, { recursive: true });
  // Clone beside the final folder and rename: an interrupted clone never looks like a copy (git-leftovers.ts).
  const temp = tempCloneDir(parent, target.spec.slug, ctx.now());
  ctx.progress(`cloning ${target.spec.url} (${want.commit?.slice(0, 12) ?? refOf(target)}) into ${target.dir}`);
  try {
    // init + fetch of exactly one commit (shallow) + checkout: the same for a branch, a tag and a commit.
    await local({ ...target, dir: temp }, ctx, ["init", "--quiet", temp], parent);
    // As `git clone` would: origin is the URL without credentials (tools and people look for it).
    await local({ ...target, dir: temp }, ctx, ["remote", "add", "origin", target.spec.url], temp);
    const tip = await fetchWanted(target, ctx, temp, want, true);
    // Security: an unsigned or wrongly signed commit never becomes a copy.
    await verifySigned(target, ctx, temp, tip, want);
    const following = !target.ref && !want.commit;
    await local({ ...target, dir: temp }, ctx, [
      "checkout",
      "--quiet",
      "--force",
      ...(following ? ["-B", target.branch] : ["--detach"]),
      tip,
    ]);
    await rename(temp, target.dir).catch((error) => {
      // Another SkillHub (one per MCP client) cloned it a moment earlier: use that copy.
      if (!existsSync(join(target.dir, ".git"))) throw error;
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
    finishTempClone(temp);
  }
  const commit = await head(target.dir, ctx);
  if (commit === null)
    throw new GitError("GIT_FAILED", `the clone of ${target.spec.url} has no commit on ${refOf(target)}.`);
  const files = countLines(await local(target, ctx, ["ls-files", "-z"]), "\0");
  writeState(target, commit, ctx.now);
  return { commit, previous: null, changed: true, filesChanged: files, cloned: true, warnings };
}

/**
 * Fetch what the copy should serve into `dir` and return its commit: the
 * wanted commit (no network when it is already there), the pinned commit or
 * tag, or the branch tip.
 */
async function fetchWanted(
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
    const out = await ctx.git.run(["fetch", "--no-tags", "--quiet", ...depth, target.spec.url, commit], {
      cwd: dir,
      config: ctx.auth.config,
      secrets: ctx.auth.secrets,
      timeoutMs: ctx.timeoutMs,
    });
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
  const out = await ctx.git.run(["fetch", "--no-tags", "--quiet", ...depth, target.spec.url, `+${source}:${local_}`], {
    cwd: dir,
    config: ctx.auth.config,
    secrets: ctx.auth.secrets,
    timeoutMs: ctx.timeoutMs,
  });
  if (out.code !== 0) {
    if (target.ref && MISSING_OBJECT.test(out.stderr))
      throw new GitError(
        "GIT_REF_NOT_FOUND",
        `tag '${target.ref}' (SKILLS_REF / git.ref) does not exist in ${target.spec.url}; pin an existing tag or a full commit hash.`,
        { details: { url: target.spec.url, ref: target.ref } },
      );
    throw failure(target, ctx, out, refOf(target));
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

/**
 * Security (trust.allowed_signers): the commit must carry an SSH signature by
 * a key of the allowed-signers file. `git verify-commit` does the check, with
 * gpg.format=ssh and that file; any failure refuses the commit.
 */
async function verifySigned(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  commit: string,
  want: SyncWant,
): Promise<void> {
  const signers = want.allowedSigners;
  if (!signers) return;
  if (!existsSync(signers))
    throw new GitError(
      "GIT_SIGNATURE_INVALID",
      `the allowed-signers file ${signers} (trust.allowed_signers) does not exist, so no commit of ${target.spec.url} can be trusted; fix the path. The last good checkout is kept.`,
    );
  const out = await ctx.git.run(
    ["-c", "gpg.format=ssh", "-c", `gpg.ssh.allowedSignersFile=${resolve(signers)}`, "verify-commit", commit],
    { cwd: dir },
  );
  if (out.code === 0) return;
  const raw = await ctx.git.run(["cat-file", "commit", commit], { cwd: dir });
  const why = !/^gpgsig(-sha256)? /m.test(raw.stdout)
    ? "it is not signed"
    : `its signature is not by a key in ${signers} (${gitMessage(out.stderr) || `exit ${out.code}`})`;
  throw new GitError(
    "GIT_SIGNATURE_INVALID",
    `refused commit ${commit.slice(0, 12)} of ${target.spec.url}: ${why}. trust.allowed_signers accepts only commits signed by a listed key; the last good checkout is kept.`,
    { details: { url: target.spec.url, commit } },
  );
}

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

async function hasCommit(dir: string, commit: string, ctx: SyncContext): Promise<boolean> {
  const out = await ctx.git.run(["cat-file", "-e", `${commit}^{commit}`], { cwd: dir });
  return out.code === 0;
}

/** A local command that must succeed. */
async function local(target: RepoTarget, ctx: SyncContext, args: string[], cwd = target.dir): Promise<string> {
  const out = await ctx.git.run(args, { cwd, secrets: ctx.auth.secrets });
  if (out.timedOut)
    throw new GitError(
      "GIT_TIMEOUT",
      `git ${args[0]} gave no answer within ${Math.round(ctx.timeoutMs / 1000)} s in ${cwd}; the next refresh tries again.`,
    );
  if (out.code !== 0)
    throw new GitError(
      "GIT_FAILED",
      `git ${args[0]} failed in ${target.dir}: ${gitMessage(out.stderr) || `exit ${out.code}`}.`,
    );
  return out.stdout;
}

/** The commit checked out in `dir`, or null. */
export async function head(dir: string, ctx: Pick<SyncContext, "git">): Promise<string | null> {
  const out = await ctx.git.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: dir });
  const hash = out.stdout.trim();
  return out.code === 0 && /^[0-9a-f]{40,64}$/.test(hash) ? hash : null;
}

function countLines(text: string, separator: string): number {
  return text.split(separator).filter((s) => s !== "").length;
}

/** Security: only ever delete a folder that is inside the repos folder. */
async function removeCopy(dir: string): Promise<void> {
  const root = resolve(dirname(dir));
  const rel = relative(root, resolve(dir));
  if (rel === "" || rel.startsWith("..") || rel.includes(sep))
    throw new GitError("GIT_FAILED", `refusing to remove ${dir}: not a repository copy.`);
  await rm(dir, { recursive: true, force: true });
}

function stateFile(dir: string): string {
  return join(dir, ".git", "skillhub-sync.json");
}

function writeState(target: RepoTarget, commit: string, now: () => number): void {
  const state: RepoState = {
    url: target.spec.url,
    branch: target.branch,
    ...(target.ref ? { ref: target.ref } : {}),
    commit,
    last_sync: new Date(now()).toISOString(),
  };
  try {
    writeFileSync(stateFile(target.dir), `${JSON.stringify(state, null, 2)}\n`);
  } catch {
    // Only `doctor` and last_sync after a restart read it.
  }
}

/** The state of the last successful sync of a copy, if any. */
export function readState(dir: string): RepoState | undefined {
  try {
    const value = JSON.parse(readFileSync(stateFile(dir), "utf8")) as RepoState;
    return typeof value.commit === "string" && typeof value.last_sync === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
