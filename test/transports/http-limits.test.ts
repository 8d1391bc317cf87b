import { afterAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { HttpServeOptions, RunningHttpServer } from "../../src/transports/http.ts";
import type { HttpHandler } from "../../src/transports/http-handler.ts";
import { REVISIONS, type Revision } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp } from "../helpers/fs.ts";
import {
  fetchFrom,
  handlerWorld,
  initialize,
  mcpRequest,
  messages,
  rawClient,
  servingOneSkill,
} from "../helpers/http.ts";
import { eventually, within } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach({ ignoringErrors: true });

/** `skillhub serve --http` in process, on a free loopback port, over one skill. */
function server(options: HttpServeOptions = {}): Promise<RunningHttpServer> {
  return servingOneSkill(closers, { ...options });
}

/** An SDK client of `url` on `revision`; `fetch` defaults to the network. */
async function client(url: string, revision: Revision, fetch?: typeof globalThis.fetch): Promise<Client> {
  const modern = revision >= "2026-";
  const c = new Client(
    { name: `limits-${revision}`, version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: revision } } } : { supportedProtocolVersions: [revision] },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  closers.unshift(() => c.close());
  return c;
}

describe("a resource URI over the length limit", () => {
  for (const revision of REVISIONS)
    test(`${revision}: resources/read gets a JSON-RPC error naming the limit, and the client goes on`, async () => {
      const running = await server();
      const c = await client(running.url, revision);
      // A 2026-07-28 request repeats the URI in its Mcp-Name header, which Bun caps at 16 KiB (431).
      const uri = `skill://git-helper/${"a".repeat(revision >= "2026-" ? 10_000 : 1_000_000)}`;
      const error = await c.readResource({ uri }).then(
        () => undefined,
        (e: Error & { code?: number }) => e,
      );
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain(`${uri.length} characters long`);
      expect(error?.message).toContain("at most 8192 characters");
      const read = await c.readResource({ uri: "skill://git-helper/SKILL.md" });
      expect(JSON.stringify(read.contents)).toContain("Git workflow helper");
    });

  test("in a batch, the whole batch gets 400 with the error", async () => {
    const w = handlerWorld();
    closers.push(w.close);
    const session = await w.open("2025-03-26");
    const long = `skill://git-helper/${"b".repeat(9000)}`;
    const response = await w.handler.handle(
      mcpRequest("POST", "/mcp", {
        session: session.id,
        body: [
          { jsonrpc: "2.0", id: 2, method: "tools/list" },
          { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: long } },
        ],
      }),
    );
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { id: number; error: { code: number; message: string } };
    expect(answer.id).toBe(3);
    expect(answer.error.code).toBe(-32602);
  });
});

