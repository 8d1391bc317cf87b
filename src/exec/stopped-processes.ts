import type { ProcStat } from "./process-stat.ts";

/**
 * Security: the processes a kill has stopped (SIGSTOP, its first half: exec/process-tree.ts) and not yet
 * killed, across every search of this server. A stopped process stays stopped until something sends it
 * SIGCONT or SIGKILL: were the server to end between the two halves, what it had stopped would stay
 * stopped for good, holding its locks, ports and files. So a closing server kills every one of them
 * (RunningGroups.killAll, and a handler of this process's 'exit'), and a kill's two halves are never
 * far apart (exec/process-tree.ts STOP_WINDOW_MS), which bounds what a server killed outright leaves.
 *
 * A process can die between the look that found it and a signal (another's SIGKILL), and its pid go to
 * another process of the user. So each is known by its start (/proc/<pid>/stat), read again right before
 * every signal and once more after the SIGSTOP: a pid that now names a process started at another moment
 * is left alone. A closing server (RunningGroups.killAll) stops nothing more: its searches kill as they find.
 */

/** process.kill's shape. */
type Kill = (pid: number, signal: NodeJS.Signals | 0) => void;

/** What a process is known by, and how it is signalled and looked at again. */
export interface KnownProcess {
  /** When it started, in clock ticks since boot; undefined where the table does not tell. */
  start?: number;
  kill: Kill;
  /** Its /proc/<pid>/stat now; without it, the pid is taken to be the same process. */
  stat?: (pid: number) => ProcStat | undefined;
}

/** Stopped processes by pid and start: an older process given the same pid is another entry. */
const stopped = new Map<string, KnownProcess & { pid: number }>();
let watchingExit = false;

const keyOf = (pid: number, start: number | undefined) => `${pid} ${start}`;

/**
 * Whether `pid` is still the process that started at `start` and has not died: a zombie (Z) or a dead
 * one (X) needs no signal, and a pid whose start differs names another process now. A process merely
 * not shown stopped (T) yet is the same process: SIGSTOP takes effect when it next runs, and leaving it
 * unkilled would leave it stopped for good.
 */
export function sameProcess(pid: number, start: number | undefined, stat?: (pid: number) => ProcStat | undefined) {
  if (!stat) return true;
  const now = stat(pid);
  return now !== undefined && now.start === start && now.state !== "Z" && now.state !== "X";
}

/**
 * Security: send `signal` to `pid` only if it still names the process that started at `known.start`
 * (read again now: the look that found it may be seconds old). Returns whether it was sent; throws as
 * `process.kill` does (gone, not ours).
 */
export function signalSame(pid: number, signal: NodeJS.Signals, known: KnownProcess): boolean {
  if (!sameProcess(pid, known.start, known.stat)) return false;
  known.kill(pid, signal);
  return true;
}

/**
 * SIGSTOP `pid` if it is still the process that started at `entry.start`, and keep it in the record until
 * killStopped. Returns whether it was stopped; throws as `process.kill` does (gone, not ours).
 *
 * Security: the pid may go to another process between the look and the SIGSTOP. So it is looked at again
 * once stopped (a stopped process cannot exit on its own, so what this look sees holds): a stranger is
 * sent SIGCONT and not kept.
 */
export function stopProcess(pid: number, entry: KnownProcess): boolean {
  if (!signalSame(pid, "SIGSTOP", entry)) return false;
  if (!sameProcess(pid, entry.start, entry.stat)) {
    try {
      entry.kill(pid, "SIGCONT");
    } catch {
      // Gone already.
    }
    return false;
  }
  stopped.set(keyOf(pid, entry.start), { ...entry, pid });
  if (!watchingExit) {
    watchingExit = true;
    // The last chance of an exiting server (process.exit, a signal the server handles): nothing stays stopped.
    process.on("exit", () => killAllStopped());
  }
  return true;
}

/** SIGKILL a process stopped by stopProcess, if it is still the one stopped; it leaves the record either way. */
export function killStopped(pid: number, start: number | undefined): void {
  const key = keyOf(pid, start);
  const entry = stopped.get(key);
  if (!entry) return;
  stopped.delete(key);
  try {
    signalSame(pid, "SIGKILL", entry);
  } catch {
    // Gone already.
  }
}

/** SIGKILL every process still stopped by a search (a closing server). Returns how many were in the record. */
export function killAllStopped(): number {
  const entries = [...stopped.values()];
  for (const { pid, start } of entries) killStopped(pid, start);
  return entries.length;
}

/** The pids stopped and not yet killed, lowest first. */
export function stoppedPids(): number[] {
  return [...stopped.values()].map(({ pid }) => pid).sort((a, b) => a - b);
}
