import { shellWords } from "../../util/shell-words.ts";
import type { RepoAuth } from "./git-auth.ts";
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
  /** A pinned tag or full commit hash (SKILLS_REF / git.ref, or the entry's own); unset = follow `branch`. */
  ref?: string;
  /** The skills folder inside the repository (`skills/pdf`); unset = `skills/` when present, else the root. */
  path?: string;
  /** Added by a project's skillhub.yaml: no GITHUB_TOKEN is sent for it. */
  project?: true;
}

/** What this sync must bring the copy to, beyond the target's own ref. */
export interface SyncWant {
  /** Stay at (or go back to) this commit: the lock's, for a pinned source or in frozen mode. */
  commit?: string;
  /** SSH allowed-signers file: the commit checked out must be signed by a key it lists. */
  allowedSigners?: string;
  /**
   * With allowedSigners, a followed branch may move to a commit that does not descend from the copy's
   * (`skillhub sync --update`, after review); otherwise such a move is refused (GIT_HISTORY_REWRITTEN).
   */
  rewrite?: true;
  /**
   * With allowedSigners, the lock's commit for a followed branch: the commit taken must descend from it too,
   * as from the copy's (the commit the team reviewed, on a machine without a copy as well).
   */
  after?: string;
}

export interface SyncContext {
  git: GitRunner;
  auth: RepoAuth;
  now: () => number;
  progress: (line: string) => void;
  /** Network commands are killed after this long. */
  timeoutMs: number;
  /** git.max_repo_bytes: most bytes a sync may bring into the copy's `.git`, and check out; 0 or unset = no limit. */
  maxRepoBytes?: number;
  /** Commits whose signature was verified by this process (trust.allowed_signers; git-trust.ts). */
  signed?: Set<string>;
  /**
   * `commit:record` pairs this process found the commit not older than the record (olderThanVerified): a
   * commit's history never changes, so a background sync asks the remote once per pair, not at each run.
   */
  notOlder?: Set<string>;
}

/** A full commit hash (SHA-1 or SHA-256): a ref that names a commit rather than a tag. */
export const FULL_COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The ref a copy follows, as the lock records it: the pinned tag or commit, else the branch. */
export function refOf(target: RepoTarget): string {
  return target.ref ?? target.branch;
}

/** The configured ref as messages name it: `branch 'main'`, `tag 'v1'`, `commit '3f2a…'`. */
export function namedRef(target: RepoTarget): string {
  return `${target.ref ? (FULL_COMMIT.test(target.ref) ? "commit" : "tag") : "branch"} '${refOf(target)}'`;
}

/** The branch `git ls-remote --symref URL HEAD` names as the remote's default, if it names one. */
export function remoteHeadBranch(lsRemote: string): string | undefined {
  return /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(lsRemote)?.[1];
}

/** The command that moves this repository's lock entry to what its ref reaches now, after a review. */
export function updateCommand(target: Pick<RepoTarget, "label">): string {
  return `skillhub sync --update ${shellWords([target.label])}`;
}
