import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Security: every process a script started, found again at its end. Killing
 * the script's process group misses a child that called setsid (a new
 * session is a new group) or that was reparented to PID 1. So each run gets a
 * marker variable (SKILLHUB_RUN_ID=<random>) that every descendant inherits
 * through fork and exec, and at timeout (and at the end of the run) the
 * server walks /proc: a process whose initial environment carries the marker,
 * or whose parent chain leads to the script, is signalled too.
 *
 * One that wipes its environment *and* leaves the tree (double fork + env -i)
 * is still found while it holds the run's stdout or stderr open (the pipes
 * were made for this run alone, before it started: exec/output-pipes.ts).
 * Linux only (/proc). Elsewhere the process group is all there is (see
 * docs/hardening.md). A descendant that does all three (leaves, wipes, closes
 * its output) escapes; cgroups would catch it but need privileges this server
 * does not assume.
 */

export const RUN_MARKER_VARIABLE = "SKILLHUB_RUN_ID";

/** process.kill's shape; a negative pid names a process group (POSIX). */
export type KillFn = (pid: number, signal: NodeJS.Signals | 0) => void;

export interface ProcessTable {
  /** Every pid with its parent pid and, when readable, its initial environment. */
  list(): { pid: number; ppid: number; pgid?: number; environ?: string }[];
  /** Processes other than this one that hold one of `pipes` open for writing. */
  pipeWriters?(pipes: readonly string[]): number[];
}

/** The live table from /proc; empty where there is no /proc. */
export const procTable: ProcessTable = {
  list() {
    let names: string[];
    try {
      names = readdirSync("/proc");
    } catch {
      return [];
    }
    const out: { pid: number; ppid: number; pgid?: number; environ?: string }[] = [];
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      let ppid = 0;
      let pgid = 0;
      try {
        // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so cut at the last ")".
        const fields = readFileSync(`/proc/${name}/stat`, "latin1");
        const rest = fields.slice(fields.lastIndexOf(")") + 2).split(" ");
        ppid = Number(rest[1]);
        pgid = Number(rest[2]);
      } catch {
        continue;
      }
      let environ: string | undefined;
      try {
        environ = readFileSync(`/proc/${name}/environ`, "latin1");
      } catch {
        // Another user's process: not ours to find or kill.
      }
      out.push({ pid, ppid, pgid, environ });
    }
    return out;
  },
  pipeWriters(pipes) {
    if (pipes.length === 0) return [];
    const wanted = new Set(pipes);
    const writers: number[] = [];
    for (const name of entries("/proc")) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
      // Another user's process lists no descriptors to us: not ours to find or kill.
      const holds = entries(`/proc/${name}/fd`).some((fd) => {
        const target = linkOf(`/proc/${name}/fd/${fd}`);
        return target !== undefined && wanted.has(target) && writable(`/proc/${name}/fdinfo/${fd}`);
      });
      if (holds) writers.push(Number(name));
    }
    return writers;
  },
};

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function linkOf(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Whether a descriptor's fdinfo shows it open for writing (O_WRONLY or O_RDWR in its octal `flags`). */
function writable(fdinfo: string): boolean {
  try {
    const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(fdinfo, "latin1"))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & 3) !== 0;
  } catch {
    return false;
  }
}

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
 * Signal every process of the run that left its group `group` (the group
 * itself is signalled by signalGroup, all at once); returns how many were signalled.
 */
export function signalRun(
  group: number,
  root: number | undefined,
  marker: string,
  signal: NodeJS.Signals,
  kill: KillFn,
  table: ProcessTable = procTable,
): number {
  let count = 0;
  const rows = table.list();
  const inGroup = new Set(rows.filter((r) => r.pgid === group).map((r) => r.pid));
  const snapshot = { list: () => rows };
  for (const pid of runProcesses(snapshot, root, marker)) {
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
