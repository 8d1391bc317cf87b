import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir, write } from "./fs.ts";
import { eventually } from "./hub.ts";

/** Debian's haproxy: on PATH, or where the package puts it (root's PATH has /usr/sbin, others' may not). */
export function haproxyBinary(): string | undefined {
  return Bun.which("haproxy") ?? (existsSync("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : undefined);
}

export interface Balancer {
  /** The MCP endpoint through the balancer. */
  url: string;
  base: string;
  stop(): Promise<void>;
}

/** A free loopback port (the balancer cannot be asked for port 0 and then tell which it got). */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * haproxy in front of `upstreams` (http://HOST:PORT each), round robin. With
 * `sticky`, a 2025 session stays on the replica that opened it: the
 * Mcp-Session-Id of each initialize answer is learnt from the response and
 * later requests carrying it go to the same server; requests without one (a
 * 2026-07-28 request, an initialize, the web page) are balanced. Runs in the
 * foreground of a child process, loopback only; stop() ends it.
 */
export async function startHaproxy(upstreams: readonly string[], options: { sticky: boolean }): Promise<Balancer> {
  const bin = haproxyBinary();
  if (!bin) throw new Error("haproxy is not installed");
  const port = freePort();
  const config = [
    "global",
    "  maxconn 256",
    "defaults",
    "  mode http",
    "  timeout connect 5s",
    "  timeout client 120s",
    "  timeout server 120s",
    "  timeout tunnel 120s",
    "frontend mcp",
    `  bind 127.0.0.1:${port}`,
    "  default_backend replicas",
    "backend replicas",
    "  balance roundrobin",
    ...(options.sticky
      ? [
          "  stick-table type string len 64 size 10k expire 30m",
          "  stick on req.hdr(mcp-session-id)",
          "  stick store-response res.hdr(mcp-session-id)",
        ]
      : []),
    ...upstreams.map((u, i) => `  server replica${i} ${new URL(u).host}`),
    "",
  ].join("\n");
  const file = write(join(tempDir("skillhub-haproxy-"), "haproxy.cfg"), config);
  const check = Bun.spawnSync([bin, "-c", "-q", "-f", file], { stderr: "pipe" });
  if (check.exitCode !== 0) throw new Error(`haproxy refused its config: ${check.stderr.toString()}`);
  const proc = Bun.spawn([bin, "-db", "-f", file], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const base = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (proc.exitCode !== null) throw new Error(`haproxy exited ${proc.exitCode}`);
    return (await fetch(`${base}/healthz`).catch(() => undefined))?.ok ?? false;
  });
  return {
    url: `${base}/mcp`,
    base,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
