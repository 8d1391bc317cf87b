import { dirname } from "node:path";
import type { Server } from "bun";
import { GIT_ENV } from "./git.ts";

export interface GitHttpServer {
  /** https://127.0.0.1:<port>/ */
  base: string;
  /** Authorization headers received, in order (null when absent). */
  authorizations: (string | null)[];
  stop(): void;
}

/**
 * A real smart-HTTP git server over HTTPS: Bun.serve in front of
 * `git http-backend` (CGI), serving the bare repositories in `root`.
 * `authorized` decides from the Authorization header; a refusal is a 401.
 */
export function serveGitHttps(
  root: string,
  tls: { cert: string; key: string },
  authorized: (header: string | null) => boolean,
): GitHttpServer {
  const authorizations: (string | null)[] = [];
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls,
    async fetch(request) {
      const header = request.headers.get("authorization");
      authorizations.push(header);
      if (!authorized(header))
        return new Response("Unauthorized\n", { status: 401, headers: { "www-authenticate": 'Basic realm="git"' } });
      const proc = await httpBackend(root, request);
      const output = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
      await proc.exited;
      return cgiResponse(output);
    },
  });
  return { base: `https://127.0.0.1:${server.port}/`, authorizations, stop: () => server.stop(true) };
}

/**
 * A smart-HTTP git server over plain HTTP (loopback) that sends the first `afterBytes` bytes of each answer's
 * body and then holds the connection open without sending more: a remote that stalls in the middle of a
 * pack. `stop` ends the connections and the `git http-backend` processes.
 */
export function serveGitHttpStalled(root: string, afterBytes: number): { base: string; stop(): void } {
  const backends: { kill(): void }[] = [];
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const proc = await httpBackend(root, request);
      backends.push(proc);
      const reader = proc.stdout.getReader();
      // The CGI headers, then the body as it comes, cut at afterBytes.
      let head: Uint8Array = new Uint8Array(0);
      let end = -1;
      while (end < 0) {
        const { done, value } = await reader.read();
        if (done) return cgiResponse(head);
        head = concat(head, value);
        end = headerEnd(head);
      }
      const answer = cgiResponse(head.subarray(0, end + 4));
      let first: Uint8Array | undefined = head.subarray(end + 4);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const chunk = first ?? (await reader.read()).value;
          first = undefined;
          if (chunk === undefined) return controller.close();
          const room = afterBytes - sent;
          sent += chunk.length;
          controller.enqueue(chunk.subarray(0, Math.max(0, room)));
          // Stalled: no more bytes, and no end, until the client or the server goes.
          if (sent >= afterBytes) await new Promise(() => {});
        },
      });
      return new Response(stream, { status: answer.status, headers: answer.headers });
    },
  });
  return {
    base: `http://127.0.0.1:${server.port}/`,
    stop: () => {
      server.stop(true);
      for (const backend of backends) backend.kill();
    },
  };
}

/** `git http-backend` (CGI) started for one request to the bare repositories in `root`. */
async function httpBackend(root: string, request: Request) {
  const url = new URL(request.url);
  const body = new Uint8Array(await request.arrayBuffer());
  return Bun.spawn(["git", "http-backend"], {
    env: {
      ...GIT_ENV,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: request.method,
      CONTENT_TYPE: request.headers.get("content-type") ?? "",
      CONTENT_LENGTH: String(body.length),
      HTTP_CONTENT_ENCODING: request.headers.get("content-encoding") ?? "",
      HTTP_GIT_PROTOCOL: request.headers.get("git-protocol") ?? "",
      REMOTE_ADDR: "127.0.0.1",
    },
    stdin: body,
    stdout: "pipe",
    stderr: "ignore",
  });
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Where a CGI answer's headers end (the index of their closing CRLF CRLF), or -1. */
function headerEnd(output: Uint8Array): number {
  for (let i = 0; i + 3 < output.length; i++)
    if (output[i] === 13 && output[i + 1] === 10 && output[i + 2] === 13 && output[i + 3] === 10) return i;
  return -1;
}

/** Split a CGI answer into headers (with `Status:`) and body. */
function cgiResponse(output: Uint8Array): Response {
  const end = headerEnd(output);
  if (end < 0) return new Response("bad CGI output", { status: 502 });
  const headers = new Headers();
  let status = 200;
  for (const line of new TextDecoder().decode(output.subarray(0, end)).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 200;
    else headers.append(name, value);
  }
  return new Response(output.subarray(end + 4), { status, headers });
}

/** The folder holding a bare repository, for GIT_PROJECT_ROOT. */
export function projectRoot(bare: string): string {
  return dirname(bare);
}
