/**
 * A minimal JSON-RPC-over-stdio client for benchmarks: timestamps without the
 * SDK client's own overhead, the same for SkillHub and the floor.
 */
import type { Subprocess } from "bun";

export interface Spawned {
  proc: Subprocess<"pipe", "pipe", "pipe">;
  /** ms from spawn to now. */
  since(): number;
  request(method: string, params?: unknown): Promise<{ result?: any; error?: any; bytes: number }>;
  notify(method: string, params?: unknown): void;
  /** Peak resident set size so far (kB), from /proc. */
  peakRssKb(): number;
  /** Resident set size now (kB), from /proc. */
  rssKb(): number;
  /** CPU time used so far (ms, user + system), from /proc. */
  cpuMs(): number;
  close(): Promise<void>;
}

export function spawnServer(cmd: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Spawned {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const pending = new Map<number, (msg: { result?: unknown; error?: unknown; bytes: number }) => void>();
  let nextId = 1;
  // Drain stderr so the child never blocks on a full pipe.
  void new Response(proc.stderr).text();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of proc.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        if (msg.id !== undefined && pending.has(msg.id)) {
          pending.get(msg.id)?.({ result: msg.result, error: msg.error, bytes: line.length });
          pending.delete(msg.id);
        }
      }
    }
  })();
  const send = (msg: object) => {
    proc.stdin.write(`${JSON.stringify(msg)}\n`);
    proc.stdin.flush();
  };
  return {
    proc,
    since: () => performance.now() - started,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        send({ jsonrpc: "2.0", id, method, params });
      });
    },
    notify(method, params) {
      send({ jsonrpc: "2.0", method, params });
    },
    peakRssKb: () => procStatus(proc.pid, "VmHWM"),
    rssKb: () => procStatus(proc.pid, "VmRSS"),
    cpuMs() {
      try {
        const stat = require("node:fs").readFileSync(`/proc/${proc.pid}/stat`, "utf8") as string;
        // Fields after the command name: utime and stime are the 14th and 15th of the line.
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      } catch {
        return Number.NaN;
      }
    },
    async close() {
      proc.stdin.end();
      const timer = setTimeout(() => proc.kill("SIGKILL"), 3000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}

function procStatus(pid: number, key: string): number {
  try {
    const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
    return Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "skillhub-bench", version: "1.0.0" },
};

/** The nearest-rank `p`th percentile (0–100) of `values`; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** The middle value; with an even count, the mean of the two middle ones (not the lower, as a percentile gives). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[mid] as number;
  return sorted.length === 0 ? Number.NaN : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Each numeric figure's median over rounds (a figure a round lacks is left out of its median). */
export function medianOf<T extends object>(rounds: readonly T[]): T {
  const out: Record<string, number> = {};
  for (const key of new Set(rounds.flatMap((round) => Object.keys(round)))) {
    const values = rounds.map((round) => (round as Record<string, unknown>)[key]);
    const numbers = values.filter((v): v is number => typeof v === "number");
    if (numbers.length > 0) out[key] = median(numbers);
  }
  return out as T;
}

/**
 * search_skills until the answer is complete, polling every 50 ms: a first start answers a large
 * catalog's searches early (`partial`) while its index is built. The first answer and the complete one.
 */
export async function searchComplete(
  s: Spawned,
  query: string,
  /** Stop at the first answer, complete or not. */
  firstOnly = false,
): Promise<{ first: { partial: boolean; atMs: number }; completeMs: number }> {
  let first: { partial: boolean; atMs: number } | undefined;
  for (;;) {
    const reply = await s.request("tools/call", { name: "search_skills", arguments: { query } });
    if (reply.error || reply.result?.isError) throw new Error(`search failed: ${JSON.stringify(reply).slice(0, 300)}`);
    const partial = typeof reply.result?.structuredContent?.partial === "string";
    first ??= { partial, atMs: s.since() };
    if (!partial || firstOnly) return { first, completeMs: s.since() };
    await Bun.sleep(50);
  }
}
