import type { ProcStat } from "./process-stat.ts";

/**
 * Security: the processes a kill has stopped (SIGSTOP, its first half: exec/process-tree.ts) and not yet
 * killed, across every search of this server. A stopped process stays stopped until something sends it
 * SIGCONT or SIGKILL: were the server to end between the two halves, what it had stopped would stay
 * stopped for good, holding its locks, ports and files. So a closing server kills every one of them
 * (RunningGroups.killAll, and a handler of this process's 'exit'), and a kill's two halves are never
 * far apart (exec/process-tree.ts STOP_WINDOW_MS), which bounds what a server killed outright leaves.
 *
 * A stopped process can still die meanwhile (another's SIGKILL), and its pid go to another process of
 * the user. So each is kept with its start (/proc/<pid>/stat), read again right before the SIGKILL: a
 * pid that now names a process started at another moment is left alone.
 */

/** process.kill's shape. */
type Kill = (pid: number, signal: NodeJS.Signals | 0) => void;

/** What a stopped process is known by, and how it is signalled and looked at again. */
export interface StoppedProcess {
  /** When it started, in clock ticks since boot; undefined where the table does not tell. */
  start?: number;
  kill: Kill;
  /** Its /proc/<pid>/stat now; without it, the pid is taken to be the same process. */
  stat?: (pid: number) => ProcStat | undefined;
}

const stopped = new Map<number, StoppedProcess>();
let watchingExit = false;

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

/** SIGSTOP `pid` and keep it in the record until killStopped. Throws as `process.kill` does (gone, not ours). */
export function stopProcess(pid: number, entry: StoppedProcess): void {
  entry.kill(pid, "SIGSTOP");
  stopped.set(pid, entry);
  if (!watchingExit) {
    watchingExit = true;
    // The last chance of an exiting server (process.exit, a signal the server handles): nothing stays stopped.
    process.on("exit", () => killAllStopped());
  }
}

/** SIGKILL a process stopped by stopProcess, if it is still the one stopped; it leaves the record either way. */
export function killStopped(pid: number): void {
  const entry = stopped.get(pid);
  if (!entry) return;
  stopped.delete(pid);
  if (!sameProcess(pid, entry.start, entry.stat)) return;
  try {
    entry.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** SIGKILL every process still stopped by a search (a closing server). Returns how many were in the record. */
export function killAllStopped(): number {
  const pids = [...stopped.keys()];
  for (const pid of pids) killStopped(pid);
  return pids.length;
}

/** The pids stopped and not yet killed, lowest first. */
export function stoppedPids(): number[] {
  return [...stopped.keys()].sort((a, b) => a - b);
}
