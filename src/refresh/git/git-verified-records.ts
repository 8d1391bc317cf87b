import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { gitFilesProblem } from "./git-copy-guard.ts";
import { GitError } from "./git-errors.ts";
import { descendsFrom, recordOf } from "./git-fetch.ts";
import { readState } from "./git-state.ts";
import {
  FULL_COMMIT,
  namedRef,
  type RepoTarget,
  refOf,
  type SyncContext,
  type SyncWant,
  updateCommand,
} from "./git-target.ts";
import { verifySigned } from "./git-trust.ts";
import { sameRepository } from "./git-url.ts";

/**
 * trust.allowed_signers: no lock takes a repository back behind what this machine has verified.
 *
 * Each copy keeps its record of the branch or tag it follows (recordOf: `refs/remotes/origin/<branch>`,
 * `refs/tags/<tag>`), which a sync moves only to a commit it fetched from the configured URL and, with
 * allowed signers, verified: a refused tip is put back (git-fetch.ts's putBackRecord). The records of every
 * copy of a repository on this machine, one per lock that pins it (repo-targets.ts), say the newest commits
 * of its branch or tag this machine has verified.
 */

/**
 * With allowed signers, refuse (GIT_HISTORY_REWRITTEN) to check out `commit`, the lock's for `target` (frozen,
 * or a pinned tag: `want.commit`) or, for a first copy (`firstCopy`), the tip its branch or tag has now, when
 * it is older than a commit of the same branch or tag this machine has verified (olderThanVerified, with
 * `ownRecord`): a project's first copy no more takes a branch force-pushed back than a copy does. An existing
 * copy's tip is measured against that copy (git-repo.ts's rewritten, requireAfter) alone: what it took with
 * `skillhub sync --update` stays taken, and its background syncs ask the remote nothing more.
 * `skillhub sync --update` (`want.rewrite`) accepts it instead. A full commit hash configured as the ref is
 * the user's own pin, whatever the lock says, and is not held back.
 */
export async function requireNotBehindVerified(
  target: RepoTarget,
  ctx: SyncContext,
  want: SyncWant,
  commit: string,
  { ownRecord, firstCopy = false }: { ownRecord?: string; firstCopy?: boolean } = {},
): Promise<void> {
  if (!want.allowedSigners || want.rewrite || (target.ref && FULL_COMMIT.test(target.ref))) return;
  if (want.commit === undefined && !firstCopy) return;
  const newer = await olderThanVerified(target, ctx, commit, want.allowedSigners, ownRecord);
  if (newer) throw want.commit === undefined ? movedBack(target, commit, newer) : behindVerified(target, commit, newer);
}

/**
 * A commit of `target`'s branch or tag that this machine has verified and that descends from `commit` (the
 * first found), with the copy whose record it is; undefined when `commit` is older than none. Records not
 * signed by a key of `signers` now (a copy synced before the setting, a key since retired) count for
 * nothing. Told by each record's own copy, else by the remote (descendsFrom): a question the remote
 * cannot answer throws GitError, so that nothing is taken that may be a rollback. `ownRecord` is the target's
 * own copy's record as it was before this sync's fetch (recordOf): the fetch of a lock's commit makes the
 * record reach it (git-fetch.ts's recordReaching), which in a shallow copy may move it back.
 *
 * Security: the copies of one repository are kept per lock (one per project), so a project you clone
 * gets a new copy, whose lock the project chose: measured against that copy alone, its lock could check
 * out any older signed commit of the branch (a skill since fixed), which every signature check passes.
 */
export async function olderThanVerified(
  target: RepoTarget,
  ctx: SyncContext,
  commit: string,
  signers: string,
  ownRecord?: string,
): Promise<{ commit: string; copy: string } | undefined> {
  for (const copy of sameRefCopies(target)) {
    // Security: git is not started on a copy whose .git holds what it must not (git-copy-guard.ts).
    if (gitFilesProblem(copy) !== undefined) continue;
    const record = copy === target.dir && ownRecord !== undefined ? ownRecord : await recordOf(target, ctx, copy);
    if (record === undefined || record === commit) continue;
    try {
      await verifySigned(target, ctx, copy, record, signers);
    } catch (error) {
      if (error instanceof GitError && error.code === "GIT_SIGNATURE_INVALID") continue;
      throw error;
    }
    const pair = `${commit}:${record}`;
    if (ctx.notOlder?.has(pair)) continue;
    if (await descendsFrom(target, ctx, copy, commit, record).catch((error) => untold(target, copy, record, error)))
      return { commit: record, copy };
    if ((ctx.notOlder?.size ?? 0) >= 10_000) ctx.notOlder?.clear();
    ctx.notOlder?.add(pair);
  }
  return undefined;
}

