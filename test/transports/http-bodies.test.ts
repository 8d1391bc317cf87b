import { afterAll, describe, expect, test } from "bun:test";
import type { HttpServeOptions, RunningHttpServer } from "../../src/transports/http.ts";
import { MAX_READING_BYTES, RequestBodies } from "../../src/transports/http-bodies.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp } from "../helpers/fs.ts";
import { handTimers } from "../helpers/hand-timers.ts";
import { handlerWorld, mcpRequest, rawClient as rawClientOf, servingOneSkill } from "../helpers/http.ts";
import { eventually, within } from "../helpers/wait.ts";

/** The bytes of request bodies the HTTP server holds while they arrive are bounded, and so is their time (http-bodies.ts). */

afterAll(cleanupTemp);
const closers = closeAfterEach({ ignoringErrors: true });

/** Small limits, so that bodies of some KB stand for bodies of some MB. */
const BODIES = { maxBytes: 400_000, maxPerPeer: 100_000 };
const PAD = 80_000;

/** `skillhub serve --http --stateless` in process, on a free loopback port, over one skill: a ping gets 200. */
function server(options: HttpServeOptions = {}): Promise<RunningHttpServer> {
  return servingOneSkill(closers, { stateless: true, ...options });
}

/** A ping whose params hold `pad` bytes: its JSON's start (up to the padding) and its end. */
function ping(pad: number) {
  const start = `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"${"a".repeat(pad)}`;
  return { start, end: '"}}', whole: `${start}"}}` };
}

const HEAD =
  "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";

/** One chunk of a chunked body; "" is the last. */
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** rawClient, and the answer's status and its JSON-RPC error (or result), once it has come whole. */
function rawClient(port: number, text: string) {
  const client = rawClientOf(port, text, closers);
  return {
    ...client,
    answer: async () => {
      await eventually(() => /\r\n\r\n[\s\S]*\}$/.test(client.received()));
      const received = client.received();
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(received)?.[1]);
      const retryAfter = /\r\nretry-after: (\d+)/i.exec(received)?.[1];
      const json = JSON.parse(received.slice(received.indexOf("{")));
      return { status, retryAfter, json };
    },
  };
}

