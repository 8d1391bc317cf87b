import { defaultSpawn, type ProcessResult, runProcess, type SpawnFn } from "../../exec/process.ts";
import { defaultKill, type KillFn, RunningGroups } from "../../exec/process-group.ts";
import { errnoCode, SkillHubError } from "../../util/errors.ts";
import { keepAbsoluteEntries } from "../../util/path-env.ts";

const ONLY_PATH = new Set(["PATH"]);

import { withoutSecrets } from "../../util/secret-env.ts";
import type { GitConfigEntry } from "./git-auth.ts";
import { GitError } from "./git-errors.ts";
import { scrub } from "./git-url.ts";

export type { SpawnFn } from "../../exec/process.ts";

/** Most bytes kept of one git command's stdout (ls-files of a very large repository fits). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Config every git command runs with, after the caller's, so that nothing overrides it. Security: a
 * repository copy's `.git` is written by whoever can write the copy, and git would run what it names:
 * `core.fsmonitor` on every command that reads the index, hooks on fetch, merge and checkout. Given as
 * command-line config, these win over every config file. The settings whose names cannot be listed
 * (filter drivers…) are git-copy-guard.ts's.
 */
const GUARD_CONFIG: readonly GitConfigEntry[] = [
  { key: "core.fsmonitor", value: "false" },
  { key: "core.hooksPath", value: "/dev/null" },
  // Not a security setting: with the user's core.preferSymlinkRefs, `.git/HEAD` would be a link, which
  // git-copy-guard.ts's gitFilesProblem refuses as a file git could wait on, and no copy could be made.
  { key: "core.preferSymlinkRefs", value: "false" },
];

/**
 * Variables that tell git which repository, index, objects or work tree to use (`git rev-parse
 * --local-env-vars`, and the namespace and quarantine ones): each command names its copy by its working
 * folder, so none may come from the environment SkillHub was started in. The user's own config
 * (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT) is kept.
 */
export const REPOSITORY_VARIABLES: readonly string[] = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_IMPLICIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_QUARANTINE_PATH",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_GRAFT_FILE",
  "GIT_SHALLOW_FILE",
  "GIT_REPLACE_REF_BASE",
  "GIT_PREFIX",
  "GIT_INTERNAL_SUPER_PREFIX",
  "GIT_CONFIG",
];

export interface GitRunnerOptions {
  /** Base environment of git children. Default process.env. */
  env?: Record<string, string | undefined>;
  /** The git executable. Default "git" (the one on PATH, so the user's SSH keys and credential helpers work). */
  git?: string;
  /** End a git command (its whole process group) after this many milliseconds. Default 120,000. */
  timeoutMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL of a timed-out git's group. Default 1,000. */
  graceMs?: number;
  /** Starts git leading its own process group (exec/process.ts's defaultSpawn). */
  spawn?: SpawnFn;
  kill?: KillFn;
  /**
   * Where each git's process group is registered while it runs. Default: the runner's own, which close()
   * kills. One given here is its giver's to kill: a hub kills its gits with its scripts, in one registry
   * under one shutdown budget (server/hub.ts).
   */
  groups?: RunningGroups;
}

export interface GitCall {
  cwd?: string;
  /** Per-process config (credentials): passed through the environment, never stored. */
  config?: readonly GitConfigEntry[];
  /** Texts to hide in anything returned or thrown. */
  secrets?: readonly string[];
  /** Variables for this command (GIT_INDEX_FILE). */
  env?: Readonly<Record<string, string>>;
  timeoutMs?: number;
  /** Ends git (its whole process group) when aborted: a fetch over git.max_repo_bytes (git-size-limit.ts). */
  signal?: AbortSignal;
}

export interface GitOutput {
  code: number;
  stdout: string;
  /** Scrubbed of secrets. */
  stderr: string;
  timedOut: boolean;
  /** stdout was longer than the most kept (64 MiB), and cut. */
  truncated: boolean;
}

/**
 * Runs the system git with a clean, non-interactive environment and a
 * timeout. Each git leads its own process group (exec/process.ts), so a
 * timeout or close() ends its helpers too (git-remote-https, ssh), and the
 * pipes they hold open are drained for a moment only.
 */
export class GitRunner {
  private version?: Promise<number[] | undefined>;
  private readonly groups: RunningGroups;
  private closed = false;

  constructor(private readonly options: GitRunnerOptions = {}) {
    this.groups = options.groups ?? new RunningGroups();
  }

  /** `git --version` as numbers, or undefined when git cannot be run. Cached. */
  gitVersion(): Promise<number[] | undefined> {
    this.version ??= this.exec(["--version"], {}).then(
      (out) =>
        out.code === 0
          ? (/(\d+)\.(\d+)(?:\.(\d+))?/
              .exec(out.stdout)
              ?.slice(1)
              .map((n) => Number(n ?? 0)) ?? [0])
          : undefined,
      () => undefined,
    );
    return this.version;
  }

