import type { RepoEntryConfig } from "../config/schema.ts";
import { repoAuth } from "../refresh/git/git-auth.ts";
import { classifyFailure, GitError } from "../refresh/git/git-errors.ts";
import { GitRunner } from "../refresh/git/git-runner.ts";
import { FULL_COMMIT, remoteHeadBranch } from "../refresh/git/git-target.ts";
import { parseRepo } from "../refresh/git/git-url.ts";

export interface ProbeOptions {
  /** Environment of git. */
  env: Record<string, string | undefined>;
  /** GITHUB_TOKEN, for the user's own https:// repositories. */
  token?: string;
  /** Milliseconds git may take. Default 60,000. */
  timeoutMs?: number;
}

/**
 * Ask the remote what `ref` is before anything is written: a tag or a commit (then the entry pins
 * it), or a branch (then it follows it); without `ref`, the remote's default branch. One
 * `git ls-remote`, so an unreachable or mistyped repository is found here. Throws GitError.
 */
export async function probeRepository(
  entry: RepoEntryConfig,
  ref: string | undefined,
  options: ProbeOptions,
): Promise<{ ref?: string; branch?: string }> {
  const spec = parseRepo(entry.url);
  const auth = repoAuth(spec, options.token, entry.scope === "project");
  const timeoutMs = options.timeoutMs ?? 60_000;
  const git = new GitRunner({ env: options.env, timeoutMs });
  const patterns = ref ? [`refs/heads/${ref}`, `refs/tags/${ref}`] : ["HEAD"];
  try {
    const out = await git.run(["ls-remote", "--symref", spec.url, ...patterns], {
      config: auth.config,
      secrets: auth.secrets,
      env: auth.env,
      timeoutMs,
    });
    if (out.code !== 0 || out.timedOut)
      throw classifyFailure({
        url: spec.url,
        branch: ref ?? "HEAD",
        withCredentials: auth.config.length > 0,
        stderr: out.stderr,
        timedOut: out.timedOut,
        timeoutMs,
      });
    if (!ref) {
      const branch = remoteHeadBranch(out.stdout);
      return branch ? { branch } : {};
    }
    const refs = out.stdout.split("\n").map((line) => line.split("\t"));
    if (refs.some(([, name]) => name === `refs/tags/${ref}`)) return { ref };
    if (refs.some(([, name]) => name === `refs/heads/${ref}`)) return { branch: ref };
    if (FULL_COMMIT.test(ref.toLowerCase())) return { ref: ref.toLowerCase() };
    throw new GitError(
      "GIT_REF_NOT_FOUND",
      `${spec.url} has no tag or branch '${ref}' (a commit must be given as its full 40-character hash).`,
    );
  } finally {
    git.close();
  }
}
