import { errnoCode, SkillHubError } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { timerDelay } from "../util/timer-limit.ts";
import { type Captured, captureStream } from "./capture.ts";
import { closeEnds, openRunPipe } from "./output-pipes.ts";
import { runSearch } from "./proc-search.ts";
import { defaultKill, type KillFn, killQuietly, RunningGroups, signalGroup } from "./process-group.ts";
import { bootTicks } from "./process-stat.ts";
import { type ProcessTable, procTable, RUN_MARKER_VARIABLE, type RunTrace, signalRun } from "./process-tree.ts";

/**
 * One child process under full control: its own process group,
 * no stdin, no shell, output capped while it streams, a timeout that ends the
 * whole group (SIGTERM, then SIGKILL after a grace period), and nothing of the
 * group left behind once the call returns. The server's event loop is never
 * blocked: everything here is asynchronous.
 */

/** What the runner needs from a child (Bun.Subprocess has it). */
export interface ChildProcess {
  readonly pid: number;
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** The process table's names for the pipes it writes to (exec/output-pipes.ts), when known before it ran. */
  readonly outputPipes?: readonly string[];
  /** Close this process's ends of those pipes, once both streams ended or were stopped. */
  closeOutput?(): void;
}

export type SpawnFn = (
  argv: string[],
  options: { cwd: string; env: Record<string, string> },
) => ChildProcess | Promise<ChildProcess>;

/**
 * Bun.spawn with an argv (never a shell), stdin closed, and `detached`: the
 * child calls setsid() and leads a new process group, so the group can be
 * signalled as one and it does not share the server's terminal signals.
 * Its stdout and stderr are pipes made here first where that can be done (Linux), else Bun's.
 */
export const defaultSpawn: SpawnFn = async (argv, options) => {
  const spawnWith = (stdout: number | "pipe", stderr: number | "pipe") =>
    Bun.spawn(argv, { cwd: options.cwd, env: options.env, detached: true, stdin: "ignore", stdout, stderr });
  const out = await openRunPipe();
  const err = out && (await openRunPipe());
  if (!out || !err) {
    if (out) closeEnds([out.readEnd, out.writeEnd]);
    return spawnWith("pipe", "pipe") as unknown as ChildProcess;
  }
  let child: ReturnType<typeof spawnWith>;
  try {
    child = spawnWith(out.writeEnd, err.writeEnd);
  } catch (error) {
    closeEnds([out.readEnd, err.readEnd]);
    throw error;
  } finally {
    // The child has its own copies; the server keeps only the read ends, so the streams end with the last writer.
    closeEnds([out.writeEnd, err.writeEnd]);
  }
  return {
    pid: child.pid,
    exited: child.exited,
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode as string | null;
    },
    stdout: Bun.file(out.readEnd).stream(),
    stderr: Bun.file(err.readEnd).stream(),
    outputPipes: [out.name, err.name],
    closeOutput: () => closeEnds([out.readEnd, err.readEnd]),
  };
};

/** Exit code reported for a run that hit its timeout: 128 + SIGKILL, as a shell reports it. */
export const TIMEOUT_EXIT_CODE = 137;

/** Milliseconds between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 5_000;
/** How often a terminated group is checked for survivors, in milliseconds. */
const POLL_MS = 25;
/** How long output is still read once the group is gone (a writer that left the group with setsid), in milliseconds. */
const DRAIN_MS = 1_000;
/** Most milliseconds spent looking for the processes that still hold a run's output once its group is gone. */
const SEARCH_MS = 2_000;
/**
 * Most milliseconds the searches of /proc for a run's processes that left its group take together (at
 * SIGTERM, at SIGKILL, and the last one once its group is gone), counted from the first: a run's call
 * returns at most this, or the grace period if longer, plus DRAIN_MS + SEARCH_MS + DRAIN_MS after its
 * timeout.
 */
export const RUN_END_SEARCH_MS = 10_000;

export interface RunSpec {
  /** Executable (absolute path) and its arguments; run without a shell. */
  argv: string[];
  cwd: string;
  /** The child's whole environment (already cleaned). */
  env: Record<string, string>;
  /** Milliseconds before the group is terminated. */
  timeoutMs: number;
  /** Most bytes kept of stdout, and of stderr, each. */
  maxOutputBytes: number;
  /** The request's abort signal: a cancelled call ends the group too. */
  signal?: AbortSignal;
}