  /**
   * Refuse new commands, and SIGKILL every git still running with its group (server shutdown); gits
   * registered in GitRunnerOptions.groups are left to whoever gave it.
   */
  close(): void {
    this.closed = true;
    if (!this.options.groups) this.groups.killAll();
  }

  /**
   * Run git with the caller's config and GUARD_CONFIG; a non-zero exit is a result, not an exception.
   * Throws GitError GIT_NOT_FOUND when git is missing.
   */
  async run(args: readonly string[], call: GitCall = {}): Promise<GitOutput> {
    const entries = [...(call.config ?? []), ...GUARD_CONFIG];
    let prefix: string[] = [];
    const extraEnv: Record<string, string> = { ...call.env };
    const version = await this.gitVersion();
    if (version && atLeast(version, [2, 31])) {
      // GIT_CONFIG_COUNT/KEY/VALUE (git ≥ 2.31): out of argv, so not visible in `ps`.
      // Counted in what git gets: a set of entries that held a secret is not passed on (util/secret-env.ts).
      const base = Number(this.inheritedEnv().GIT_CONFIG_COUNT ?? 0) || 0;
      entries.forEach((e, i) => {
        extraEnv[`GIT_CONFIG_KEY_${base + i}`] = e.key;
        extraEnv[`GIT_CONFIG_VALUE_${base + i}`] = e.value;
      });
      extraEnv.GIT_CONFIG_COUNT = String(base + entries.length);
    } else {
      prefix = entries.flatMap((e) => ["-c", `${e.key}=${e.value}`]);
    }
    return this.exec([...prefix, ...args], call, extraEnv);
  }

  /** Security: SkillHub's secrets are none of git's business (the token reaches git only as scoped config). */
  private inheritedEnv(): Record<string, string> {
    return withoutSecrets(this.options.env ?? process.env, { keepProxyCredentials: true });
  }

  private async exec(
    args: readonly string[],
    call: GitCall,
    extraEnv: Record<string, string> = {},
  ): Promise<GitOutput> {
    if (this.closed) throw new GitError("GIT_FAILED", "git sync stopped: SkillHub is shutting down.");
    const env: Record<string, string | undefined> = this.inheritedEnv();
    // Security: SkillHub run from a git hook or alias inherits the variables that point git at that
    // repository (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE…): a copy's clone and checkout would write there.
    for (const name of REPOSITORY_VARIABLES) delete env[name];
    // Security: git runs in a repository copy, and finds ssh-keygen (the signature check), ssh and its other
    // helpers on PATH, as Bun finds git: an empty or relative entry ("", ".") is looked up from that folder,
    // whose files whoever can write the copy chooses, and a planted `ssh-keygen` would vouch for any commit.
    keepAbsoluteEntries(env, ONLY_PATH);
    // Never wait for a password on a terminal the server does not have; English messages to classify.
    // Security: replacement objects (`git replace`, refs in the copy) are ignored: a commit's tree is the one it names.
    Object.assign(env, { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", LANGUAGE: "", GIT_NO_REPLACE_OBJECTS: "1" }, extraEnv);
    const git = this.options.git ?? "git";
    let result: ProcessResult;
    try {
      result = await runProcess(
        {
          argv: [git, ...args],
          // Not process.cwd(): the server's folder may be gone, and clone and --version need none.
          // node:os when git runs, not at start-up.
          cwd: call.cwd ?? (require("node:os") as typeof import("node:os")).tmpdir(),
          env: defined(env),
          timeoutMs: call.timeoutMs ?? this.options.timeoutMs ?? 120_000,
          maxOutputBytes: MAX_OUTPUT_BYTES,
          ...(call.signal ? { signal: call.signal } : {}),
        },
        {
          spawn: this.options.spawn ?? defaultSpawn,
          kill: this.options.kill ?? defaultKill,
          graceMs: this.options.graceMs ?? 1_000,
          groups: this.groups,
        },
      );
    } catch (error) {
      const cause = error instanceof SkillHubError && error.code === "SPAWN_FAILED" ? (error.cause ?? error) : error;
      if (errnoCode(cause) === "ENOENT" || /not found/i.test(String(cause))) {
        throw new GitError(
          "GIT_NOT_FOUND",
          "the git executable was not found on PATH; install git (https://git-scm.com) to sync skill repositories.",
          { cause: error },
        );
      }
      throw new GitError("GIT_FAILED", `cannot run git: ${scrub(String(cause), call.secrets ?? [])}`, { cause: error });
    }
    return {
      code: result.exitCode,
      stdout: result.stdout.text,
      stderr: scrub(result.stderr.text, call.secrets ?? []),
      timedOut: result.timedOut,
      truncated: result.stdout.truncated,
    };
  }
}

/** The environment without unset entries (a child's environment holds strings only). */
function defined(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

function atLeast(version: number[], wanted: number[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    const v = version[i] ?? 0;
    const w = wanted[i] ?? 0;
    if (v !== w) return v > w;
  }
  return true;
}
