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
 * Most runs one session may hold at once: a quarter of the server's (4 of MAX_RUNNING), at least 1. An
 * agent's parallel calls fit; one session alone never takes every run.
 */
export function clientShare(maxRunning: number): number {
  return Math.max(1, Math.floor(maxRunning / 4));
}

/** The holder of every run of a request without a session: nothing tells such clients apart. */
export const SESSIONLESS = "requests without a session";

/**
 * Who a run counts against, for its share: over HTTP its session (`client`), or for a request without
 * one (a 2026-07-28 client, a stateless server's) SESSIONLESS, which every such client shares (behind a
 * proxy they all have its address, so no address tells them apart either). Undefined over stdio, whose
 * one user may take every run.
 */
export function runHolder(session: {
  readonly remote: boolean;
  readonly client: string | undefined;
}): string | undefined {
  if (!session.remote) return undefined;
  return session.client ?? SESSIONLESS;
}

/** A holder's share: a session's (clientShare), or half the runs for all requests without a session together. */
function shareOf(holder: string, maxRunning: number): number {
  return holder === SESSIONLESS ? Math.max(1, Math.floor(maxRunning / 2)) : clientShare(maxRunning);
}

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
  /** Groups running now, the hub's git commands' too (server/hub.ts); all killed when the hub closes. */
  groups: RunningGroups;
  /** Most groups running at once; one more run is refused with TOO_MANY_RUNS. Default MAX_RUNNING. */
  maxRunning: number;
  /**
   * Runs going on now by who holds them (runHolder; "" over stdio): their sum is checked against
   * `maxRunning`, a client's count against its share (clientShare).
   */
  held: Map<string, number>;
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
    held: new Map(),
    ...overrides,
  };
}

/**
 * runProcess with the host's spawn, kill, clock, grace period and group registry. Throws SkillHubError
 * TOO_MANY_RUNS, before anything starts, when `host.maxRunning` runs are going on already, or when
 * `holder` (runHolder: a session over HTTP) holds its share of them (clientShare) until one of its runs ends.
 *
 * Security: each call of a client starts a process, and one HTTP request may carry a batch of 100 calls,
 * so without a bound any client could start processes until the machine has none left. Refused rather
 * than queued: a queue would let the same client hold every other one waiting behind its runs. The share
 * keeps one client of a shared server from taking every run and refusing all the others. A run is counted
 * from this call to its end, before anything is awaited, so concurrent calls cannot overshoot.
 */
export function runOnHost(host: ExecHost, spec: RunSpec, holder?: string): Promise<ProcessResult> {
  const key = holder ?? "";
  const share = holder === undefined ? host.maxRunning : shareOf(holder, host.maxRunning);
  const held = host.held.get(key) ?? 0;
  if (holder !== undefined && held >= share)
    throw new SkillHubError(
      "TOO_MANY_RUNS",
      holder === SESSIONLESS
        ? `Requests without a session are running ${held} scripts and commands, the most they may run together (half of the ${host.maxRunning} this server runs; a client with a session has a share of its own); try again when one of them has finished`
        : `This client is running ${held} scripts and commands, the most one client may run at once (its share of the ${host.maxRunning} this server runs for all its clients); try again when one of them has finished`,
      { details: { running: held, client_share: share } },
    );
  let running = 0;
  for (const count of host.held.values()) running += count;
  if (running >= host.maxRunning)
    throw new SkillHubError(
      "TOO_MANY_RUNS",
      `${running} scripts and commands are running on this server, the most it runs at once; try again when one has finished`,
      { details: { running } },
    );
  host.held.set(key, held + 1);
  const run = runProcess(spec, {
    spawn: host.spawn,
    kill: host.kill,
    now: host.now,
    graceMs: host.graceMs,
    groups: host.groups,
    setTimeout: host.setTimeout,
    clearTimeout: host.clearTimeout,
    logger: host.logger,
  });
  return run.finally(() => {
    const left = (host.held.get(key) ?? 1) - 1;
    if (left > 0) host.held.set(key, left);
    else host.held.delete(key);
  });
}
