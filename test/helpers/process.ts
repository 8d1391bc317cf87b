import { afterEach } from "bun:test";
import { readFileSync } from "node:fs";
import { HANG_MS } from "./wait.ts";

/**
 * Whether process `pid` has ended. `process.kill(pid, 0)` first; a zombie
 * (dead, waiting for a parent to reap it — PID 1 of some containers never
 * does) counts as ended too, read from /proc on Linux.
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

/**
 * Poll until every pid is gone or `ms` elapse; returns those still running. The cap only detects a
 * process really left running (HANG_MS): polling returns as soon as they are gone.
 */
export async function survivors(pids: readonly number[], ms = HANG_MS): Promise<number[]> {
  const end = Date.now() + ms;
  let alive = pids.filter((p) => !isGone(p));
  while (alive.length > 0 && Date.now() < end) {
    await Bun.sleep(20);
    alive = alive.filter((p) => !isGone(p));
  }
  return alive;
}

/**
 * A run's timeout held by the test (ProcessOptions.setTimeout): it fires when the test calls `fire`,
 * not after a wall-clock delay a busy machine could outrun.
 */
export function heldTimeout() {
  let fn: (() => void) | undefined;
  const held = {
    /** The delay the run asked for. */
    ms: -1,
    options: {
      setTimeout: (f: () => void, ms: number) => {
        fn = f;
        held.ms = ms;
        return 1;
      },
      clearTimeout: () => {
        fn = undefined;
      },
    },
    fire: () => fn?.(),
  };
  return held;
}

/** A list a test adds the pids it starts to: each is killed after each test, whatever happened. */
export function killedAfterEach(): number[] {
  const pids: number[] = [];
  afterEach(() => {
    for (const pid of pids.splice(0))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
  });
  return pids;
}
