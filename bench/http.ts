/**
 * `make bench-http`: requests per second and p50/p99 latency of one
 * tool call over Streamable HTTP, with N concurrent clients (one session each)
 * on loopback against the compiled binary in its own process. The clients are
 * plain fetch loops that speak the protocol (initialize, session header, SSE or
 * JSON answers), so the figures measure the server, not a client library's
 * stream parsing. The tool is search_skills when the server offers it, else `skill`.
 * Standalone: bun bench/http.ts [--skills-dir DIR] [--clients 10] [--seconds 5] [--stateless]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/client";
import { binary } from "../test/helpers/binary.ts";
import { startHttpBinary } from "../test/helpers/http-binary.ts";
import { percentile } from "./lib/rpc.ts";

export interface HttpBenchOptions {
  /** The skillhub binary. Default dist/skillhub (built when stale). */
  bin?: string;
  /** Skills to serve. Default skills-example/. */
  skillsDir?: string;
  /** Concurrent clients, one session each. Default 10. */
  clients?: number;
  /** Measured time (ms), after a warm-up. Default 5,000. */
  durationMs?: number;
  /** Calls per client before measuring. Default 20. */
  warmupCalls?: number;
  /** Serve with --stateless (JSON answers, no sessions). Default false. */
  stateless?: boolean;
}

export interface HttpBenchResult {
  tool: string;
  mode: "sessions" | "stateless";
  clients: number;
  requests: number;
  errors: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

const QUERIES = [
  "git commit message",
  "slow postgres query",
  "pdf invoice",
  "docker compose",
  "release notes",
  "code review",
  "api documentation",
];

/** Start the binary over HTTP, open `clients` sessions, call the tool in a loop for `durationMs`; the binary is stopped after. */
export async function benchHttp(options: HttpBenchOptions = {}): Promise<HttpBenchResult> {
  const clients = options.clients ?? 10;
  const durationMs = options.durationMs ?? 5000;
  const home = mkdtempSync(join(tmpdir(), "skillhub-bench-http-"));
  const skillsDir = options.skillsDir ?? join(import.meta.dir, "..", "skills-example");
  const server = await startHttpBinary(
    options.bin ?? binary(),
    ["--skills-dir", skillsDir, "--no-watch", ...(options.stateless ? ["--stateless"] : [])],
    {
      env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "WARN" },
      cwd: home,
    },
  );
  const sessions: BenchSession[] = [];
  try {
    for (let i = 0; i < clients; i++) sessions.push(await BenchSession.open(server.url, `bench-${i}`));
    const first = sessions[0] as BenchSession;
    const tools = ((await first.request("tools/list")).result?.tools ?? []) as Array<{
      name: string;
      description?: string;
    }>;
    const search = tools.some((t) => t.name === "search_skills");
    const names = [
      ...(tools.find((t) => t.name === "skill")?.description ?? "").matchAll(/<name>([^<]+)<\/name>/g),
    ].map((m) => m[1] as string);
    const call = (s: BenchSession, i: number) =>
      s.request(
        "tools/call",
        search
          ? { name: "search_skills", arguments: { query: QUERIES[i % QUERIES.length] } }
          : { name: "skill", arguments: { name: names[i % Math.max(1, names.length)] ?? "missing" } },
      );
    await Promise.all(
      sessions.map(async (s) => {
        for (let i = 0; i < (options.warmupCalls ?? 20); i++) await call(s, i);
      }),
    );
    const latencies: number[] = [];
    let errors = 0;
    const start = performance.now();
    const end = start + durationMs;
    await Promise.all(
      sessions.map(async (s, k) => {
        for (let i = k; performance.now() < end; i++) {
          const t0 = performance.now();
          try {
            const reply = await call(s, i);
            if (!reply.result || reply.result.isError) errors++;
          } catch {
            errors++;
          }
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      tool: search ? "search_skills" : "skill",
      mode: options.stateless ? "stateless" : "sessions",
      clients,
      requests: latencies.length,
      errors,
      seconds,
      requestsPerSecond: latencies.length / seconds,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    };
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

type Reply = { result?: Record<string, any>; error?: { message: string } };

/** One client: a session (when the server issues one) and sequential JSON-RPC calls over fetch. */
class BenchSession {
  private nextId = 1;
  private constructor(
    private readonly url: string,
    private session: string | null,
  ) {}

  static async open(url: string, name: string): Promise<BenchSession> {
    const s = new BenchSession(url, null);
    const init = await s.post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name, version: "1.0.0" } },
    });
    s.session = init.headers.get("mcp-session-id");
    await init.text();
    await (await s.post({ jsonrpc: "2.0", method: "notifications/initialized" })).text();
    return s;
  }

  async request(method: string, params: Record<string, unknown> = {}): Promise<Reply> {
    const response = await this.post({ jsonrpc: "2.0", id: this.nextId++, method, params });
    const text = await response.text();
    // An SSE answer carries the message on its data line; a JSON answer is the message.
    const data = response.headers.get("content-type")?.startsWith("text/event-stream")
      ? text
          .split("\n")
          .find((l) => l.startsWith("data: "))
          ?.slice(6)
      : text;
    if (!response.ok || !data) throw new Error(`HTTP ${response.status}`);
    return JSON.parse(data) as Reply;
  }

  async close(): Promise<void> {
    if (this.session)
      await fetch(this.url, { method: "DELETE", headers: { "mcp-session-id": this.session } }).catch(() => undefined);
  }

  private post(message: unknown): Promise<Response> {
    return fetch(this.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
        ...(this.session ? { "mcp-session-id": this.session } : {}),
      },
      body: JSON.stringify(message),
    });
  }
}

export function formatHttpBench(r: HttpBenchResult): string {
  return `HTTP ${r.mode.padEnd(9)} ${r.tool}: ${r.requestsPerSecond.toFixed(0)} req/s with ${r.clients} clients (${r.requests} calls in ${r.seconds.toFixed(1)} s, ${r.errors} errors); p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      "skills-dir": { type: "string" },
      clients: { type: "string" },
      seconds: { type: "string" },
      stateless: { type: "boolean" },
    },
  });
  const base: HttpBenchOptions = {
    skillsDir: values["skills-dir"],
    clients: values.clients ? Number(values.clients) : undefined,
    durationMs: values.seconds ? Number(values.seconds) * 1000 : undefined,
  };
  const modes = values.stateless ? [true] : [false, true];
  for (const stateless of modes) console.log(formatHttpBench(await benchHttp({ ...base, stateless })));
}
