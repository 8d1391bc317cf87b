/**
 * CPU time of a process, per thread, in nanoseconds rather than /proc/PID/stat's 10 ms ticks: an idle
 * server uses a few tens of ms over 31 s, so ticks made the figure move by 10 ms from run to run.
 * /proc/PID/task/TID/schedstat's first field is the time the thread ran. A thread that ends between
 * two samples keeps what the last sample saw, so callers sample often (every 250 ms) over a window;
 * where schedstat is missing (not Linux, or a kernel without it) the ticks are used instead.
 */
import { readdirSync, readFileSync } from "node:fs";

/** ms of CPU per thread name (threads of one name summed; the main thread is "main"). */
export type ThreadTimes = Record<string, number>;

export class ThreadCpu {
  /** Last seen ns per thread id, and its name. Threads that ended stay with their last figure. */
  private readonly seen = new Map<string, { name: string; ns: number }>();
  private readonly precise: boolean;

  constructor(private readonly pid: number) {
    this.precise = readThread(pid, String(pid))?.ns !== undefined;
    this.sample();
  }

  /** Read every thread now. */
  sample(): void {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${this.pid}/task`);
    } catch {
      return; // The process ended: keep the last figures.
    }
    for (const tid of tids) {
      const t = readThread(this.pid, tid, this.precise);
      if (t) this.seen.set(tid, { name: tid === String(this.pid) ? "main" : t.name, ns: t.ns ?? t.tickNs });
    }
  }

  /** CPU so far, per thread name, in ms. */
  byName(): ThreadTimes {
    const out: ThreadTimes = {};
    for (const { name, ns } of this.seen.values()) out[name] = (out[name] ?? 0) + ns / 1e6;
    return out;
  }

  /** CPU so far, all threads, in ms. */
  totalMs(): number {
    let ns = 0;
    for (const t of this.seen.values()) ns += t.ns;
    return ns / 1e6;
  }
}

/** Each process's CPU (ms, and by thread name) over the next `ms`, sampled every `everyMs`. */
export async function cpuOver(
  pids: number[],
  ms: number,
  everyMs = 250,
): Promise<{ ms: number; threads: ThreadTimes }[]> {
  const meters = pids.map((pid) => new ThreadCpu(pid));
  const before = meters.map((m) => ({ total: m.totalMs(), threads: m.byName() }));
  const end = performance.now() + ms;
  while (performance.now() < end) {
    await Bun.sleep(Math.min(everyMs, Math.max(0, end - performance.now())));
    for (const m of meters) m.sample();
  }
  return meters.map((m, i) => {
    const was = before[i] as { total: number; threads: ThreadTimes };
    const threads: ThreadTimes = {};
    for (const [name, v] of Object.entries(m.byName())) {
      const used = v - (was.threads[name] ?? 0);
      if (used > 0.05) threads[name] = used;
    }
    return { ms: m.totalMs() - was.total, threads };
  });
}

function readThread(
  pid: number,
  tid: string,
  precise = true,
): { name: string; ns?: number; tickNs: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime, in clock ticks (100 a second on Linux).
    const tickNs = (Number(fields[11]) + Number(fields[12])) * 1e7;
    if (!precise) return { name, tickNs };
    const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    return { name, ns: Number.isFinite(ns) ? ns : undefined, tickNs };
  } catch {
    return undefined;
  }
}
