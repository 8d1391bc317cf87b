import { readdirSync, readFileSync } from "node:fs";
import { pipeWriterSteps } from "./process-pipe-writers.ts";
import { readProcStat } from "./process-stat.ts";

/**
 * Security: every process a script started, found again at its end. Killing
 * the script's process group misses a child that called setsid (a new
 * session is a new group) or that was reparented to PID 1. So each run gets a
 * marker variable (SKILLHUB_RUN_ID=<random>) that every descendant inherits
 * through fork and exec, and at timeout (and at the end of the run) the
 * server walks /proc: a process whose initial environment carries the marker,
 * or whose parent chain leads to the script, is signalled too. Only processes
 * that started after the run began are looked at (exec/process-stat.ts): one
 * that was running before cannot be the run's, whatever pid it was given.
 *
 * One that wipes its environment *and* leaves the tree (double fork + env -i)
 * is still found while it holds the run's stdout or stderr open (the pipes
 * were made for this run alone, before it started: exec/output-pipes.ts,
 * exec/process-pipe-writers.ts). Linux only (/proc). Elsewhere the process
 * group is all there is (see docs/hardening.md). A descendant that does all
 * three (leaves, wipes, closes its output) escapes; cgroups would catch it but
 * need privileges this server does not assume.
 */

export const RUN_MARKER_VARIABLE = "SKILLHUB_RUN_ID";

/** process.kill's shape; a negative pid names a process group (POSIX). */
export type KillFn = (pid: number, signal: NodeJS.Signals | 0) => void;

/** What tells a run's processes from all others. */
export interface RunTrace {
  /** The process group its child leads (the child's pid). */
  group: number;
  /** The value of RUN_MARKER_VARIABLE its processes inherit. */
  marker?: string;
  /** When it began, in clock ticks since boot (exec/process-stat.ts bootTicks); unknown without /proc. */
  since?: number;
  /** What /proc shows for its output pipes (`pipe:[inode]`), when they were made for it (exec/output-pipes.ts). */
  pipes?: readonly string[];
}

export interface ProcessTable {
  /**
   * Every pid with its parent pid and, when readable, its initial environment; only those that
   * started at or after `since` (clock ticks since boot) when it is given.
   */
  list(since?: number): { pid: number; ppid: number; pgid?: number; environ?: string }[];
  /**
   * The search for processes other than this one that hold one of `pipes` open for writing, one look
   * at a time (exec/process-pipe-writers.ts): of this user, started at or after `since`.
   */
  pipeWriters?(pipes: readonly string[], since?: number): Iterator<number | undefined>;
}

/** The live table from /proc; empty where there is no /proc. */
export const procTable: ProcessTable = {
  list(since) {
    let names: string[];
    try {
      names = readdirSync("/proc");
    } catch {
      return [];
    }
    const out: { pid: number; ppid: number; pgid?: number; environ?: string }[] = [];
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const stat = readProcStat(`/proc/${name}`);
      if (!stat || (since !== undefined && stat.start < since)) continue;
      let environ: string | undefined;
      try {
        environ = readFileSync(`/proc/${name}/environ`, "latin1");
      } catch {
        // Another user's process: not ours to find or kill.
      }
      out.push({ pid: Number(name), ppid: stat.ppid, pgid: stat.pgid, environ });
    }
    return out;
  },
  pipeWriters: pipeWriterSteps,
};

/**
 * Pids of the run: carriers of `marker` and their descendants, plus those of
 * `root` while it has not been reaped (after that its pid may be reused).
 * Never this process. Pure over the table.
 */
export function runProcesses(table: ProcessTable, root: number | undefined, marker: string): number[] {
  const rows = table.list();
  const needle = `${RUN_MARKER_VARIABLE}=${marker}\0`;
  const found = new Set<number>();
  for (const row of rows) if (row.environ && `${row.environ}\0`.includes(needle)) found.add(row.pid);
  // Descendants by parent pid, to a fixed point (a child listed before its parent is caught on a later pass).
  const members = new Set<number>(found);
  if (root !== undefined) members.add(root);
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of rows)
      if (!members.has(row.pid) && members.has(row.ppid)) {
        members.add(row.pid);
        grew = true;
      }
  }
  if (root !== undefined) members.delete(root);
  members.delete(process.pid);
  return [...members].sort((a, b) => a - b);
}

/**
 * Signal every process of the run that left its group (the group itself is
 * signalled by signalGroup, all at once): marker carriers and descendants of
 * `root` (the run's child, while it has not been reaped) that started after
 * the run began. Returns how many were signalled.
 */
export function signalRun(
  run: RunTrace,
  root: number | undefined,
  signal: NodeJS.Signals,
  kill: KillFn,
  table: ProcessTable = procTable,
): number {
  if (run.marker === undefined) return 0;
  let count = 0;
  const rows = table.list(run.since);
  const inGroup = new Set(rows.filter((r) => r.pgid === run.group).map((r) => r.pid));
  const snapshot = { list: () => rows };
  for (const pid of runProcesses(snapshot, root, run.marker)) {
    if (inGroup.has(pid)) continue;
    try {
      kill(pid, signal);
      count++;
    } catch {
      // Gone already, or not ours.
    }
  }
  return count;
}
