import { errnoCode } from "../util/errors.ts";
import { runSearchNow } from "./proc-search.ts";
import { type KillFn, killRunNow, type ProcessTable, procTable, type RunTrace } from "./process-tree.ts";
import { killAllStopped } from "./stopped-processes.ts";

/** Signals to a child's whole process group, and the groups still running. */

export type { KillFn } from "./process-tree.ts";

export const defaultKill: KillFn = (pid, signal) => {
  process.kill(pid, signal);
};

/**
 * Send `signal` to every process of the group led by `group` (signal 0 only
 * tests whether one is left). Returns false when the group has no process
 * left (ESRCH).
 *
 * Security: POSIX never hands a process-group id to a new process while the
 * group has a member, so signalling a group that still answers cannot reach a
 * stranger. On Windows there are no process groups to signal: the tree is
 * ended with `taskkill /T /F`.
 */
export function signalGroup(group: number, signal: NodeJS.Signals | 0, kill: KillFn = defaultKill): boolean {
  if (process.platform === "win32" && kill === defaultKill) return signalWindowsTree(group, signal);
  try {
    kill(-group, signal);
    return true;
  } catch (error) {
    // EPERM: a member changed user (setuid); it exists, so the caller keeps waiting for it.
    return errnoCode(error) === "EPERM";
  }
}

function signalWindowsTree(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (signal !== 0)
    Bun.spawnSync(["taskkill", "/PID", String(pid), "/T", "/F"], { stdout: "ignore", stderr: "ignore" });
  return true;
}

/**
 * Most milliseconds a closing server looks for its runs' processes that left their groups. With
 * SHUTDOWN_SEARCH_MS, killAll's 1.2 s, shared by every run of the RunningGroups; a hub registers its git
 * commands and its scripts in one (server/hub.ts), so that is the whole of its shutdown's searches. They
 * block the event loop: a server that closes as its stdin ends is done well within the 2 s an MCP client
 * gives it before SIGTERM.
 */
const SHUTDOWN_MARKER_SEARCH_MS = 800;
/** Most milliseconds a closing server looks for processes that hold its runs' output. */
const SHUTDOWN_SEARCH_MS = 400;

/** The groups a hub has started and not yet seen end, so a server that closes mid-script leaves nothing behind. */
export class RunningGroups {
  private readonly running = new Map<number, { run: RunTrace; kill: KillFn }>();
  private closed = false;

  /**
   * `table`: where the runs' processes that left their groups are found. Default /proc.
   * `now`: the clock of killAll's budget, in milliseconds. Default performance.now.
   */
  constructor(
    private readonly table: ProcessTable = procTable,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Register a run while it runs: its group, and what finds its processes that left the group. A run
   * registered once killAll has run (its spawn was under way) gets SIGKILL at once: nothing kills it later.
   */
  add(run: RunTrace, kill: KillFn): void {
    if (this.closed) signalGroup(run.group, "SIGKILL", kill);
    else this.running.set(run.group, { run, kill });
  }

  delete(group: number): void {
    this.running.delete(group);
  }

  /** How many groups are running now. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Whether killAll has run: a search of these runs still under way then kills what it finds instead of
   * stopping it (exec/process-tree.ts KillOptions.closing).
   */
  get closing(): boolean {
    return this.closed;
  }

  /** Groups running now (scripts, commands, git). */
  list(): number[] {
    return [...this.running.keys()];
  }

  /**
   * SIGKILL every group still running (server shutdown), with each run's processes that left it: those
   * that carry its marker and their descendants, then those that hold its output (exec/process-tree.ts),
   * each as it is found (never stopped first: the server may be killed before a second half), and every
   * process an earlier search stopped and has not killed yet (exec/stopped-processes.ts). Returns how many
   * groups were signalled. Every group is signalled before the searches begin, which share one budget:
   * this blocks for at most 1.2 s (SHUTDOWN_MARKER_SEARCH_MS + SHUTDOWN_SEARCH_MS) in all; the server is
   * closing.
   */
  killAll(): number {
    this.closed = true;
    // Security: stopped by a search that will not resume (the server is closing): killed before anything else.
    killAllStopped();
    let count = 0;
    const runs = [...this.running.values()];
    this.running.clear();
    for (const { run, kill } of runs) if (signalGroup(run.group, "SIGKILL", kill)) count++;
    const markersDeadline = this.now() + SHUTDOWN_MARKER_SEARCH_MS;
    for (const { run, kill } of runs) killRunNow(run, kill, this.table, markersDeadline, this.now);
    const deadline = this.now() + SHUTDOWN_SEARCH_MS;
    for (const { run, kill } of runs)
      if (run.pipes?.length)
        runSearchNow(
          this.table.pipeWriters?.(run.pipes, run.since),
          (pid) => killQuietly(kill, pid),
          deadline,
          this.now,
        );
    return count;
  }
}

/** SIGKILL one process; one that is gone already, or not ours, is no error. */
export function killQuietly(kill: KillFn, pid: number): void {
  try {
    kill(pid, "SIGKILL");
  } catch {
    // Gone already, or not ours.
  }
}
