import { skippedEntries } from "./git-copy-guard.ts";
import { GitError, gitMessage } from "./git-errors.ts";
import type { GitRunner } from "./git-runner.ts";

/** What a copy's work tree holds besides its checkout (copyChanges), as paths relative to the copy. */
export interface CopyChanges {
  /**
   * What the next sync (git-repo.ts's syncRepo) discards: the files its work tree changed, added or
   * removed against its checkout, and the entries its index marks skip-worktree or assume-unchanged, which
   * `git status` does not compare with the work tree (the sync takes both for changes).
   */
  discarded: string[];
  /**
   * The files git ignores, which a sync without trust.allowed_signers keeps and no commit holds: listed
   * only when asked for (`ignored`), since git then walks every ignored folder.
   */
  ignored: string[];
}

/**
 * What the copy in `dir` holds besides its checkout (CopyChanges). Only under `folder` (a folder of the
 * copy, relative, `/` between names) when one is given: what a lock records of a copy is its skills
 * folder. Throws GitError (GIT_FAILED) when git cannot say.
 */
export async function copyChanges(
  dir: string,
  git: GitRunner,
  options: { folder?: string; ignored?: boolean } = {},
): Promise<CopyChanges> {
  const folder = options.folder ?? "";
  // Literal: a configured path is a folder's name, not a pattern.
  const within = folder === "" ? [] : ["--", `:(literal)${folder}`];
  const run = async (args: string[]) => {
    // --no-optional-locks: `lock` and `verify` only look; the index is not rewritten.
    const out = await git.run(["--no-optional-locks", ...args, ...within], { cwd: dir });
    if (out.code === 0) return out.stdout;
    throw new GitError(
      "GIT_FAILED",
      `git ${args[0]} failed in ${dir}: ${gitMessage(out.stderr) || (out.timedOut ? "no answer" : `exit ${out.code}`)}.`,
    );
  };
  const skipped = skippedEntries(await run(["ls-files", "-v", "-z"]));
  const status = ["status", "--porcelain=v1", "-z", "--untracked-files=all", ...(options.ignored ? ["--ignored"] : [])];
  // A rename's entry is followed by its old name, which has no status of its own.
  const entries = (await run(status)).split("\0").filter((entry) => /^.. /.test(entry));
  const changed = entries.filter((entry) => !entry.startsWith("!! ")).map((entry) => entry.slice(3));
  const ignored = entries.filter((entry) => entry.startsWith("!! ")).map((entry) => entry.slice(3));
  return { discarded: [...new Set([...skipped, ...changed])], ignored };
}
