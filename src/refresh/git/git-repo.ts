import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { shownNames } from "../../util/shown-arg.ts";
import { gitFilesProblem, settingsProblem, writeRawAttributes } from "./git-copy-guard.ts";
import { copyChanges } from "./git-discards.ts";
import { GitError, gitMessage } from "./git-errors.ts";
import {
  descendsFrom,
  type Fetched,
  fetchWanted,
  hasCommit,
  inRefHistory,
  isShallow,
  keptByRecord,
  putBackRecord,
  reaches,
  recordOf,
} from "./git-fetch.ts";
import { finishTempClone, tempCloneDir } from "./git-leftovers.ts";
import { foreignCopy } from "./git-origin.ts";
import { checkoutWithin, repackWhenMany } from "./git-size-limit.ts";
import { writeState } from "./git-state.ts";
import { type RepoTarget, refOf, type SyncContext, type SyncWant, updateCommand } from "./git-target.ts";
import { parseStage } from "./git-tree-check.ts";
import { type Differences, differencesFrom, pinnedToSigned, verifySigned } from "./git-trust.ts";
import { olderThanVerified, requireNotBehindVerified } from "./git-verified-records.ts";

export interface RepoSyncResult {
  commit: string;
  previous: string | null;
  changed: boolean;
  filesChanged: number;
  cloned: boolean;
  /**
   * The commit the configured branch or tag is at, as this sync read it from the remote, when that is not
   * `commit` (a copy kept at the lock's commit); undefined otherwise, or when it was not read.
   */
  refCommit?: string;
  /** Local changes or local commits were discarded. */
  warnings: string[];
}

/**
 * Bring one local copy to the commit it should serve: the remote branch's tip,
 * or the pinned tag or commit, or `want.commit` (the lock's). A first sync
 * clones (shallow); later ones fetch. The copy is a cache: local edits or
 * commits are discarded (with a warning) so that it always equals the remote.
 * With `want.allowedSigners`, a commit not signed by a listed key is refused
 * and the copy keeps its last verified checkout (keepVerified). Throws GitError.
 */
