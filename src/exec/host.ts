import { SkillHubError } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import {
  DEFAULT_GRACE_MS,
  defaultSpawn,
  type ProcessResult,
  type RunSpec,
  runProcess,
  type SpawnFn,
} from "./process.ts";
import { defaultKill, type KillFn, RunningGroups } from "./process-group.ts";
import { defaultWhich } from "./runners.ts";

/**
 * Most scripts and commands one server runs at once, run_script and run_skill_command together: far
 * above what one agent starts in parallel, far below what would exhaust the machine's processes or the
 * server's descriptors (three per run).
 */
export const MAX_RUNNING = 16;

/**
 * Everything run_script and run_skill_command need from the machine, with
 * production defaults; tests replace parts (environment, grace period, spawn).
 */
export interface ExecHost {
  /** The server's environment, before secrets are removed. Default process.env. */
  env: Readonly<Record<string, string | undefined>>;
  /** The running executable (the skillhub binary; bun when running from source). Default process.execPath. */
  execPath: string;
  /** Working folder of run_script when no `cwd` is given and no project root applies. Default process.cwd(). */
  cwd: string;
  spawn: SpawnFn;
  kill: KillFn;
  /** Clock for durations, in milliseconds. Default performance.now. */
  now: () => number;
  /** Milliseconds between SIGTERM and SIGKILL. Default 5,000. */
  graceMs: number;
  /** An executable's absolute path on a PATH, or null. */
  which: (command: string, path: string | undefined) => string | null;
  /** An empty Bun config for scripts run by this binary (exec/runners.ts emptyBunConfig). Default /dev/null. */
  bunConfig?: () => string;
  /** Groups running now; killed when the hub closes. */
  groups: RunningGroups;
  /** Most groups running at once; one more run is refused with TOO_MANY_RUNS. Default MAX_RUNNING. */
  maxRunning: number;
  /** Starts a run's timeout; injected by tests that end a run when it is ready. Default the runtime's. */
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  /** Where a run says what it could not clean up. */
  logger?: Logger;
}

export function execHost(overrides: Partial<ExecHost> = {}): ExecHost {
  return {
    env: process.env,
    execPath: process.execPath,
    cwd: process.cwd(),
    spawn: defaultSpawn,
    kill: defaultKill,
    now: () => performance.now(),
    graceMs: DEFAULT_GRACE_MS,
    which: defaultWhich,
    groups: new RunningGroups(),
    maxRunning: MAX_RUNNING,
    ...overrides,
  };
}

/**
 * runProcess with the host's spawn, kill, clock, grace period and group registry. Throws SkillHubError
 * TOO_MANY_RUNS, before anything starts, when `host.maxRunning` groups are running already.
 *
 * Security: each call of a client starts a process, and one HTTP request may carry a batch of 100 calls,
 * so without a bound any client could start processes until the machine has none left. Refused rather
 * than queued: a queue would let the same client hold every other one waiting behind its runs. Nothing
 * awaits between this count and runProcess registering its group, so concurrent calls cannot overshoot.
 */
export function runOnHost(host: ExecHost, spec: RunSpec): Promise<ProcessResult> {
  if (host.groups.size >= host.maxRunning)
    throw new SkillHubError(
      "TOO_MANY_RUNS",
      `${host.groups.size} scripts and commands are running on this server, the most it runs at once; try again when one has finished`,
      { details: { running: host.groups.size } },
    );
  return runProcess(spec, {
    spawn: host.spawn,
    kill: host.kill,
    now: host.now,
    graceMs: host.graceMs,
    groups: host.groups,
    setTimeout: host.setTimeout,
    clearTimeout: host.clearTimeout,
    logger: host.logger,
  });
}
