import { readFileSync } from "node:fs";

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
 * Poll until every pid is gone or `ms` elapse; returns those still running. The cap is long (10 s)
 * so that a busy machine cannot fail a test; a process that was really left running is still found.
 */
export async function survivors(pids: readonly number[], ms = 10_000): Promise<number[]> {
  const end = Date.now() + ms;
  let alive = pids.filter((p) => !isGone(p));
  while (alive.length > 0 && Date.now() < end) {
    await Bun.sleep(20);
    alive = alive.filter((p) => !isGone(p));
  }
  return alive;
}