describe("requests that would hold the server's thread or echo megabytes", () => {
  for (const revision of REVISIONS)
    test(`${revision}: arguments with 300,000 members are refused before they are parsed, naming the limit`, async () => {
      const running = await server();
      const c = await client(running.url, revision);
      const args: Record<string, string> = { query: "git" };
      for (let i = 0; i < 300_000; i++) args[`k${i}`] = "v";
      const error = await c.callTool({ name: "search_skills", arguments: args }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toContain("more than 10000 in its objects");
      const answer = await c.callTool({ name: "search_skills", arguments: { query: "git" } });
      expect(JSON.stringify(answer.content)).toContain("git-helper");
    });

  for (const revision of REVISIONS)
    test(`${revision}: a tool name of 5,000 characters gets a JSON-RPC error, not its name echoed back`, async () => {
      const running = await server();
      const c = await client(running.url, revision);
      const name = "x".repeat(5000);
      const error = await c.callTool({ name, arguments: {} }).then(
        () => undefined,
        (e: Error & { code?: number }) => e,
      );
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain("names of at most 1024 characters");
      expect(error?.message.length).toBeLessThan(500);
    });
});

/** 2025-03-26: the last protocol revision with JSON-RPC batches. */
const BATCHES = "2025-03-26";

describe("a batch of costly calls", () => {
  test("runs one call per turn of the event loop, so other clients are answered between two of them", async () => {
    const world = handlerWorld();
    closers.push(world.close);
    const { id } = await world.open(BATCHES);
    // Each search notes how many had run; the first also asks what has run when the loop next turns
    // (as a request from another client would be answered then).
    const search = world.hub.search;
    const query = search.query.bind(search);
    let searches = 0;
    let ranBeforeNextTurn: number | undefined;
    search.query = (...args) => {
      if (searches++ === 0) setImmediate(() => (ranBeforeNextTurn = searches));
      return query(...args);
    };
    const batch = Array.from({ length: 20 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 10,
      method: "tools/call",
      params: { name: "search_skills", arguments: { query: "git workflow" } },
    }));
    const answers = await messages(
      await world.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: batch })),
    );
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(batch.map((m) => m.id));
    expect(answers.every((a) => JSON.stringify(a.result).includes("git-helper"))).toBe(true);
    expect(searches).toBe(20);
    expect(ranBeforeNextTurn).toBe(1);
  });

  const requests = {
    "prompts/get": { name: "git-helper" },
    "skills/list": {},
    "skills/get": { uri: "skill://git-helper/SKILL.md" },
    "resources/directory/read": { uri: "skill://git-helper" },
    "resources/read": { uri: "skill://git-helper/SKILL.md" },
  };
  for (const [method, params] of Object.entries(requests))
    test(`of ${method} answers one per turn of the event loop too`, async () => {
      const world = handlerWorld();
      closers.push(world.close);
      const { id } = await world.open(BATCHES);
      // Once, first: what the first call builds (the skills extension's publication) is built before the batch.
      const once = { jsonrpc: "2.0", id: 1, method, params };
      await messages(await world.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: once })));
      // The first answer asks how many were sent when the loop next turns.
      const transport = world.handler.sessions.lookup(id)?.transport;
      if (!transport) throw new Error("no session");
      const send = transport.send.bind(transport);
      let sent = 0;
      let sentBeforeNextTurn: number | undefined;
      transport.send = (message, options) => {
        if ("id" in message && sent++ === 0) setImmediate(() => (sentBeforeNextTurn = sent));
        return send(message, options);
      };
      const batch = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: "2.0", id: i + 10, method, params }));
      const answers = await messages(
        await world.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: batch })),
      );
      expect(answers.filter((a) => a.result)).toHaveLength(20);
      expect(await eventually(() => sentBeforeNextTurn)).toBeLessThanOrEqual(2);
    });
});

describe("a silent connection is closed", () => {
  test("before its request is admitted, and once an admitted request's answer has ended", async () => {
    const running = await server({ idleTimeoutSeconds: 1 });
    const head = (body: string) =>
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const halfSent = silentClient(running.port, `${head("x".repeat(100))}{"jsonrpc":`);
    await within(halfSent.closed, "the close of a connection whose body stopped half way");
    // Requests MCP admits lift the limit (their answers may stream for long); once answered (one streamed,
    // one JSON) their connections, kept alive for a next request, are silent and closed as any other.
    const init = JSON.stringify(initialize());
    const streamed = silentClient(running.port, `${head(init)}${init}`);
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const refused = silentClient(running.port, `${head(list)}${list}`);
    await within(streamed.closed, "the close of a silent connection after a streamed answer");
    await within(refused.closed, "the close of a silent connection after a JSON answer");
    expect(streamed.received()).toContain('"serverInfo"');
    expect(refused.received()).toContain("Mcp-Session-Id header is required");
  }, 120_000);
});

/** A raw connection to `port` on loopback that sends `text`, then nothing: what it received, and its close. */
function silentClient(port: number, text: string) {
  const { closed, received } = rawClient(port, text, closers);
  return { closed, received };
}

const LIST_TOOLS = { jsonrpc: "2.0", id: 2, method: "tools/list" };