/**
 * Rethrow `error`, a failure to tell from the remote whether `record` (the record of `copy`) descends from the
 * commit wanted, saying what it was asked and what the user can do: the remote may no longer have `record`
 * (the branch rewritten and its old commits pruned).
 */
function untold(target: RepoTarget, copy: string, record: string, error: unknown): never {
  if (!(error instanceof GitError)) throw error;
  throw new GitError(
    error.code,
    `whether ${refOf(target)} of ${target.spec.url} went back behind commit ${record.slice(0, 12)}, which this machine has verified for it (in ${copy}), cannot be told: ${error.message.replace(/\.$/, "")}; if the ${target.ref ? "tag" : "branch"} was rewritten, review it, then run \`${updateCommand(target)}\` to accept it.`,
    { details: { ...error.details, verified: copy, previous: record } },
  );
}

/**
 * The refusal (GIT_HISTORY_REWRITTEN) of the lock's `commit`, older than `newer`, a commit of the same
 * branch or tag this machine has verified (olderThanVerified). Its details name that copy (`verified`).
 */
function behindVerified(target: RepoTarget, commit: string, newer: { commit: string; copy: string }): GitError {
  const ref = namedRef(target);
  return new GitError(
    "GIT_HISTORY_REWRITTEN",
    `commit ${commit.slice(0, 12)} recorded in skillhub.lock for ${ref} of ${target.spec.url} is older than commit ${newer.commit.slice(0, 12)}, which this machine has already verified for it (in ${newer.copy}), and trust.allowed_signers lets a lock only go forward, so it is not checked out; review the ${target.ref ? "tag" : "branch"}, then run \`${updateCommand(target)}\` to move the lock forward.`,
    { details: { url: target.spec.url, commit, previous: newer.commit, verified: newer.copy } },
  );
}

/**
 * The refusal (GIT_HISTORY_REWRITTEN) of the tip `commit` of `target`'s branch or tag, older than `newer`, a
 * commit of it this machine has verified (olderThanVerified): it was moved back. Its details name that copy.
 */
function movedBack(target: RepoTarget, commit: string, newer: { commit: string; copy: string }): GitError {
  const ref = namedRef(target);
  return new GitError(
    "GIT_HISTORY_REWRITTEN",
    `${ref} of ${target.spec.url} is now at commit ${commit.slice(0, 12)}, which is older than commit ${newer.commit.slice(0, 12)}, which this machine has already verified for it (in ${newer.copy}): it was moved back (force-pushed), so it is not taken; if that was deliberate, review the ${target.ref ? "tag" : "branch"}, then run \`${updateCommand(target)}\` to accept it.`,
    { details: { url: target.spec.url, commit, previous: newer.commit, verified: newer.copy } },
  );
}

/**
 * The copies of `target`'s repository (however their URLs spell it: sameRepository) in its repos folder (the
 * target's own included) whose last sync followed the same branch, or pinned the same tag, by their state
 * (git-state.ts). Unfinished clones and scratch repositories (`.…`) and sync locks (`….lock`) are not copies.
 */
function sameRefCopies(target: RepoTarget): string[] {
  const repos = dirname(target.dir);
  let names: string[];
  try {
    names = readdirSync(repos);
  } catch {
    return [];
  }
  return names
    .filter((name) => !name.startsWith(".") && !name.endsWith(".lock"))
    .sort()
    .map((name) => join(repos, name))
    .filter((copy) => {
      const state = readState(copy);
      if (typeof state?.url !== "string" || !sameRepository(state.url, target.spec.url)) return false;
      return target.ref !== undefined
        ? state.ref === target.ref
        : state.ref === undefined && state.branch === target.branch;
    });
}
