import { errnoCode } from "../util/errors.ts";
import { withoutSecrets } from "../util/secret-env.ts";
import type { GitConfigEntry } from "./git-auth.ts";
import { GitError } from "./git-errors.ts";
import { scrub } from "./git-url.ts";

/** What the runner needs from a child process (Bun.Subprocess has it). */
export interface GitProcess {
  exited: Promise<number>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  kill(signal?: number | NodeJS.Signals): void;
}

export type SpawnFn = (cmd: string[], options: { cwd?: string; env: Record<string, string | undefined> }) => GitProcess;

export interface GitRunnerOptions {
  /** Base environment of git children. Default process.env. */
  env?: Record<string, string | undefined>;
  /** The git executable. Default "git" (the one on PATH, so the user's SSH keys and credential helpers work). */
  git?: string;
  /** Kill a git command after this many milliseconds. Default 120,000. */
  timeoutMs?: number;
  spawn?: SpawnFn;
}

export interface GitCall {
  cwd?: string;
  /** Per-process config (credentials): passed through the environment, never stored. */
  config?: readonly GitConfigEntry[];
  /** Texts to hide in anything returned or thrown. */
  secrets?: readonly string[];
  timeoutMs?: number;
}

export interface GitOutput {
  code: number;
  stdout: string;
  /** Scrubbed of secrets. */
  stderr: string;
  timedOut: boolean;
}

/** Runs the system git with a clean, non-interactive environment and a timeout. */
export class GitRunner {
  private version?: Promise<number[] | undefined>;
  private readonly spawn: SpawnFn;

  constructor(private readonly options: GitRunnerOptions = {}) {
    this.spawn = options.spawn ?? ((cmd, o) => Bun.spawn(cmd, { cwd: o.cwd, env: o.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" }));
  }

  /** `git --version` as numbers, or undefined when git cannot be run. Cached. */
  gitVersion(): Promise<number[] | undefined> {
    this.version ??= this.exec(["--version"], {}).then(
      (out) => (out.code === 0 ? (/(\d+)\.(\d+)(?:\.(\d+))?/.exec(out.stdout)?.slice(1).map((n) => Number(n ?? 0)) ?? [0]) : undefined),
      () => undefined,
    );
    return this.version;
  }

  /** Run git; a non-zero exit is a result, not an exception. Throws GitError GIT_NOT_FOUND when git is missing. */
  async run(args: readonly string[], call: GitCall = {}): Promise<GitOutput> {
    const entries = call.config ?? [];
    let prefix: string[] = [];
    const extraEnv: Record<string, string> = {};
    if (entries.length > 0) {
      const version = await this.gitVersion();
      if (version && atLeast(version, [2, 31])) {
        // GIT_CONFIG_COUNT/KEY/VALUE (git ≥ 2.31): out of argv, so not visible in `ps`.
        const base = Number(this.options.env?.GIT_CONFIG_COUNT ?? process.env.GIT_CONFIG_COUNT ?? 0) || 0;
        entries.forEach((e, i) => {
          extraEnv[`GIT_CONFIG_KEY_${base + i}`] = e.key;
          extraEnv[`GIT_CONFIG_VALUE_${base + i}`] = e.value;
        });
        extraEnv.GIT_CONFIG_COUNT = String(base + entries.length);
      } else {
        prefix = entries.flatMap((e) => ["-c", `${e.key}=${e.value}`]);
      }
    }
    return this.exec([...prefix, ...args], call, extraEnv);
  }

  private async exec(args: readonly string[], call: GitCall, extraEnv: Record<string, string> = {}): Promise<GitOutput> {
    // Security: SkillHub's secrets are none of git's business (the token reaches git only as scoped config).
    const env: Record<string, string | undefined> = withoutSecrets(this.options.env ?? process.env);
    // Never wait for a password on a terminal the server does not have; English messages to classify.
    Object.assign(env, { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", LANGUAGE: "" }, extraEnv);
    let child: GitProcess;
    try {
      child = this.spawn([this.options.git ?? "git", ...args], { cwd: call.cwd, env });
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ENOENT" || /not found/i.test(String(error))) {
        throw new GitError("GIT_NOT_FOUND", "the git executable was not found on PATH; install git (https://git-scm.com) to sync skill repositories.", { cause: error });
      }
      throw new GitError("GIT_FAILED", `cannot run git: ${scrub(String(error), call.secrets ?? [])}`, { cause: error });
    }
    let timedOut = false;
    const timeout = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, call.timeoutMs ?? this.options.timeoutMs ?? 120_000);
    try {
      const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      return { code, stdout, stderr: scrub(stderr, call.secrets ?? []), timedOut };
    } finally {
      clearTimeout(timeout);
    }
  }
}

function atLeast(version: number[], wanted: number[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    const v = version[i] ?? 0;
    const w = wanted[i] ?? 0;
    if (v !== w) return v > w;
  }
  return true;
}
