import type { RepoEntryConfig } from "../../config/schema.ts";
import type { Logger } from "../../util/logger.ts";
import type { FetchRest } from "./forced-fetches.ts";
import type { GitRunnerOptions } from "./git-runner.ts";

export interface GitSyncOptions {
  /** Repository URLs (SKILLS_REPO / `repos:`), or entries with their own ref, branch and path. */
  repos: readonly (string | RepoEntryConfig)[];
  branch: string;
  /** SKILLS_REF / git.ref: pin every repository to this tag or full commit hash instead of following `branch`. */
  ref?: string;
  /**
   * What the lock that pins each repository records of it, by source label, read at each sync
   * (skillhub.lock). A pinned repository (a `ref`) stays at its locked commit, and so does every repository
   * when `frozen`, until `skillhub sync --update`; frozen, one its lock records at no commit of its
   * configured URL and ref (or whose lock is missing or unreadable) is not fetched. Default: none.
   */
  pins?: () => ReadonlyMap<string, LockedRepo>;
  /**
   * The skillhub.lock that pins the copies now (the project's, lock/location.ts): each lock has copies
   * of its own (repo-targets.ts). Default: SkillHub's own lock, whose copies are `<home>/repos/<slug>`.
   */
  lockFile?: () => string;
  /** Frozen mode: every repository in the lock stays at its locked commit. Default false. */
  frozen?: boolean;
  /** trust.allowed_signers: accept only commits signed by a key of this SSH allowed-signers file. */
  allowedSigners?: string;
  /**
   * `skillhub sync --update [REPO...]`: whether the repository labelled so goes to its configured ref
   * whatever the lock says, and, with allowedSigners, may move to a commit that does not descend from its
   * copy's (a deliberate history rewrite, reviewed). Default: none (pins held, rewrites refused).
   */
  update?: (label: string) => boolean;
  /** GITHUB_TOKEN: sent to https:// repositories only. */
  token?: string;
  /** SkillHub's home: copies go to `<home>/repos/<slug>`. */
  home: string;
  logger: Logger;
  /** Milliseconds between background syncs; 0 = none. */
  intervalMs: number;
  /**
   * Start-up waits this long for the first sync, then serves the local folders and any existing copy;
   * the sync goes on and its end rescans. Default 3,000.
   */
  startupWaitMs?: number;
  /** A copy another SkillHub is syncing is waited for this long, then skipped (GIT_LOCKED). Default 5,000. */
  lockWaitMs?: number;
  /** Network commands are killed after this long. Default 120,000. */
  timeoutMs?: number;
  /**
   * git.max_repo_bytes: most bytes one sync of a repository may bring into its copy's `.git`, and most its
   * checked-out files may take (git-size-limit.ts). Default 0: no limit (fromConfig passes the setting).
   */
  maxRepoBytes?: number;
  /** The sync that records a repository in the lock, said when frozen keeps one from being fetched. Default: `SKILLHUB_FROZEN=0 skillhub sync`. */
  lockingSync?: string;
  /** How to try again after a failure, said in its warning. Default: call refresh_skills or run `skillhub sync`. */
  retry?: string;
  /** Progress lines (cloning…, fetching…). Default: logger.debug. */
  progress?: (line: string) => void;
  /** Environment and spawn for git; see GitRunner. */
  runner?: GitRunnerOptions;
  now?: () => number;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
}

/** A repository's pin: the commit its lock records for its ref. */
export interface Pin {
  ref: string;
  commit: string;
}

/** What the lock that pins one repository records of it. */
export interface LockedRepo {
  /** The commit it records for the configured URL. */
  pin?: Pin;
  /** Without a pin: the other repository's URL it records under this label. */
  url?: string;
  /** Without a pin: why no lock says what to fetch: the lock is missing, or cannot be read (and what to do). */
  noLock?: { why: string; missing?: true };
}

/** One repository's part of a sync. */
export interface RepoReport {
  name: string;
  url: string;
  dir: string;
  success: boolean;
  changed: boolean;
  commit_hash: string | null;
  /**
   * The commit the configured branch or tag is at on the remote, as this sync read it, when the copy is
   * kept at another (the lock's, frozen or pinned); absent otherwise, or when the remote was not read.
   */
  ref_commit?: string;
  files_changed: number;
  /** This sync made the first local copy. */
  cloned?: true;
  /** After this sync, the copy on disk is served (there is one, and trust.allowed_signers passed it). */
  served: boolean;
  /**
   * Not fetched: a forced refresh fetched it less than FORCED_FETCH_INTERVAL_MS ago (forced-fetches.ts). Its
   * `error`, if any, is that fetch's.
   */
  rested?: FetchRest;
  error?: { code: string; message: string };
  warnings: string[];
}

export interface SyncOutcome {
  /** Every repository synced. False also when another sync was running (`busy`). */
  success: boolean;
  /** Another sync was already running; nothing was done. */
  busy: boolean;
  /** Some repository's files changed. */
  changed: boolean;
  repos: RepoReport[];
  /** ISO time of the last successful sync of all repositories, if any. */
  last_sync: string | null;
}
