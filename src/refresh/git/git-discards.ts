import { skippedEntries } from "./git-copy-guard.ts";
import { GitError, gitMessage } from "./git-errors.ts";
import type { GitRunner } from "./git-runner.ts";

/**
 * What the next sync discards in the copy in `dir` (git-repo.ts's syncRepo), as paths relative to the
 * copy: the files its work tree changed, added or removed against its checkout, and the entries its
 * index marks skip-worktree or assume-unchanged, which `git status` does not compare with the work tree
 * (the sync takes both for changes). Only under `folder` (a folder of the copy, relative, `/` between
 * names) when one is given: what a lock records of a copy is its skills folder. Ignored files are not
 * named: a sync without trust.allowed_signers keeps them. Throws GitError (GIT_FAILED) when git cannot say.
 */
export async function discardedBySync(dir: string, git: GitRunner, folder = ""): Promise<string[]> {
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
  const changed = (await run(["status", "--porcelain=v1", "-z", "--untracked-files=all"]))
    .split("\0")
    // A rename's entry is followed by its old name, which has no status of its own.
    .filter((entry) => /^.. /.test(entry))
    .map((entry) => entry.slice(3));
  return [...new Set([...skipped, ...changed])];
}