export interface ProcessOptions {
  spawn?: SpawnFn;
  kill?: KillFn;
  /** Clock for duration_ms and the searches' budget, in milliseconds. Default performance.now. */
  now?: () => number;
  /** Milliseconds between SIGTERM and SIGKILL. Default 5,000. */
  graceMs?: number;
  /** Starts the run's timeout (`spec.timeoutMs`); injected by tests that end a run when it is ready. */
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  /** Where the running group is registered while it runs (the hub kills them all when it closes). */
  groups?: RunningGroups;
  /** The process table searched for the run's escaped descendants (setsid). Default /proc. */
  processTable?: ProcessTable;
  /** Where a run whose output holders could not all be found says so. */
  logger?: Logger;
}

export interface ProcessResult {
  /** The child's exit code; 128 + signal number when a signal ended it; 137 after a timeout. */
  exitCode: number;
  /** The signal that ended the child, if one did. */
  signal?: string;
  timedOut: boolean;
  /** The request was cancelled before the child finished. */
  aborted: boolean;
  stdout: Captured;
  stderr: Captured;
  /** From spawn to the child's exit, in milliseconds. */
  durationMs: number;
}

/** Run one child to completion under the rules above. Throws SkillHubError SPAWN_FAILED when it cannot start. */
export async function runProcess(spec: RunSpec, options: ProcessOptions = {}): Promise<ProcessResult> {
  const spawn = options.spawn ?? defaultSpawn;
  const kill = options.kill ?? defaultKill;
  const now = options.now ?? (() => performance.now());
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const started = now();
  const table = options.processTable ?? procTable;
  // Security: every descendant inherits the marker, so one that leaves the group (setsid) is still found.
  const marker = crypto.randomUUID();
  // Security: a process that was running before this moment is never taken for one of the run's.
  const since = bootTicks();
  let child: ChildProcess;
  try {
    child = await spawn(spec.argv, { cwd: spec.cwd, env: { ...spec.env, [RUN_MARKER_VARIABLE]: marker } });
  } catch (error) {
    throw new SkillHubError("SPAWN_FAILED", `${spec.argv[0]} ${whyNotStarted(error)}`, {
      cause: error,
      details: { errno: errnoCode(error) },
    });
  }
  const group = child.pid;
  const run: RunTrace = { group, marker, since, pipes: child.outputPipes };
  const groups = options.groups ?? new RunningGroups(table);
  groups.add(run, kill);
  const stdout = captureStream(child.stdout, spec.maxOutputBytes);
  const stderr = captureStream(child.stderr, spec.maxOutputBytes);

  let timedOut = false;
  let aborted = false;
  let termAt: number | undefined;
  let killed = false;
  /** Reaped: its pid may now belong to a stranger, so only the marker finds the run's processes. */
  let exited = false;
  const root = () => (exited ? undefined : group);
  /** The searches for the run's processes that left its group, still running (each gives the event loop turns). */
  const searches = new Set<Promise<unknown>>();
  /** When the searches' shared budget ends (a time of `now`), from the first search; warned once. */
  let searchDeadline: number | undefined;
  let searchWarned = false;
  const signalEscaped = (signal: NodeJS.Signals, from: () => number | undefined) => {
    searchDeadline ??= now() + RUN_END_SEARCH_MS;
    const budgetMs = Math.max(0, searchDeadline - now());
    const search = signalRun(run, from, signal, kill, table, {
      budgetMs,
      now,
      closing: () => groups.closing,
    }).then((end) => {
      if (end !== "out of time" || searchWarned) return;
      searchWarned = true;
      options.logger?.warn(
        `${spec.argv[0]} left processes outside its process group, and they were not all found within ${RUN_END_SEARCH_MS / 1000} s: some of them may still run`,
      );
    });
    searches.add(search);
    void search.finally(() => searches.delete(search));
    return search;
  };
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const killNow = () => {
    clearTimeout(killTimer);
    if (killed) return;
    killed = true;
    signalGroup(group, "SIGKILL", kill);
    void signalEscaped("SIGKILL", root);
  };
  /** SIGTERM to the whole group now, SIGKILL after the grace period (once). */
  const terminate = () => {
    if (termAt !== undefined) return;
    termAt = Date.now();
    // A group with no process left answers ESRCH: nothing to follow up.
    if (!signalGroup(group, "SIGTERM", kill)) {
      killed = true;
      return;
    }
    // Then whatever left the group (setsid): the group first, so a shell dies before it can report its children.
    void signalEscaped("SIGTERM", root);
    killTimer = setTimeout(killNow, graceMs);
  };
  const setTimer = options.setTimeout ?? setTimeout;
  const clearTimer = options.clearTimeout ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  // A longer delay would fire at once (scripts.timeout_seconds may come from a skills folder's config.yaml).
  const timeout = setTimer(() => {
    timedOut = true;
    terminate();
  }, timerDelay(spec.timeoutMs));
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  spec.signal?.addEventListener("abort", onAbort, { once: true });
  if (spec.signal?.aborted) onAbort();

  await child.exited;
  exited = true;
  const durationMs = Math.max(0, Math.round(now() - started));
  clearTimer(timeout);
  spec.signal?.removeEventListener("abort", onAbort);
  // Security: the script is done; whatever it left running in its group (a `sleep &`, a server) goes too:
  // SIGTERM, and SIGKILL for what is still there after the grace period, before the call returns. (A killed
  // orphan stays a group member until PID 1 reaps it; where PID 1 never does, this waits the grace period.)
  terminate();
  while (!killed && signalGroup(group, 0, kill)) {
    if (Date.now() >= (termAt ?? 0) + graceMs) killNow();
    else await Bun.sleep(POLL_MS);
  }
  clearTimeout(killTimer);
  // Whatever escaped the group (setsid) and is still there now gets no grace of its own; no signal of an
  // earlier search goes out after this one.
  await Promise.all(searches);
  await signalEscaped("SIGKILL", () => undefined);
  groups.delete(group);

  // The pipes close when the last writer dies; one that escaped the group (setsid) must not hold the call.
  const drained = Promise.all([stdout.done, stderr.done]);
  if (!(await drainedWithin(drained, DRAIN_MS))) {
    // Security: what still writes to this run's pipes once its group and marked processes are gone, and
    // started after the run began, left the group and cleared its environment (setsid + env -i): it holds
    // pipes made for this run alone, so it is the run's. Killed as found; the search ends when the pipes do.
    let ended = false;
    void drained.then(() => {
      ended = true;
    });
    let killedWriters = 0;
    const steps = run.pipes?.length ? table.pipeWriters?.(run.pipes, since) : undefined;
    const search = await runSearch(
      steps,
      (pid) => {
        killQuietly(kill, pid);
        killedWriters++;
      },
      { budgetMs: SEARCH_MS, stop: () => ended },
    );
    if (search === "out of time")
      options.logger?.warn(
        `${spec.argv[0]} left processes holding its output open, and they were not all found within ${SEARCH_MS / 1000} s: its output is cut there, and some of them may still run`,
      );
    // A holder that is not the run's (it was running before) never lets go: no reason to wait for it.
    if (killedWriters === 0 || !(await drainedWithin(drained, DRAIN_MS))) {
      stdout.stop();
      stderr.stop();
    }
  }
  const [out, err] = await drained;
  child.closeOutput?.();

  const signal = child.signalCode ?? undefined;
  const exitCode = timedOut ? TIMEOUT_EXIT_CODE : (child.exitCode ?? 128 + signalNumber(signal));
  return { exitCode, ...(signal ? { signal } : {}), timedOut, aborted, stdout: out, stderr: err, durationMs };
}

/**
 * Why a program did not start, after its path, in words and with its errno code. Not the system's message,
 * which names the path again (`posix_spawn '/usr/bin/python3'`) and says "unknown error" for ENOEXEC.
 */
function whyNotStarted(error: unknown): string {
  const code = errnoCode(error);
  switch (code) {
    case "ENOEXEC":
      return "is not a program this system can run (ENOEXEC)";
    case "ENOENT":
      return "does not exist, or the interpreter its #! line names does not (ENOENT)";
    case "EACCES":
    case "EPERM":
      return `cannot be run: permission denied (${code})`;
    default:
      return `cannot be run (${code ?? (error instanceof Error ? error.name : "unknown error")})`;
  }
}

/** Whether `drained` settles within `ms` milliseconds. */
async function drainedWithin(drained: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  const outcome = await Promise.race([drained, late]);
  clearTimeout(timer);
  return outcome !== "late";
}

function signalNumber(name: string | undefined): number {
  // node:os when a child was killed, not at start-up (loading it cost every start about 0.4 ms).
  const signals = (require("node:os") as typeof import("node:os")).constants.signals as Record<string, number>;
  const n = name ? signals[name] : undefined;
  return n ?? 9;
}