export async function syncRepo(target: RepoTarget, ctx: SyncContext, want: SyncWant = {}): Promise<RepoSyncResult> {
  const copy = existsSync(join(target.dir, ".git"));
  // Security: git is not let loose on a copy whose .git is not its own or holds a file git would wait on
  // (git-copy-guard.ts). That walk of .git is the sync's only one: what git does next is SkillHub's own.
  const files = copy ? gitFilesProblem(target.dir) : undefined;
  const previous = copy && files === undefined ? await checkedOut(target.dir, ctx) : null;
  const warnings: string[] = [];
  // Security: nor on one whose own config could make it run a program (git-copy-guard.ts), nor on one
  // that is not a copy of this repository, which no reader serves (git-origin.ts). With allowed signers,
  // nor on one whose .git holds trees that are not its commit's (checkout would write them), or whose
  // files git cannot compare with it.
  const unsafe =
    files ??
    (previous === null
      ? undefined
      : ((await settingsProblem(target.dir, ctx.git)) ??
        foreignCopy(target.dir, target.spec.url)?.why ??
        (want.allowedSigners ? unusableOf(await differencesFrom(target.dir, previous, ctx.git)) : undefined)));
  if (unsafe !== undefined || (previous === null && existsSync(target.dir))) {
    warnings.push(
      unsafe === undefined
        ? `${target.dir} was not a usable git copy; it was removed and cloned again.`
        : `the copy in ${target.dir} was removed and cloned again: ${unsafe}.`,
    );
    await removeCopy(target.dir);
    return clone(target, ctx, want, warnings);
  }
  if (previous === null) return clone(target, ctx, want, warnings);

  // The copy's record of the branch or tag, as SkillHub last fetched it: what it reached then is still taken.
  const record = await recordOf(target, ctx, target.dir);
  const fetched = await fetchWanted(target, ctx, target.dir, want, { record, warnings }).catch((error) =>
    failClosed(target, ctx, previous, record, error),
  );
  const tip = fetched.commit;
  const elsewhere = refElsewhere(fetched);
  const following = !target.ref && !want.commit;
  const branch = target.branch;
  const current = (
    await ctx.git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: target.dir })
  ).stdout.trim();
  if (want.allowedSigners) {
    try {
      await verifySigned(target, ctx, target.dir, tip, want.allowedSigners);
      // A copy of another branch or of a pin (the configuration changed: an explicit move) is no anchor.
      const rewrite =
        following &&
        !want.rewrite &&
        current === branch &&
        !(await descendsFrom(target, ctx, target.dir, previous, tip));
      if (rewrite) throw rewritten(target, previous, "of the copy", tip);
      if (following && !want.rewrite) await requireAfter(target, ctx, target.dir, want, tip);
      await requireNotBehindVerified(target, ctx, want, tip, { ownRecord: record });
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      if (error.code !== "GIT_SIGNATURE_INVALID" && error.code !== "GIT_HISTORY_REWRITTEN") throw error;
      await putBackRecord(target, ctx, target.dir, record);
      throw await keepVerified(target, ctx, previous, want.allowedSigners, want.after, error);
    }
  }
  // The whole copy, not only its skills folder: an edit left elsewhere would stop a fast-forward.
  const discarded = (await copyChanges(target.dir, ctx.git)).discarded;
  const dirty =
    discarded.length > 0 || (want.allowedSigners !== undefined && (await changedSince(target, ctx, previous)));
  const placed = following ? current === branch : current === "";
  if (tip === previous && !dirty && placed) {
    writeState(target, tip, ctx.now);
    return { commit: tip, previous, changed: false, filesChanged: 0, cloned: false, ...elsewhere, warnings };
  }
  // Told by the copy alone: it decides only between a merge and a checkout, and the warning below.
  const fastForward = tip === previous || (await reaches(ctx, target.dir, tip, previous));
  if (tip !== previous) await checkoutWithin(ctx.git, target.dir, tip, sizeLimit(target, ctx));
  if (dirty)
    warnings.push(
      `local changes in ${target.dir}${discarded.length > 0 ? ` (${shownNames(discarded)})` : ""} were discarded: it is a cache of ${target.spec.url}, change the repository instead.`,
    );
  // A copy of another branch or of a pin (the configuration changed: an explicit move) lost nothing.
  if (following && current === branch && !fastForward)
    warnings.push(
      `the copy in ${target.dir} had commits that are not on ${target.spec.url} (${branch}), e.g. after a force-push; it was reset to the remote.`,
    );
  if (following && fastForward && !dirty && placed) {
    await local(target, ctx, ["merge", "--ff-only", "--quiet", tip]);
  } else {
    // checkout --force leaves as they are the files the index vouches for (skipped entries, forged times):
    // without an index, it writes every file.
    if (dirty) await rm(join(target.dir, ".git", "index"), { force: true });
    // A pinned tag or commit is checked out detached: nothing may move it but a new pin.
    await local(target, ctx, ["checkout", "--quiet", "--force", ...(following ? ["-B", branch] : ["--detach"]), tip]);
    if (dirty) await local(target, ctx, ["clean", want.allowedSigners ? "-ffdqx" : "-ffdq"]);
    if (dirty) await emptySubmoduleFolders(target, ctx);
  }
  const commit = await checkedOut(target.dir, ctx);
  if (commit === null)
    throw new GitError(
      "GIT_FAILED",
      `the copy in ${target.dir} has no commit after the update; delete it and sync again.`,
    );
  // Security: checkout writes what the copy's .git holds under the commit's names without checking a file's
  // content against its name, so an object replaced on disk (or a commit-graph naming another tree) is
  // written again at every sync, and the copy never served. With allowed signers, one that is still not its
  // commit is cloned again.
  if (want.allowedSigners && (await changedSince(target, ctx, commit))) {
    warnings.push(
      `the copy in ${target.dir} was removed and cloned again: its .git wrote files that are not those of commit ${commit.slice(0, 12)} (objects replaced on disk).`,
    );
    await removeCopy(target.dir);
    return clone(target, ctx, want, warnings);
  }
  const filesChanged =
    commit === previous
      ? 0
      : countLines(await local(target, ctx, ["diff", "--name-only", "-z", previous, commit]), "\0");
  await repackWhenMany(ctx.git, target.dir);
  writeState(target, commit, ctx.now);
  return { commit, previous, changed: commit !== previous, filesChanged, cloned: false, ...elsewhere, warnings };
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
  let elsewhere: Pick<RepoSyncResult, "refCommit"> = {};
  ctx.progress(`cloning ${target.spec.url} (${want.commit?.slice(0, 12) ?? refOf(target)}) into ${target.dir}`);
  try {
    // init + fetch of exactly one commit (shallow) + checkout: the same for a branch, a tag and a commit.
    // No template: the user's template folder could add config (git-copy-guard.ts) or hooks to the copy.
    await local({ ...target, dir: temp }, ctx, ["init", "--quiet", "--template=", temp], parent);
    const unwritten = writeRawAttributes(join(temp, ".git", "info", "attributes"));
    if (unwritten) throw new GitError("GIT_FAILED", `the clone of ${target.spec.url} failed: ${unwritten}.`);
    // As `git clone` would: origin is the URL without credentials (tools and people look for it).
    await local({ ...target, dir: temp }, ctx, ["remote", "add", "origin", target.spec.url], temp);
    const fetched = await fetchWanted(target, ctx, temp, want);
    const tip = fetched.commit;
    elsewhere = refElsewhere(fetched);
    const following = !target.ref && !want.commit;
    // Security: an unsigned or wrongly signed commit never becomes a copy, nor one older than the lock's, nor
    // a lock's older than what this machine verified.
    if (want.allowedSigners)
      await verifySigned(target, ctx, temp, tip, want.allowedSigners)
        .then(() => (following && !want.rewrite ? requireAfter(target, ctx, temp, want, tip) : undefined))
        .then(() => requireNotBehindVerified(target, ctx, want, tip, { firstCopy: true }))
        .catch((error) => {
          if (!(error instanceof GitError)) throw error;
          throw new GitError(error.code, `${error.message} No copy was made.`, { details: error.details });
        });
    await checkoutWithin(ctx.git, temp, tip, sizeLimit(target, ctx));
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
  return { commit, previous: null, changed: true, filesChanged: files, cloned: true, ...elsewhere, warnings };
}

