import { connect } from "node:net";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/client";
import { type HttpServeOptions, type RunningHttpServer, startHttpServer } from "../../src/transports/http.ts";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "../../src/transports/http-handler.ts";
import type { Closer } from "./closers.ts";
import { tempDir, writeSkill } from "./fs.ts";
import { testHub } from "./hub.ts";
import { HANG_MS } from "./wait.ts";

export const ORIGIN = "http://127.0.0.1:8000";

/** An initialize request body. */
export function initialize(protocolVersion: string = LATEST_PROTOCOL_VERSION, id: number | string = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "handler-test", version: "1.0.0" } },
  };
}

export interface RequestSpec {
  body?: unknown;
  headers?: Record<string, string>;
  /** Session id header. */
  session?: string;
}

/** A Request as a well-behaved client on this machine sends it; `headers` override or (with "") remove. */
export function mcpRequest(method: string, path = "/mcp", spec: RequestSpec = {}): Request {
  const headers: Record<string, string> = {
    host: "127.0.0.1:8000",
    accept: "application/json, text/event-stream",
    ...(spec.body !== undefined ? { "content-type": "application/json" } : {}),
    ...(spec.session ? { "mcp-session-id": spec.session } : {}),
    ...spec.headers,
  };
  for (const [k, v] of Object.entries(headers)) if (v === "") delete headers[k];
  const body =
    spec.body === undefined ? undefined : typeof spec.body === "string" ? spec.body : JSON.stringify(spec.body);
  return new Request(`${ORIGIN}${path}`, { method, headers, body });
}

/** The JSON-RPC messages in a response: a JSON body, or the data lines of an SSE body. */
export async function messages(response: Response): Promise<Array<Record<string, any>>> {
  const text = await response.text();
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    const value = JSON.parse(text);
    return Array.isArray(value) ? value : [value];
  }
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l.length > 6)
    .map((l) => JSON.parse(l.slice(6)));
}

/** A handler over a hub with two skills, a controllable clock, and helpers to open sessions. */
export function handlerWorld(options: Partial<HttpHandlerOptions> = {}, env: Record<string, string> = {}) {
  const dir = tempDir("skillhub-http-");
  writeSkill(dir, "git-helper", { description: "Git workflow helper" });
  writeSkill(dir, "pdf-tools", { description: "Work with PDF files" });
  const { hub, logger } = testHub({ flags: { "skills-dir": [dir] }, env, hub: { acceptRoots: false } });
  let clock = 1_000_000;
  const handler = createHttpHandler(hub, { host: "127.0.0.1", now: () => clock, version: "test", ...options });
  void hub.start();
  const open = async (protocolVersion?: string) => {
    const response = await handler.handle(mcpRequest("POST", "/mcp", { body: initialize(protocolVersion) }));
    const id = response.headers.get("mcp-session-id");
    const [init] = await messages(response);
    if (!id || !init) throw new Error(`no session (status ${response.status})`);
    await handler.handle(
      mcpRequest("POST", "/mcp", { session: id, body: { jsonrpc: "2.0", method: "notifications/initialized" } }),
    );
    return { id, init };
  };
  const close = async () => {
    await handler.close();
    await hub.shutdown();
  };
  return {
    dir,
    hub,
    logger,
    handler,
    open,
    close,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

/** Read JSON-RPC messages from an SSE response one at a time (keep-alive comments skipped). */
export function sseReader(response: Response) {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next(timeoutMs = HANG_MS): Promise<Record<string, any>> {
      const read = async () => {
        for (;;) {
          const end = buffer.indexOf("\n\n");
          if (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.split("\n").find((l) => l.startsWith("data: "));
            if (data && data.length > 6) return JSON.parse(data.slice(6));
            continue;
          }
          const { done, value } = await reader.read();
          if (done) throw new Error("stream ended");
          buffer += decoder.decode(value, { stream: true });
        }
      };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no SSE message within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([read(), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    /** Read on to the stream's end, as a socket does once its client has the answers (throws on a message). */
    async ended(): Promise<void> {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
      }
      if (buffer.includes("data: ")) throw new Error(`a message after the last one read: ${buffer.slice(0, 200)}`);
    },
    cancel: () => reader.cancel(),
  };
}

/** A fetch into `handler` as if every request came from `peer`. */
export function fetchFrom(handler: Pick<HttpHandler, "handle">, peer: string): typeof globalThis.fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(String(input), init);
    request.headers.set("host", "127.0.0.1:8000");
    return handler.handle(request, { peer });
  }) as typeof globalThis.fetch;
}

/** Request hooks from `peer` that count how often the socket's silence limit is lifted and put back. */
export function countedSocket(peer = "10.0.0.1") {
  const socket = { lifted: 0, restored: 0 };
  const hooks = {
    peer,
    longLived: () => {
      socket.lifted++;
      return () => void socket.restored++;
    },
  };
  return { socket, hooks };
}

/** The web page's view of one file of a skill (`/ui/api/file`), asked of `handler` as a browser on the server's host would. */
export function pageFile(handler: Pick<HttpHandler, "handle">) {
  return (id: string, path: string) =>
    handler.handle(
      new Request(`${ORIGIN}/ui/api/file?id=${encodeURIComponent(id)}&path=${encodeURIComponent(path)}`, {
        headers: { host: "127.0.0.1:8000" },
      }),
    );
}

/**
 * A raw connection to `port` on loopback that sends `text` now and what `send` is given later: what it has
 * received, and its close. Destroyed by `closers` after the test.
 */
export function rawClient(port: number, text: string, closers: Closer[]) {
  let received = "";
  const socket = connect(port, "127.0.0.1", () => socket.write(text));
  socket.on("data", (data) => {
    received += data.toString();
  });
  socket.on("error", () => undefined);
  closers.push(async () => void socket.destroy());
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  return {
    send: (more: string) => socket.write(more),
    closed,
    received: () => received,
    destroy: () => socket.destroy(),
  };
}

/**
 * `skillhub serve --transport http` in process, on a free loopback port, over one skill (git-helper), once
 * its first scan is done; stopped by `closers` after the test.
 */
export async function servingOneSkill(closers: Closer[], options: HttpServeOptions = {}): Promise<RunningHttpServer> {
  const dir = tempDir("skillhub-http-");
  writeSkill(dir, "git-helper", { description: "Git workflow helper" });
  const { hub } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
  const running = startHttpServer(hub, { port: 0, ...options });
  void hub.start();
  await hub.ready;
  closers.push(async () => {
    await running.stop();
    hub.close();
  });
  return running;
}
