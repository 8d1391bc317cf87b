import { readFileSync } from "node:fs";

/**
 * When a process started, as /proc tells it (Linux): in clock ticks since boot. A run's search for its
 * processes compares each one's start with the moment the run began, so a process that was already
 * running then (a daemon of yours, the server's own parents, a stranger given a pid the run's processes
 * had) is never taken for one of the run's.
 */

/**
 * USER_HZ, the unit of /proc's process times: 100 on every architecture Bun runs on (x86-64, arm64),
 * whatever tick rate the kernel itself uses.
 */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat the searches use. */
export interface ProcStat {
  ppid: number;
  pgid: number;
  /** Clock ticks since boot when it started: with the pid, what tells this process from a later one given its pid. */
  start: number;
  /** One letter: R running, S sleeping, T stopped, Z zombie… */
  state: string;
}

/** /proc/<pid>/stat, or of any /proc task folder (`/proc/<pid>/task/<tid>`); undefined when it is gone. */
export function readProcStat(dir: string): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`${dir}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp … starttime …": comm may hold spaces and parentheses, so cut at the last ")".
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: rest[0] ?? "", ppid: Number(rest[1]), pgid: Number(rest[2]), start: Number(rest[19]) };
}

/**
 * Now, in the ticks a process's start is counted in (/proc/uptime counts the same boot clock, in
 * hundredths of a second); undefined without /proc. A process that starts after this call has a start
 * at least this.
 */
export function bootTicks(): number | undefined {
  try {
    const uptime = readFileSync("/proc/uptime", "latin1").split(" ")[0] ?? "";
    const [seconds = "", hundredths = "0"] = uptime.split(".");
    const ticks = Number(seconds) * TICKS_PER_SECOND + Math.floor((Number(hundredths) * TICKS_PER_SECOND) / 100);
    return Number.isFinite(ticks) && seconds !== "" ? ticks : undefined;
  } catch {
    return undefined;
  }
}
