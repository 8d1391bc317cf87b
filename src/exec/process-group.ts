import { errnoCode } from "../util/errors.ts";
import { type KillFn, signalRun } from "./process-tree.ts";

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

/** The groups a hub has started and not yet seen end, so a server that closes mid-script leaves nothing behind. */
export class RunningGroups {
  private readonly running = new Map<number, KillFn>();
  /** Each run's marker (process-tree.ts), so descendants that left the group die at shutdown too. */
  private readonly markers = new Map<number, string>();

  add(group: number, kill: KillFn, marker?: string): void {
    this.running.set(group, kill);
    if (marker) this.markers.set(group, marker);
  }

  delete(group: number): void {
    this.running.delete(group);
    this.markers.delete(group);
  }

  /** How many groups are running now. */
  get size(): number {
    return this.running.size;
  }

  /** Groups of scripts and commands running now. */
  list(): number[] {
    return [...this.running.keys()];
  }

  /** SIGKILL every group still running (server shutdown); returns how many were signalled. */
  killAll(): number {
    let count = 0;
    for (const [group, kill] of this.running) {
      if (signalGroup(group, "SIGKILL", kill)) count++;
      const marker = this.markers.get(group);
      if (marker) signalRun(group, undefined, marker, "SIGKILL", kill);
    }
    this.running.clear();
    this.markers.clear();
    return count;
  }
}