/** git.max_repo_bytes for checkoutWithin. */
function sizeLimit(target: RepoTarget, ctx: SyncContext): { max: number; url: string } {
  return { max: ctx.maxRepoBytes ?? 0, url: target.spec.url };
}

/** RepoSyncResult's refCommit: the ref's commit, when it is not the one fetched to serve. */
function refElsewhere(fetched: Fetched): Pick<RepoSyncResult, "refCommit"> {
  return fetched.refCommit && fetched.refCommit !== fetched.commit ? { refCommit: fetched.refCommit } : {};
}

/**
 * Rethrow `error`, the refusal of the lock's commit, having removed the copy when the configured branch or
 * tag reaches the copy's own commit `previous` neither now nor in the copy's `record` of it from before the
 * fetch (keptByRecord). Security: nothing the repository's ref does not reach is served: a copy already at
 * the refused commit (checked out by an earlier SkillHub from a fork) goes; one at a commit of the ref
 * stays served, as after any failed sync.
 */
async function failClosed(
  target: RepoTarget,
  ctx: SyncContext,
  previous: string,
  record: string | undefined,
  error: unknown,
): Promise<never> {
  if (!(error instanceof GitError) || error.code !== "GIT_COMMIT_NOT_IN_REF") throw error;
  if (await keptByRecord(target, ctx, target.dir, previous, record)) throw error;
  const now = await inRefHistory(target, ctx, target.dir, previous).catch(() => ({ reached: false }));
  if (now.reached) throw error;
  await removeCopy(target.dir);
  throw new GitError(
    error.code,
    `${error.message} The copy in ${target.dir}, at commit ${previous.slice(0, 12)}, which is not in that history either, was removed.`,
    { details: error.details },
  );
}

/**
 * The refusal of a followed branch's `tip` that does not descend from the copy's verified commit `previous`.
 * Security: with signed commits required, whoever controls the remote cannot sign a new commit, but can
 * force-push the branch back to an older signed one (a skill since fixed, a key since retired): a freeze or
 * rollback that every signature check passes. Only history that goes on from what was verified is taken.
 */
