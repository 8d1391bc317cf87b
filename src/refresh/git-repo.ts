import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { RepoAuth } from "./git-auth.ts";
import { classifyFailure, GitError, gitMessage } from "./git-errors.ts";
import { finishTempClone, tempCloneDir } from "./git-leftovers.ts";
import type { GitRunner } from "./git-runner.ts";
import type { RepoSpec } from "./git-url.ts";

/** One configured repository and where its copy lives. */
export interface RepoTarget {
  spec: RepoSpec;
  /** Source label (the repository's name, made unique). */
  label: string;
  /** `<home>/repos/<slug>`. */
  dir: string;
  branch: string;
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

/**
 * Bring one local copy to the remote branch's tip: a shallow clone the first
 * time, then fetch and fast-forward. The copy is a cache: local edits or
 * commits are discarded (with a warning) so that it always equals the remote.
 * Throws GitError.
 */
export async function syncRepo(target: RepoTarget, ctx: SyncContext): Promise<RepoSyncResult> {
  const previous = existsSync(join(target.dir, ".git")) ? await head(target, ctx) : null;
  const warnings: string[] = [];
  if (previous === null && existsSync(target.dir)) {
    warnings.push(`${target.dir} was not a usable git copy; it was removed and cloned again.`);
    await removeCopy(target.dir);
  }
  if (previous === null) return clone(target, ctx, warnings);

  const branch = target.branch;
  const remoteRef = `refs/remotes/origin/${branch}`;
  ctx.progress(`fetching ${target.spec.url} (${branch})`);
  // Not --depth: the server sends only the commits since the last sync, and their ancestry stays known.
  await network(
    target,
    ctx,
    ["fetch", "--no-tags", "--quiet", target.spec.url, `+refs/heads/${branch}:${remoteRef}`],
    target.dir,
  );
  const tip = (await local(target, ctx, ["rev-parse", "--verify", `${remoteRef}^{commit}`])).trim();
  const dirty = (await local(target, ctx, ["status", "--porcelain"])).trim() !== "";
  const current = (
    await ctx.git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: target.dir })
  ).stdout.trim();
  if (tip === previous && !dirty && current === branch) {
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
  if (!fastForward)
    warnings.push(
      `the copy in ${target.dir} had commits that are not on ${target.spec.url} (${branch}), e.g. after a force-push; it was reset to the remote.`,
    );
  if (fastForward && !dirty && current === branch) {
    await local(target, ctx, ["merge", "--ff-only", "--quiet", tip]);
  } else {
    await local(target, ctx, ["checkout", "--quiet", "--force", "-B", branch, tip]);
    if (dirty) await local(target, ctx, ["clean", "-ffdq"]);
  }
  const commit = await head(target, ctx);
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

async function clone(target: RepoTarget, ctx: SyncContext, warnings: string[]): Promise<RepoSyncResult> {
  const parent = dirname(target.dir);
  mkdirSync(parent, { recursive: true });
  // Clone beside the final folder and rename: an interrupted clone never looks like a copy (git-leftovers.ts).
  const temp = tempCloneDir(parent, target.spec.slug, ctx.now());
  ctx.progress(`cloning ${target.spec.url} (${target.branch}) into ${target.dir}`);
  try {
    await network(target, ctx, [
      "clone",
      "--quiet",
      "--depth",
      "1",
      "--branch",
      target.branch,
      "--single-branch",
      "--no-tags",
      "--",
      target.spec.url,
      temp,
    ]);
    await rename(temp, target.dir).catch((error) => {
      // Another SkillHub (one per MCP client) cloned it a moment earlier: use that copy.
      if (!existsSync(join(target.dir, ".git"))) throw error;
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
    finishTempClone(temp);
  }
  const commit = await head(target, ctx);
  if (commit === null)
    throw new GitError("GIT_FAILED", `the clone of ${target.spec.url} has no commit on ${target.branch}.`);
  const files = countLines(await local(target, ctx, ["ls-files", "-z"]), "\0");
  writeState(target, commit, ctx.now);
  return { commit, previous: null, changed: true, filesChanged: files, cloned: true, warnings };
}

/** A command that talks to the remote: credentials, a timeout, and a classified failure. */
async function network(target: RepoTarget, ctx: SyncContext, args: string[], cwd?: string): Promise<void> {
  const out = await ctx.git.run(args, {
    cwd,
    config: ctx.auth.config,
    secrets: ctx.auth.secrets,
    timeoutMs: ctx.timeoutMs,
  });
  if (out.code === 0) return;
  throw classifyFailure({
    url: target.spec.url,
    branch: target.branch,
    withCredentials: ctx.auth.config.length > 0,
    stderr: out.stderr,
    timedOut: out.timedOut,
    timeoutMs: ctx.timeoutMs,
  });
}

/** A local command that must succeed. */
async function local(target: RepoTarget, ctx: SyncContext, args: string[]): Promise<string> {
  const out = await ctx.git.run(args, { cwd: target.dir, secrets: ctx.auth.secrets });
  if (out.code !== 0)
    throw new GitError(
      "GIT_FAILED",
      `git ${args[0]} failed in ${target.dir}: ${gitMessage(out.stderr) || `exit ${out.code}`}.`,
    );
  return out.stdout;
}

async function head(target: RepoTarget, ctx: SyncContext): Promise<string | null> {
  const out = await ctx.git.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: target.dir });
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
