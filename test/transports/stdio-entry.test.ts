import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdioEntry } from "../../src/transports/stdio-entry.ts";
import { LineTransport } from "../../src/transports/stdio-lines.ts";
import { eventually, HANG_MS } from "../helpers/wait.ts";

// A connection's entry (src/transports/stdio-entry.ts): a 2025-era initialize is served by the server
// connected directly, any other opening by the SDK's entry; either way in order, and a failed start is
// answered, not left silent.

const line = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
const initialize = (id: number) =>
  line({
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
const ping = (id: number) => line({ id, method: "ping" });

function connection(factory: () => Promise<McpServer>, drainMs?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: { id?: number; result?: unknown; error?: { code: number } }[] = [];
  let buffer = "";
  stdout.on("data", (chunk: Buffer) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      out.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  const errors: string[] = [];
  let closed = 0;
  const handle = serveStdioEntry(new LineTransport({ stdin, stdout, drainMs }), {
    factory,
    onerror: (error) => errors.push(error.message),
    onclose: () => closed++,
  });
  return { stdin, out, errors, handle, closed: () => closed };
}

const server = () => new McpServer({ name: "test", version: "1" }, { capabilities: { tools: {} } });

/** Until `check` holds: timings of a loaded machine do not decide the outcome. */
const until = (check: () => boolean) => eventually(check, HANG_MS, 5);

/** A server factory that finishes when the test says so: messages can be sent while it is made. */
function heldServer(make: () => McpServer = server) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = {
    /** The entry has started making the server. */
    started: false,
    factory: async () => {
      held.started = true;
      await released;
      return make();
    },
    release,
  };
  return held;
}

describe("the stdio entry", () => {
  for (const [opening, first] of [
    ["a 2025 initialize (server connected directly)", initialize(1)],
    ["any other opening (the SDK's entry)", ping(1)],
  ] as const)
    test(`${opening}: messages read while the server is made are answered in order`, async () => {
      const held = heldServer();
      const c = connection(held.factory);
      c.stdin.write(`${first}${line({ method: "notifications/initialized" })}${ping(2)}`);
      await until(() => held.started);
      c.stdin.write(ping(3));
      held.release();
      await until(() => c.out.length === 3);
      c.stdin.write(ping(4));
      await until(() => c.out.length === 4);
      expect(c.out.map((m) => m.id)).toEqual([1, 2, 3, 4]);
      expect(c.out.every((m) => m.error === undefined)).toBe(true);
      c.stdin.end();
      await until(() => c.closed() > 0);
      expect(c.closed()).toBeGreaterThan(0);
    });

  test("stdin's end does not wait for a request the client cancelled (it gets no answer)", async () => {
    let aborted = false;
    const c = connection(async () => {
      const made = server();
      // A call that ends only when cancelled.
      made.server.setRequestHandler("tools/call", (_request, ctx) => {
        const signal = ctx.mcpReq.signal;
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("cancelled"));
          }),
        );
      });
      return made;
      // A drain longer than any wait here: without the cancel, stdin's end would wait for it.
    }, 10 * HANG_MS);
    const call = line({ id: 2, method: "tools/call", params: { name: "wait", arguments: {} } });
    c.stdin.write(`${initialize(1)}${line({ method: "notifications/initialized" })}${call}`);
    await until(() => c.out.length === 1);
    c.stdin.write(line({ method: "notifications/cancelled", params: { requestId: 2, reason: "user" } }));
    c.stdin.end();
    await until(() => c.closed() > 0);
    expect(aborted).toBe(true);
    expect(c.closed()).toBe(1);
    expect(c.out.map((m) => m.id)).toEqual([1]);
  });

  test("a server that cannot be made: its requests get an internal error, the next message tries again", async () => {
    let made = 0;
    const c = connection(async () => {
      if (made++ === 0) throw new Error("boom");
      return server();
    });
    c.stdin.write(initialize(1));
    await until(() => c.out.length === 1);
    expect(c.out[0]).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(c.errors).toEqual(["boom"]);
    c.stdin.write(initialize(2));
    await until(() => c.out.length === 2);
    expect(c.out[1]).toMatchObject({ id: 2, result: { serverInfo: { name: "test" } } });
    await c.handle.close();
  });

  test("closed while the server is made: it is closed too, and nothing is answered", async () => {
    let closedServer = false;
    const held = heldServer(() => {
      const made = server();
      const close = made.close.bind(made);
      made.close = async () => {
        closedServer = true;
        await close();
      };
      return made;
    });
    const c = connection(held.factory);
    c.stdin.write(initialize(1));
    await until(() => held.started);
    const closing = c.handle.close();
    held.release();
    await closing;
    await until(() => closedServer);
    expect(closedServer).toBe(true);
    expect(c.out).toEqual([]);
    expect(c.closed()).toBe(1);
  });
});