describe("request bodies held while they arrive are bounded", () => {
  test("over a socket, a body that would pass its address's share is refused with 429 naming the limit, and its connection closed; the body held goes on, and its bytes are free once it is read", async () => {
    const running = await server({ bodies: BODIES });
    const { start, end, whole } = ping(PAD);
    // A chunked body held half sent, then one with a Content-Length sent whole: both count as they arrive.
    const held = rawClient(running.port, `${HEAD}Transfer-Encoding: chunked\r\n\r\n${chunk(start)}`);
    await eventually(() => running.handler.bodies.held >= PAD);
    const refused = rawClient(running.port, `${HEAD}Content-Length: ${whole.length}\r\n\r\n${whole}`);
    const answer = await refused.answer();
    expect(answer.status).toBe(429);
    expect(answer.retryAfter).toBe("10");
    expect(answer.json.error.code).toBe(-32000);
    expect(answer.json.error.message).toMatch(
      /^Too Many Requests: this client's address is sending \d+ KiB of request bodies that have not arrived whole, and this one would pass the 98 KiB one address may send at once\. Retry in 10 s, once those have arrived\.$/,
    );
    await within(refused.closed, "the close of a refused body's connection");
    // What the refused body held is free at once; the one held is read to its end and answered.
    expect(running.handler.bodies.held).toBeLessThanOrEqual(start.length);
    held.send(`${chunk(end)}${chunk("")}`);
    expect(await held.answer()).toMatchObject({ status: 200, json: { id: 7, result: {} } });
    expect(running.handler.bodies.held).toBe(0);
    const next = rawClient(running.port, `${HEAD}Content-Length: ${whole.length}\r\n\r\n${whole}`);
    expect(await next.answer()).toMatchObject({ status: 200, json: { id: 7, result: {} } });
  });

  test("over a socket, a client that goes away part way frees what its body held", async () => {
    const running = await server({ bodies: BODIES });
    const gone = rawClient(running.port, `${HEAD}Transfer-Encoding: chunked\r\n\r\n${chunk(ping(PAD).start)}`);
    await eventually(() => running.handler.bodies.held >= PAD);
    gone.destroy();
    await eventually(() => running.handler.bodies.held === 0);
  });

  test("one address cannot take the room of all: another address is still read; past the server's budget a body gets 503", async () => {
    const w = handlerWorld({ stateless: true, bodies: { maxBytes: 150_000, maxPerPeer: 100_000 } });
    closers.push(w.close);
    /** A POST from `peer` whose body is sent by hand: `send` a part, `finish` it. */
    const open = (peer: string) => {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      const request = new Request("http://127.0.0.1:8000/mcp", {
        method: "POST",
        headers: mcpRequest("POST", "/mcp", { body: {} }).headers,
        body,
      });
      const response = w.handler.handle(request, { peer });
      return {
        response,
        send: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
        finish: () => controller.close(),
      };
    };
    const { start, end } = ping(PAD);
    const first = open("10.0.0.1");
    first.send(start);
    await eventually(() => w.handler.bodies.held >= PAD);
    const second = open("10.0.0.2");
    second.send(ping(50_000).start);
    await eventually(() => w.handler.bodies.held >= PAD + 50_000);
    // 10.0.0.3 holds nothing, but the server holds near all it may.
    const third = open("10.0.0.3");
    third.send(ping(20_000).start);
    const refused = await third.response;
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /^Service Unavailable: the server is receiving 12\d KiB of request bodies that have not arrived whole, and this one would pass the 147 KiB it holds at once\. Retry in 10 s\.$/,
    );
    first.send(end);
    first.finish();
    expect((await first.response).status).toBe(200);
    expect(w.handler.bodies.held).toBeLessThan(60_000);
    expect(w.logger.lines).toContainEqual(
      expect.stringMatching(/http: refused POST \/mcp from 10\.0\.0\.3 \(503: Service Unavailable: /),
    );
  });

  test("by default, the server holds 64 MiB of bodies at once, an address a quarter of it", () => {
    const bodies = new RequestBodies();
    expect(bodies.maxBytes).toBe(MAX_READING_BYTES);
    expect(MAX_READING_BYTES).toBe(64 * 1024 * 1024);
    expect(bodies.maxPerPeer).toBe(16 * 1024 * 1024);
    expect(bodies.deadlineMs).toBe(60_000);
  });
});

describe("a body that arrives too slowly", () => {
  test("over a socket, is refused with 408 once its deadline passes: its connection is closed and what it held freed", async () => {
    const hand = handTimers();
    // Its socket's silence limit far off: the close is the server's answer to the late body.
    const running = await server({ bodies: { ...BODIES, timer: hand.timer }, idleTimeoutSeconds: 240 });
    const slow = rawClient(running.port, `${HEAD}Transfer-Encoding: chunked\r\n\r\n${chunk(ping(PAD).start)}`);
    await eventually(() => running.handler.bodies.held >= PAD && hand.armed.size === 1);
    // A byte now and then keeps its socket from falling silent: only the deadline ends it.
    slow.send(chunk("a"));
    hand.fireAll();
    const answer = await slow.answer();
    expect(answer.status).toBe(408);
    expect(answer.json.error).toEqual({
      code: -32000,
      message:
        "Request Timeout: the body did not arrive whole within 60 s of the request's headers, the longest the server waits for one. Send the request again, its body at once.",
    });
    await within(slow.closed, "the close of a late body's connection");
    expect(running.handler.bodies.held).toBe(0);
  });

  test("a body that arrives in time stops its deadline", async () => {
    const hand = handTimers();
    const started: number[] = [];
    const timer = (fire: () => void, ms: number) => {
      started.push(ms);
      return hand.timer(fire);
    };
    const running = await server({ bodies: { timer } });
    const { whole } = ping(10);
    const quick = rawClient(running.port, `${HEAD}Content-Length: ${whole.length}\r\n\r\n${whole}`);
    expect(await quick.answer()).toMatchObject({ status: 200, json: { id: 7, result: {} } });
    expect(started).toEqual([60_000]);
    expect(hand.armed.size).toBe(0);
  });
});