function rewritten(target: RepoTarget, previous: string, whose: string, tip: string): GitError {
  return new GitError(
    "GIT_HISTORY_REWRITTEN",
    `branch '${target.branch}' of ${target.spec.url} is now at commit ${tip.slice(0, 12)}, which does not descend from commit ${previous.slice(0, 12)} ${whose} (the branch was force-pushed: back to an older commit, or its history rewritten), so it is not taken; if that was deliberate, review the branch, then run \`${updateCommand(target)}\` to accept it.`,
    { details: { url: target.spec.url, branch: target.branch, commit: tip, previous } },
  );
}

/**
 * Refuse (GIT_HISTORY_REWRITTEN) the followed branch's `tip` unless it descends from the lock's commit
 * (`want.after`), told from the copy in `dir` when it holds that commit, else from `tip`'s history on the
 * remote (inRefHistory; a first copy is shallow). Security: `tip`'s own history, fetched by its hash, not
 * the branch's, which whoever controls the remote could move back between the two fetches.
 */
async function requireAfter(
  target: RepoTarget,
  ctx: SyncContext,
  dir: string,
  want: SyncWant,
  tip: string,
): Promise<void> {
  const after = want.after;
  if (after === undefined) return;
  if (!(await descendsFrom(target, ctx, dir, after, tip)))
    throw rewritten(target, after, "recorded in skillhub.lock", tip);
}

/**
 * trust.allowed_signers refused the commit a sync wanted (`refusal`): the copy stays at `previous` when that
 * commit is signed by a listed key and is not older than the lock's (`after`), nor, when the refusal was of
 * a lock's commit older than one this machine verified, than that one; its files are put back to it when
 * they were changed (so that it is served, as verifyCopy requires); else nothing of the repository can be
 * served until a signed commit is pushed, or the branch goes on from the lock's commit, or the lock moves
 * forward. Returns the refusal, saying which.
 */
async function keepVerified(
  target: RepoTarget,
  ctx: SyncContext,
  previous: string,
  signers: string,
  after: string | undefined,
  refusal: GitError,
): Promise<GitError> {
  const said = (text: string) => new GitError(refusal.code, `${refusal.message} ${text}`, { details: refusal.details });
  // No usable signers file: nothing can be checked, the copy included.
  if (refusal.details.commit === undefined) return said("The copy is not served until then.");
  const short = previous.slice(0, 12);
  // Security: a copy behind the lock (this machine had not synced since the reviewed fix) is the rollback
  // itself: kept, it would serve the older commit for as long as the branch stays rolled back.
  if (after !== undefined && !(await descendsFrom(target, ctx, target.dir, after, previous))) {
    await removeCopy(target.dir);
    return said(
      `The copy in ${target.dir}, at commit ${short}, which is older than commit ${after.slice(0, 12)} recorded in skillhub.lock, was removed: nothing older than the lock's commit is served.`,
    );
  }
  // Security: nor is a copy at an older commit than what this machine verified (one an earlier SkillHub
  // checked out for the refused lock) kept to be served: a new copy for that lock would not be made either.
  const newer =
    refusal.details.verified === undefined ? undefined : await olderThanVerified(target, ctx, previous, signers);
  if (newer) {
    await removeCopy(target.dir);
    return said(
      `The copy in ${target.dir}, at commit ${short}, which is older than commit ${newer.commit.slice(0, 12)}, was removed: no lock takes a copy back behind what this machine has verified.`,
    );
  }
  try {
    await verifySigned(target, ctx, target.dir, previous, signers);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return said(
      `The copy's own commit ${short} is not signed by a listed key either, so nothing of ${target.spec.url} can be served until ${target.ref ? pinnedToSigned(target, signers) : `someone whose key ${signers} lists pushes a signed commit to ${target.branch}`}.`,
    );
  }
  if (!(await changedSince(target, ctx, previous)))
    return said(`The copy stays at its last verified commit ${short}, which is served.`);
  const current = (
    await ctx.git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: target.dir })
  ).stdout.trim();
  await rm(join(target.dir, ".git", "index"), { force: true });
  await local(target, ctx, ["checkout", "--quiet", "--force", ...(current ? ["-B", current] : ["--detach"]), previous]);
  await local(target, ctx, ["clean", "-ffdqx"]);
  await emptySubmoduleFolders(target, ctx);
  return said(
    `The copy was put back at its last verified commit ${short} (local changes in ${target.dir} discarded), which is served.`,
  );
}

