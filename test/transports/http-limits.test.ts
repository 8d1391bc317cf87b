import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type RunningHttpServer, startHttpServer } from "../../src/transports/http.ts";
import type { HttpHandler } from "../../src/transports/http-handler.ts";
import { REVISIONS, type Revision } from "../helpers/clients.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { handlerWorld, mcpRequest } from "../helpers/http.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
});

/** `skillhub serve --http` in process, on a free loopback port, over one skill. */
async function server(): Promise<RunningHttpServer> {
  const dir = tempDir("skillhub-limits-");
  writeSkill(dir, "git-helper", { description: "Git workflow helper" });
  const { hub } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
  const running = startHttpServer(hub, { port: 0 });
  void hub.start();
  await hub.ready;
  closers.push(async () => {
    await running.stop();
    hub.close();
  });
  return running;
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

/** A fetch into `handler` as if every request came from `peer`. */
function fetchFrom(handler: HttpHandler, peer: string): typeof globalThis.fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(String(input), init);
    request.headers.set("host", "127.0.0.1:8000");
    return handler.handle(request, { peer });
  }) as typeof globalThis.fetch;
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

  test("over a socket, streams are counted by the client's address", async () => {
    const running = await server();
    const greedy = await client(running.url, "2026-07-28");
    const held = [];
    // The default share of one address, all from 127.0.0.1.
    for (let i = 0; i < 64; i++) held.push(await greedy.listen(LISTEN));
    const refused = await greedy.listen(LISTEN).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(refused?.message).toContain("already holds 64 open subscriptions/listen streams");
    for (const s of held) await s.close();
  });
});