describe("2025 sessions are bounded per address", () => {
  test("past its share, an address's newcomer takes the place of its quietest session; other addresses keep theirs", async () => {
    const w = handlerWorld({ maxSessions: 10, maxSessionsPerPeer: 3 });
    closers.push(w.close);
    await w.hub.ready;
    const url = "http://127.0.0.1:8000/mcp";
    // The other address's session is the quietest of all: it is not the greedy address's to take.
    const other = await client(url, "2025-11-25", fetchFrom(w.handler, "10.0.0.7"));
    const ids = () => new Set(w.handler.sessions.list().map((s) => s.id));
    const otherId = [...ids()][0] as string;
    const greedy = fetchFrom(w.handler, "10.0.0.66");
    const own: Client[] = [];
    for (let i = 0; i < 3; i++) {
      w.advance(1_000);
      own.push(await client(url, "2025-11-25", greedy));
    }
    const [first, second] = [...ids()].filter((id) => id !== otherId) as [string, string];
    // The first of them asks something now: the second is the quietest (a session's age does not count).
    w.advance(1_000);
    await own[0]?.listTools();
    w.advance(1_000);
    const newcomer = await client(url, "2025-11-25", greedy);
    expect((await newcomer.listTools()).tools.length).toBeGreaterThan(0);
    expect(ids().has(second)).toBe(false);
    expect(ids().has(first)).toBe(true);
    expect(ids().has(otherId)).toBe(true);
    expect(w.handler.sessions.size).toBe(4);
    expect(w.logger.lines).toContainEqual(
      expect.stringContaining(
        `http: 10.0.0.66 holds 3 sessions, the most one address may; closed its quietest, ${second.slice(0, 8)}, for a new one from it`,
      ),
    );
    expect((await other.listTools()).tools.length).toBeGreaterThan(0);
  });

  test("an address whose every session waits on a call gets 429 naming the limit; one that ends gives its place", async () => {
    const w = handlerWorld({ maxSessions: 10, maxSessionsPerPeer: 2 });
    closers.push(w.close);
    await w.hub.ready;
    const ids = (await initializeBurst(w.handler, 1, () => "10.0.0.66")).opened;
    ids.push(...(await initializeBurst(w.handler, 1, () => "10.0.0.66")).opened);
    // Each asks something whose answer is still being sent: a call the session waits on.
    const calls = [];
    for (const session of ids)
      calls.push(
        await w.handler.handle(mcpRequest("POST", "/mcp", { session, body: LIST_TOOLS }), { peer: "10.0.0.66" }),
      );
    expect(w.handler.sessions.list().map((s) => s.openCalls)).toEqual([1, 1]);
    w.advance(60 * 60_000);
    const direct = await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize() }), { peer: "10.0.0.66" });
    expect(direct.status).toBe(429);
    expect(direct.headers.get("retry-after")).toBe("60");
    expect(await direct.text()).toContain(
      "this client's address holds 2 open sessions, the most one address may hold, and each of them is waiting on a call or being opened. Retry once a call has ended",
    );
    expect(w.handler.sessions.list().map((s) => s.id)).toEqual(ids);
    await calls[1]?.text();
    const [opened] = (await initializeBurst(w.handler, 1, () => "10.0.0.66")).opened;
    expect(w.handler.sessions.list().map((s) => s.id)).toEqual([ids[0] as string, opened as string]);
    await calls[0]?.text();
  });

  test("ten initialize requests at once from one address open its share, no more; closed sessions give their places back", async () => {
    const w = handlerWorld({ maxSessions: 12, maxSessionsPerPeer: 3 });
    closers.push(w.close);
    await w.hub.ready;
    const first = await initializeBurst(w.handler, 10, () => "10.0.0.66");
    expect(first.opened).toHaveLength(3);
    expect(first.refused.map((r) => r.status)).toEqual(Array(7).fill(429));
    for (const r of first.refused) {
      expect(r.headers.get("retry-after")).toBe("60");
      expect(await r.text()).toContain("holds 3 open sessions, the most one address may hold");
    }
    expect(w.handler.sessions.size).toBe(3);
    for (const id of first.opened)
      await w.handler.handle(mcpRequest("DELETE", "/mcp", { session: id }), { peer: "10.0.0.66" });
    await eventually(() => w.handler.sessions.size === 0);
    const again = await initializeBurst(w.handler, 10, () => "10.0.0.66");
    expect(again.opened).toHaveLength(3);
  });

  test("ten initialize requests at once from ten addresses open as many sessions as the table holds, no more", async () => {
    const w = handlerWorld({ maxSessions: 4, maxSessionsPerPeer: 4 });
    closers.push(w.close);
    await w.hub.ready;
    const burst = await initializeBurst(w.handler, 10, (i) => `10.0.0.${i + 1}`);
    expect(burst.opened).toHaveLength(4);
    expect(burst.refused.map((r) => r.status)).toEqual(Array(6).fill(503));
    expect(w.handler.sessions.size).toBe(4);
  });

  test("an initialize the SDK refuses (wrong Accept) gives its place back", async () => {
    const w = handlerWorld({ maxSessions: 4, maxSessionsPerPeer: 1 });
    closers.push(w.close);
    await w.hub.ready;
    const wrong = mcpRequest("POST", "/mcp", { body: initialize(), headers: { accept: "application/json" } });
    expect((await w.handler.handle(wrong, { peer: "10.0.0.66" })).status).toBe(406);
    expect((await initializeBurst(w.handler, 1, () => "10.0.0.66")).opened).toHaveLength(1);
  });

  test("every loopback address is one: 127.0.0.0/8 and ::1 share one address's share", async () => {
    const w = handlerWorld({ maxSessions: 8, maxSessionsPerPeer: 2 });
    closers.push(w.close);
    await w.hub.ready;
    const url = "http://127.0.0.1:8000/mcp";
    const other = await client(url, "2025-11-25", fetchFrom(w.handler, "10.0.0.7"));
    const peers = () => w.handler.sessions.list().map((s) => s.place.peer);
    await client(url, "2025-11-25", fetchFrom(w.handler, "127.0.0.2"));
    w.advance(1_000);
    await client(url, "2025-11-25", fetchFrom(w.handler, "::1"));
    const oldest = w.handler.sessions.list()[1]?.id as string;
    w.advance(1_000);
    // A third from this machine takes the place of its quietest, 127.0.0.2's, not of another address's.
    await client(url, "2025-11-25", fetchFrom(w.handler, "127.0.0.3"));
    expect(peers()).toEqual(["10.0.0.7", "loopback", "loopback"]);
    expect(w.handler.sessions.list().some((s) => s.id === oldest)).toBe(false);
    expect((await other.listTools()).tools.length).toBeGreaterThan(0);
  });

  test("one local process holding this machine's share locks no other local client out", async () => {
    const w = handlerWorld({ maxSessions: 40 });
    closers.push(w.close);
    await w.hub.ready;
    const hog = await initializeBurst(w.handler, 10, () => "127.0.0.9");
    expect(hog.opened).toHaveLength(10);
    w.advance(1_000);
    const url = "http://127.0.0.1:8000/mcp";
    const local = await client(url, "2025-11-25", fetchFrom(w.handler, "127.0.0.1"));
    expect((await local.listTools()).tools.length).toBeGreaterThan(0);
    expect(w.handler.sessions.size).toBe(10);
  });

  test("with every session taken by busy addresses, a newcomer takes the place of the quietest of the address holding the most", async () => {
    const w = handlerWorld({ maxSessions: 6, maxSessionsPerPeer: 3 });
    closers.push(w.close);
    await w.hub.ready;
    // Every session asked something a second ago or less: none is quiet for a minute.
    const opened: Record<string, string[]> = {};
    for (const peer of ["10.0.0.1", "10.0.0.2", "10.0.0.1", "10.0.0.3", "10.0.0.1", "10.0.0.2"]) {
      const [id] = (await initializeBurst(w.handler, 1, () => peer)).opened;
      if (!id) throw new Error(`no session for ${peer}`);
      (opened[peer] ??= []).push(id);
      w.advance(1_000);
    }
    const url = "http://127.0.0.1:8000/mcp";
    const newcomer = await client(url, "2025-11-25", fetchFrom(w.handler, "10.0.0.9"));
    expect((await newcomer.listTools()).tools.length).toBeGreaterThan(0);
    const open = new Set(w.handler.sessions.list().map((s) => s.id));
    expect(open.size).toBe(6);
    expect(open.has(opened["10.0.0.1"]?.[0] as string)).toBe(false);
    expect([...(opened["10.0.0.1"] ?? []).slice(1), ...(opened["10.0.0.2"] ?? [])].every((id) => open.has(id))).toBe(
      true,
    );
    // Now no address holds two more than the newcomer's (1), nor than a busy address's (2): places are not
    // taken back and forth.
    for (const peer of ["10.0.0.9", "10.0.0.1", "10.0.0.3"]) {
      const [refused] = (await initializeBurst(w.handler, 1, () => peer)).refused;
      expect(refused?.status, peer).toBe(503);
    }
  });

  test("a session closed for a newcomer of its address ends its event stream's connection at once", async () => {
    // A connection left silent stays open far longer than the wait below: only the session's close ends it.
    const running = await server({ idleTimeoutSeconds: 250 });
    const headers = { accept: "application/json, text/event-stream", "content-type": "application/json" };
    const open = async () => {
      const answer = await fetch(running.url, { method: "POST", headers, body: JSON.stringify(initialize()) });
      await answer.text();
      return answer.headers.get("mcp-session-id") as string;
    };
    const first = await open();
    const stream = rawClient(
      running.port,
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${first}\r\n\r\n`,
      closers,
    );
    const held = () => running.handler.sessions.list().find((s) => s.id === first);
    await eventually(() => held()?.openStreams === 1);
    // This machine is one address: its share more, and the first, the quietest, gives its place.
    for (let i = 0; i < running.handler.sessions.maxPerPeer; i++) await open();
    expect(held()).toBeUndefined();
    await within(stream.closed, "the close of the closed session's event stream");
    expect(stream.received()).toStartWith("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream");
  }, 120_000);

  for (const [maxSessions, share] of [
    [8, 2],
    [2, 1],
  ] as const)
    test(`with at most ${maxSessions} sessions, one address opens ${share}, a quarter (at least one)`, async () => {
      const w = handlerWorld({ maxSessions });
      closers.push(w.close);
      await w.hub.ready;
      const burst = await initializeBurst(w.handler, 10, () => "10.0.0.66");
      expect(burst.opened).toHaveLength(share);
      expect(await burst.refused[0]?.text()).toContain(`holds ${share} open sessions`);
    });
});

/** `count` initialize requests at once, request `i` from `peerOf(i)`: the ids of the sessions opened, and the other answers. */
async function initializeBurst(handler: HttpHandler, count: number, peerOf: (i: number) => string) {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      handler.handle(mcpRequest("POST", "/mcp", { body: initialize(undefined, i + 1) }), { peer: peerOf(i) }),
    ),
  );
  const opened: string[] = [];
  const refused: Response[] = [];
  for (const answer of answers) {
    const id = answer.headers.get("mcp-session-id");
    if (!id) refused.push(answer);
    else {
      opened.push(id);
      await answer.text();
    }
  }
  return { opened, refused };
}

const LISTEN = { toolsListChanged: true, resourcesListChanged: true };

describe("subscriptions/listen streams are bounded per address", () => {
  test("one address cannot take every stream: past its share it gets an error naming the limit; others still listen", async () => {
    const w = handlerWorld({ listens: { max: 6, maxPerPeer: 3 } });
    closers.push(w.close);
    await w.hub.ready;
    const url = "http://127.0.0.1:8000/mcp";
    const greedy = await client(url, "2026-07-28", fetchFrom(w.handler, "10.0.0.66"));
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await greedy.listen(LISTEN));
    const refused = await greedy.listen(LISTEN).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refused?.message).toContain("already holds 3 open subscriptions/listen streams");
    const other = await client(url, "2026-07-28", fetchFrom(w.handler, "10.0.0.7"));
    const subscription = await other.listen(LISTEN);
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    // A stream closed by its client gives its place back.
    await held[0]?.close();
    const again = await greedy.listen(LISTEN);
    expect(again.honoredFilter).toMatchObject({ toolsListChanged: true });
  });

  test("with every stream taken, a newcomer gets an error saying so, not the SDK's bare one", async () => {
    const w = handlerWorld({ listens: { max: 2, maxPerPeer: 2 } });
    closers.push(w.close);
    await w.hub.ready;
    const url = "http://127.0.0.1:8000/mcp";
    const a = await client(url, "2026-07-28", fetchFrom(w.handler, "10.0.0.1"));
    await a.listen(LISTEN);
    const b = await client(url, "2026-07-28", fetchFrom(w.handler, "10.0.0.2"));
    await b.listen(LISTEN);
    const c = await client(url, "2026-07-28", fetchFrom(w.handler, "10.0.0.3"));
    const refused = await c.listen(LISTEN).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refused?.message).toContain("the server holds 2 open subscriptions/listen streams");
  });

  test("over a socket, streams are counted by the client's address, whatever its headers say", async () => {
    // Bound on every interface, so one client can come from 127.0.0.1 and another from ::1.
    const token = "t".repeat(32);
    const running = await server({ host: "::", token, listens: { maxPerPeer: 1 } });
    const withToken: typeof globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    }) as typeof globalThis.fetch;
    const v4 = await client(`http://127.0.0.1:${running.port}/mcp`, "2026-07-28", withToken);
    await v4.listen(LISTEN);
    const refused = await v4.listen(LISTEN).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refused?.message).toContain("already holds 1 open subscriptions/listen streams");
    // The socket's address, not what a client says of itself: a forged X-Forwarded-For buys no other share.
    const forged = await client(`http://127.0.0.1:${running.port}/mcp`, "2026-07-28", ((input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("x-forwarded-for", "203.0.113.9");
      headers.set("forwarded", "for=203.0.113.9");
      return withToken(input, { ...init, headers });
    }) as typeof globalThis.fetch);
    const stillRefused = await forged.listen(LISTEN).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(stillRefused?.message).toContain("already holds 1 open subscriptions/listen streams");
    // Nor does another loopback address: ::1 is this machine too, with the same share.
    const v6 = await client(`http://[::1]:${running.port}/mcp`, "2026-07-28", withToken);
    const refusedToo = await v6.listen(LISTEN).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refusedToo?.message).toContain("already holds 1 open subscriptions/listen streams");
  });

  test("ten listen requests at once from one address get its share, no more; closed streams give their places back", async () => {
    const w = handlerWorld({ listens: { max: 12, maxPerPeer: 3 } });
    closers.push(w.close);
    await w.hub.ready;
    const greedy = await client("http://127.0.0.1:8000/mcp", "2026-07-28", fetchFrom(w.handler, "10.0.0.66"));
    const burst = () => listenBurst(Array(10).fill(greedy));
    const first = await burst();
    expect(first.held).toHaveLength(3);
    expect(first.refused).toHaveLength(7);
    for (const message of first.refused) expect(message).toContain("already holds 3 open subscriptions/listen streams");
    for (const subscription of first.held) await subscription.close();
    await eventually(() => w.handler.listens.size === 0);
    expect((await burst()).held).toHaveLength(3);
  });

  test("ten listen requests at once from ten addresses get as many streams as the server keeps, the rest its own error", async () => {
    const w = handlerWorld({ listens: { max: 4, maxPerPeer: 4 } });
    closers.push(w.close);
    await w.hub.ready;
    const clients = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client("http://127.0.0.1:8000/mcp", "2026-07-28", fetchFrom(w.handler, `10.0.0.${i + 1}`)),
      ),
    );
    const burst = await listenBurst(clients);
    expect(burst.held).toHaveLength(4);
    expect(burst.refused).toHaveLength(6);
    for (const message of burst.refused)
      expect(message).toContain("the server holds 4 open subscriptions/listen streams");
  });

  test("with at most 8 streams, one address holds 2, a quarter", async () => {
    const w = handlerWorld({ listens: { max: 8 } });
    closers.push(w.close);
    await w.hub.ready;
    const greedy = await client("http://127.0.0.1:8000/mcp", "2026-07-28", fetchFrom(w.handler, "10.0.0.66"));
    const burst = await listenBurst(Array(10).fill(greedy));
    expect(burst.held).toHaveLength(2);
    expect(burst.refused[0]).toContain("already holds 2 open subscriptions/listen streams");
  });
});

/** One subscriptions/listen request from each of `clients`, all at once: the streams opened, the refusals' messages. */
async function listenBurst(clients: Client[]) {
  const settled = await Promise.allSettled(clients.map((c) => c.listen(LISTEN)));
  const held = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  closers.unshift(async () => {
    for (const subscription of held) await subscription.close();
  });
  const refused = settled.flatMap((s) => (s.status === "rejected" ? [String((s.reason as Error).message)] : []));
  return { held, refused };
}