/**
 * Whether the copy's files differ from `commit` as trust.allowed_signers sees them (git-trust.ts's
 * verifyCopy): ignored files count, and the copy's own index is not trusted.
 */
async function changedSince(target: RepoTarget, ctx: SyncContext, commit: string): Promise<boolean> {
  const changed = await differencesFrom(target.dir, commit, ctx.git);
  if ("failed" in changed) throw new GitError("GIT_FAILED", `git status failed in ${target.dir}: ${changed.failed}.`);
  return "forged" in changed || changed.changed.length > 0;
}

/**
 * Why a copy cannot be brought back to its commit in place: its `.git` holds trees that are not the
 * commit's (a checkout would write them), or git cannot compare its files with the commit at all (a link
 * in a submodule's place). Such a copy is cloned again.
 */
function unusableOf(differences: Differences): string | undefined {
  if ("forged" in differences) return differences.forged;
  if ("failed" in differences) return `git cannot compare its files with its commit (${differences.failed})`;
  return undefined;
}

/**
 * Empty the folders of the checked-out commit's submodules. SkillHub clones no submodule, so they are
 * empty unless something was put there since; `git clean` does not look into them, nor does `git status`.
 */
async function emptySubmoduleFolders(target: RepoTarget, ctx: SyncContext): Promise<void> {
  const listing = await ctx.git.run(["ls-files", "--stage"], {
    cwd: target.dir,
    config: [{ key: "core.quotePath", value: "true" }],
  });
  const entries = parseStage(listing.code === 0 ? listing.stdout : "");
  if (typeof entries === "string") return;
  const copy = Buffer.from(`${realpathSync(target.dir)}${sep}`);
  for (const entry of entries) {
    if (entry.mode !== "160000") continue;
    // As bytes: a name that is not UTF-8 would become U+FFFD as text, and another folder emptied.
    const folder = Buffer.concat([copy, entry.path]);
    // Security: only ever inside the copy, reached without a link; a link put in the folder's place is
    // removed itself (rm never follows it), not what it leads to. git's names part at `/` on Windows too,
    // where a junction in a folder above would otherwise pass unseen.
    const parent = folder.subarray(0, Math.max(folder.lastIndexOf("/"), folder.lastIndexOf(sep)));
    if (parent.length < copy.length - 1 || !realOr(parent)?.equals(parent)) continue;
    await rm(folder, { recursive: true, force: true });
    mkdirSync(folder);
  }
}

/** The real path of `path`, as bytes; undefined when it has none (gone, a dangling link). */
function realOr(path: Buffer): Buffer | undefined {
  try {
    return realpathSync(path, { encoding: "buffer" });
  } catch {
    return undefined;
  }
}

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

/** The commit checked out in `dir`, or null; null too, without asking git, when git must not be started on it (gitFilesProblem). */
export async function head(dir: string, ctx: Pick<SyncContext, "git">): Promise<string | null> {
  return gitFilesProblem(dir) ? null : checkedOut(dir, ctx);
}

/**
 * Whether the copy in `dir` is checked out at a commit known not to go on from `locked` (the lock's): one
 * older than it (a copy moved back), or any other when the copy holds `locked` and all of its history. Told
 * from the copy alone: false when it cannot tell (it lacks `locked`, or is shallow and not moved back).
 */
export async function goesBackFrom(dir: string, ctx: Pick<SyncContext, "git">, locked: string): Promise<boolean> {
  const commit = await head(dir, ctx);
  if (commit === null || commit === locked) return false;
  if (await reaches(ctx, dir, locked, commit)) return true;
  const held = await hasCommit(dir, locked, ctx);
  return held && !(await isShallow(dir, ctx)) && !(await reaches(ctx, dir, commit, locked));
}

/** head() without the walk of `.git`: only for a copy gitFilesProblem passed in this same sync. */
async function checkedOut(dir: string, ctx: Pick<SyncContext, "git">): Promise<string | null> {
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
