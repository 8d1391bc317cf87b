import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_INITIALIZE_BYTES } from "../../src/transports/http-options.ts";
import { jsonRefusal } from "../../src/transports/http-responses.ts";
import { cleanupTemp, writeSkill } from "../helpers/fs.ts";
import { handlerWorld, initialize, mcpRequest, messages, sseReader } from "../helpers/http.ts";
import { eventually } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const worlds: Array<ReturnType<typeof handlerWorld>> = [];
afterEach(async () => {
  while (worlds.length > 0) await worlds.pop()?.close();
});
function world(options: Parameters<typeof handlerWorld>[0] = {}, env: Record<string, string> = {}) {
  const w = handlerWorld(options, env);
  worlds.push(w);
  return w;
}

/**
 * For tests of the whole session table, whose requests all come from one address: no share of its own (a
 * quarter of the table, see http-limits.test.ts), so the table's limit is the one met.
 */
const ONE_ADDRESS = { maxSessionsPerPeer: Number.POSITIVE_INFINITY };

const listTools = (id = 2) => ({ jsonrpc: "2.0", id, method: "tools/list" });

/** A session opened by a server that then stopped, and the server started after it (`options`). */
async function restarted(options: Parameters<typeof handlerWorld>[0] = {}) {
  const before = world();
  const { id } = await before.open();
  await before.close();
  return { id, after: world(options) };
}

async function errorOf(response: Response) {
  const body = (await response.json()) as { error: { code: number; message: string } };
  return body.error;
}

describe("routing", () => {
  test("GET /healthz answers status, version and skill count", async () => {
    const w = world();
    await w.hub.ready;
    const response = await w.handler.handle(mcpRequest("GET", "/healthz"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: "test", skills: 2 });
  });

  test("other paths are 404 and wrong methods 405 with Allow", async () => {
    const w = world();
    const missing = await w.handler.handle(mcpRequest("GET", "/nope"));
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).message).toBe(
      "Not found: /nope. SkillHub serves MCP at /mcp, its web page at / and a health check at /healthz.",
    );
    const oauth = await w.handler.handle(mcpRequest("GET", "/.well-known/oauth-authorization-server"));
    expect((await errorOf(oauth)).message).toBe(
      "Not found: /.well-known/oauth-authorization-server. This SkillHub server takes no OAuth and needs no token: connect to /mcp as it is.",
    );
    const put = await w.handler.handle(mcpRequest("PUT", "/mcp", { body: {} }));
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
    // A client given the server's address without /mcp posts to the page: it is told the endpoint.
    const page = await w.handler.handle(mcpRequest("POST", "/", { body: initialize() }));
    expect(page.status).toBe(405);
    expect((await errorOf(page)).message).toBe(
      "Method not allowed: POST /. SkillHub serves MCP at /mcp: add /mcp to the end of the client's URL.",
    );
    // With a trailing slash, the endpoint is the same.
    const slash = await w.handler.handle(mcpRequest("POST", "/mcp/", { body: initialize() }));
    expect(slash.status).toBe(200);
    expect(slash.headers.get("mcp-session-id")).toBeTruthy();
    const postHealth = await w.handler.handle(mcpRequest("POST", "/healthz", { body: {} }));
    expect(postHealth.status).toBe(405);
    expect(postHealth.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("security", () => {
  test("a foreign Host is refused with 403, loopback names pass", async () => {
    const w = world();
    for (const host of ["evil.example.com", "evil.example.com:8000", "127.0.0.1.evil.example", ""]) {
      const response = await w.handler.handle(mcpRequest("GET", "/healthz", { headers: { host } }));
      expect(response.status, host).toBe(403);
    }
    for (const host of ["127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:8000"]) {
      const response = await w.handler.handle(mcpRequest("GET", "/healthz", { headers: { host } }));
      expect(response.status, host).toBe(200);
    }
  });

  test("the DNS-rebinding probe of the conformance suite is refused before MCP sees it", async () => {
    const w = world();
    const response = await w.handler.handle(
      mcpRequest("POST", "/mcp", {
        body: initialize(),
        headers: { host: "evil.example.com", origin: "http://evil.example.com" },
      }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(w.handler.sessions.size).toBe(0);
  });

  test("Origin: absent or local passes; foreign or null is 403; allowed_origins and allowed_hosts extend the lists", async () => {
    const w = world({ allowedOrigins: ["https://tools.example.com"], allowedHosts: ["skills.example.com"] });
    const status = async (headers: Record<string, string>) =>
      (await w.handler.handle(mcpRequest("GET", "/healthz", { headers }))).status;
    expect(await status({})).toBe(200);
    expect(await status({ origin: "http://localhost:6274" })).toBe(200);
    expect(await status({ origin: "https://tools.example.com" })).toBe(200);
    expect(await status({ origin: "https://evil.example.com" })).toBe(403);
    expect(await status({ origin: "null" })).toBe(403);
    expect(await status({ host: "skills.example.com" })).toBe(200);
    expect(await status({ host: "skills.example.com", origin: "https://skills.example.com" })).toBe(200);
  });

  test("CORS: a listed origin's preflight and answers carry it; a loopback page's and a refused one's do not", async () => {
    const token = "s3cret-token-0123456789abcdef";
    const w = world({ allowedOrigins: ["https://tools.example.com"], token });
    const listed = { origin: "https://tools.example.com" };
    const pre = await w.handler.handle(
      mcpRequest("OPTIONS", "/mcp", {
        headers: {
          ...listed,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type, mcp-session-id",
        },
      }),
    );
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://tools.example.com");
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE");
    expect(pre.headers.get("access-control-allow-headers")).toContain("Mcp-Session-Id");
    expect(pre.headers.get("access-control-allow-headers")).toContain("Authorization");
    // The token is still needed: the page can read the refusal, and then send it.
    const refused = await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize(), headers: listed }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("https://tools.example.com");
    expect(refused.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    const opened = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body: initialize(), headers: { ...listed, authorization: `Bearer ${token}` } }),
    );
    expect(opened.status).toBe(200);
    expect(opened.headers.get("mcp-session-id")).toBeTruthy();
    expect(opened.headers.get("access-control-allow-origin")).toBe("https://tools.example.com");
    expect(opened.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
    expect((await messages(opened))[0]?.result?.serverInfo?.name).toBe("skillhub");
    // A page on a loopback name may call (as before) but gets no CORS answer unless it is listed.
    const local = { origin: "http://localhost:6274" };
    const localPre = await w.handler.handle(mcpRequest("OPTIONS", "/mcp", { headers: local }));
    expect(localPre.status).toBe(405);
    expect(localPre.headers.get("access-control-allow-origin")).toBeNull();
    const health = await w.handler.handle(mcpRequest("GET", "/healthz", { headers: local }));
    expect(health.headers.get("access-control-allow-origin")).toBeNull();
    // Any answer may differ by Origin once origins are listed: a cache must not mix them up.
    expect(health.headers.get("vary")).toContain("Origin");
    expect((await w.handler.handle(mcpRequest("GET", "/healthz"))).headers.get("vary")).toContain("Origin");
    expect(pre.headers.get("vary")).toBe("Origin");
    const foreign = await w.handler.handle(
      mcpRequest("OPTIONS", "/mcp", { headers: { origin: "https://evil.example.com" } }),
    );
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a refused client is said in the log with the reason, once a minute per address", async () => {
    const w = world({ token: "s3cret-token-0123456789abcdef" });
    const refusedLines = () => w.logger.lines.filter((l) => l.includes("http: refused"));
    const send = (peer: string, headers: Record<string, string> = {}) =>
      w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize(), headers }), { peer });
    for (let i = 0; i < 3; i++) expect((await send("10.0.0.5")).status).toBe(401);
    await eventually(() => refusedLines().length === 1);
    expect(refusedLines()[0]).toContain("http: refused POST /mcp from 10.0.0.5 (401: Unauthorized: no token was sent.");
    expect((await send("10.0.0.6", { origin: "https://evil.example" })).status).toBe(403);
    await eventually(() => refusedLines().length === 2);
    expect(refusedLines()[1]).toContain('from 10.0.0.6 (403: Forbidden: Origin "https://evil.example" may not call');
    w.advance(61_000);
    await send("10.0.0.5", { authorization: "Bearer wrong" });
    await eventually(() => refusedLines().length === 3);
    expect(refusedLines()[2]).toContain("(401: Unauthorized: the token sent is not this server's.");
    expect(w.logger.lines.join("\n")).not.toContain("s3cret-token");
  });

  test("with a token, /mcp needs the bearer; the token never reaches the log", async () => {
    const token = "s3cret-token-0123456789abcdef";
    const w = world({ token });
    const missing = await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize() }));
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toContain("Bearer");
    expect((await errorOf(missing)).message).toStartWith("Unauthorized: no token was sent.");
    const wrong = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body: initialize(), headers: { authorization: `Bearer ${token}x` } }),
    );
    expect(wrong.status).toBe(401);
    expect((await errorOf(wrong)).message).toStartWith("Unauthorized: the token sent is not this server's.");
    // An OAuth client (Claude Code, the Inspector) looks for a login next, and shows what it finds.
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
      "/register",
    ]) {
      const lookup = await w.handler.handle(mcpRequest(path === "/register" ? "POST" : "GET", path, { body: {} }));
      expect(lookup.status, path).toBe(404);
      expect((await errorOf(lookup)).message, path).toContain(
        'This SkillHub server takes no OAuth: a client sends the server\'s token (SKILLHUB_HTTP_TOKEN) as the header "Authorization: Bearer <token>"',
      );
    }
    const basic = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body: initialize(), headers: { authorization: `Basic ${btoa(`u:${token}`)}` } }),
    );
    expect(basic.status).toBe(401);
    for (const authorization of [`Basic ${btoa(`u:${token}`)}`, token])
      expect(
        (
          await errorOf(
            await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize(), headers: { authorization } })),
          )
        ).message,
      ).toBe(
        'Unauthorized: the Authorization header must read "Bearer <token>", the word Bearer then the server\'s token (SKILLHUB_HTTP_TOKEN).',
      );
    // Only from one Authorization header: not from a query string (which logs and histories keep), nor a second header.
    for (const path of [
      `/mcp?token=${token}`,
      `/mcp?access_token=${token}`,
      `/ui/api/overview?access_token=${token}`,
    ]) {
      const method = path.startsWith("/mcp") ? "POST" : "GET";
      const response = await w.handler.handle(
        mcpRequest(method, path, method === "POST" ? { body: initialize() } : {}),
      );
      expect(response.status, path).toBe(401);
      expect(await response.text(), path).not.toContain(token);
    }
    const twice = mcpRequest("POST", "/mcp", { body: initialize(), headers: { authorization: `Bearer ${token}` } });
    twice.headers.append("authorization", `Bearer ${token}`);
    expect((await w.handler.handle(twice)).status).toBe(401);
    const right = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body: initialize(), headers: { authorization: `bearer ${token}` } }),
    );
    expect(right.status).toBe(200);
    expect(right.headers.get("mcp-session-id")).toBeTruthy();
    // Health checks (load balancers) need no token.
    expect((await w.handler.handle(mcpRequest("GET", "/healthz"))).status).toBe(200);
    expect(w.logger.lines.join("\n")).not.toContain(token);
  });

  test("a body over 4 MiB is 413, whether declared or streamed", async () => {
    const w = world();
    const big = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(4 * 1024 * 1024)}"}}`;
    const declared = await w.handler.handle(mcpRequest("POST", "/mcp", { body: big }));
    expect(declared.status).toBe(413);
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = new Request("http://127.0.0.1:8000/mcp", {
      method: "POST",
      headers: {
        host: "127.0.0.1:8000",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: stream,
    });
    const response = await w.handler.handle(streamed);
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(7);
    // A Content-Length that understates the body does not get it past the limit either.
    const lying = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body: big, headers: { "content-length": "100" } }),
    );
    expect(lying.status).toBe(413);
  });

  test("a body with a Content-Length within the limit is read and served", async () => {
    const w = world();
    const body = JSON.stringify(initialize());
    const response = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body, headers: { "content-length": String(Buffer.byteLength(body)) } }),
    );
    expect(response.status).toBe(200);
    expect((await messages(response))[0]?.result.serverInfo.name).toBe("skillhub");
  });

  test("JSON nested deeper than 100 levels is refused before it is parsed; 100 levels and strings of brackets are fine", async () => {
    const w = world();
    const deep = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body: "[".repeat(3_000_000), headers: { "content-type": "application/json" } }),
    );
    expect(deep.status).toBe(400);
    const error = await errorOf(deep);
    expect(error.code).toBe(-32700);
    expect(error.message).toContain("nested deeper than 100 levels");
    const refusal = (text: string) => jsonRefusal(new TextEncoder().encode(text));
    expect(refusal(`${"[".repeat(100)}${"]".repeat(100)}`)).toBeUndefined();
    expect(refusal(`["${"[".repeat(500)}\\", "\\"[["]`)).toBeUndefined();
    expect(refusal(`{"a":${"[".repeat(101)}`)).toBe("nested deeper than 100 levels");
    // A string ends at a quote after an even run of backslashes: what follows `\\"` is outside it again.
    expect(refusal(`["a\\\\", ${"[".repeat(101)}`)).toBe("nested deeper than 100 levels");
    expect(refusal(`["a\\\\\\"${"[".repeat(101)}"]`)).toBeUndefined();
    expect(refusal(`{"k": "${"x".repeat(1_000_000)}:::", "b": ${"[".repeat(101)}`)).toBe(
      "nested deeper than 100 levels",
    );
  });

  test("malformed JSON is a JSON-RPC parse error, and the handler keeps serving", async () => {
    const w = world();
    for (const body of ["{not json", "", "\u0000\u0001"]) {
      const response = await w.handler.handle(
        mcpRequest("POST", "/mcp", { body, headers: { "content-type": "application/json" } }),
      );
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe(-32700);
    }
    const { id } = await w.open();
    const garbage = await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: '{"jsonrpc":"2.0","id":' }));
    expect((await errorOf(garbage)).code).toBe(-32700);
    const notRpc = await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: { hello: "world" } }));
    expect(notRpc.status).toBe(400);
    const wrongType = await w.handler.handle(
      mcpRequest("POST", "/mcp", { session: id, body: "{}", headers: { "content-type": "text/plain" } }),
    );
    expect(wrongType.status).toBe(415);
    const list = await messages(await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools() })));
    expect(list[0]?.result.tools.map((t: { name: string }) => t.name)).toContain("skill");
  });
});

describe("sessions", () => {
  test("initialize issues an Mcp-Session-Id; requests without one are 400, unknown ones 404", async () => {
    const w = world();
    const { id, init } = await w.open();
    expect(id).toMatch(/^[0-9a-f-]{36}\.[\w-]*\.[\w-]{43}$/);
    expect(init.result.serverInfo.name).toBe("skillhub");
    const missing = await w.handler.handle(mcpRequest("POST", "/mcp", { body: listTools() }));
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).message).toContain("Mcp-Session-Id");
    const unknown = await w.handler.handle(
      mcpRequest("POST", "/mcp", { session: "00000000-0000-0000-0000-000000000000", body: listTools() }),
    );
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe(-32001);
    expect(
      (await w.handler.handle(mcpRequest("GET", "/mcp", { headers: { accept: "text/event-stream" } }))).status,
    ).toBe(400);
    expect((await w.handler.handle(mcpRequest("DELETE", "/mcp"))).status).toBe(400);
    const ok = await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools() }));
    expect(ok.status).toBe(200);
    // The server picks every id: an initialize naming one of the client's choosing, or sent again in an open
    // session, opens nothing.
    const chosen = await w.handler.handle(
      mcpRequest("POST", "/mcp", { session: "chosen-by-client", body: initialize() }),
    );
    expect(chosen.status).toBe(404);
    expect(chosen.headers.get("mcp-session-id")).toBeNull();
    const again = await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: initialize() }));
    expect(again.status).toBe(400);
    expect(again.headers.get("mcp-session-id")).toBeNull();
    expect(w.handler.sessions.list().map((s) => s.id)).toEqual([id]);
  });

  test("protocol versions 2025-03-26, 2025-06-18 and 2025-11-25 are each accepted as asked", async () => {
    const w = world();
    for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
      const { id, init } = await w.open(version);
      expect(init.result.protocolVersion).toBe(version);
      const list = await w.handler.handle(
        mcpRequest("POST", "/mcp", { session: id, body: listTools(), headers: { "mcp-protocol-version": version } }),
      );
      expect(list.status).toBe(200);
    }
    const { id } = await w.open();
    const bad = await w.handler.handle(
      mcpRequest("POST", "/mcp", { session: id, body: listTools(), headers: { "mcp-protocol-version": "1999-01-01" } }),
    );
    expect(bad.status).toBe(400);
  });

  test("each session has its own server over the one hub", async () => {
    const w = world();
    const a = await w.open();
    const b = await w.open();
    expect(a.id).not.toBe(b.id);
    expect(w.handler.sessions.size).toBe(2);
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "skill", arguments: { name: "git-helper" } },
    };
    for (const s of [a, b]) {
      const [reply] = await messages(await w.handler.handle(mcpRequest("POST", "/mcp", { session: s.id, body: call })));
      expect(reply?.result.content[0].text).toContain("Loading: git-helper");
    }
  });

  test("DELETE ends a session: 200, then 404", async () => {
    const w = world();
    const { id } = await w.open();
    const deleted = await w.handler.handle(mcpRequest("DELETE", "/mcp", { session: id }));
    expect(deleted.status).toBe(200);
    expect(w.handler.sessions.size).toBe(0);
    expect((await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools() }))).status).toBe(404);
  });

  test("an idle session is closed, and opened again by its client's next request; one holding its GET stream stays open", async () => {
    const w = world({ sessionIdleMs: 60_000 });
    const idle = await w.open();
    const listening = await w.open();
    const stream = await w.handler.handle(
      mcpRequest("GET", "/mcp", { session: listening.id, headers: { accept: "text/event-stream" } }),
    );
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    w.advance(59_000);
    expect(await w.handler.sweep()).toEqual([]);
    w.advance(2_000);
    expect(await w.handler.sweep()).toEqual([idle.id]);
    expect(w.handler.sessions.list().map((s) => s.id)).toEqual([listening.id]);
    const back = await w.handler.handle(mcpRequest("POST", "/mcp", { session: idle.id, body: listTools() }));
    expect(back.status).toBe(200);
    expect((await messages(back))[0]?.result.tools.length).toBeGreaterThan(0);
    expect(w.handler.sessions.size).toBe(2);
    const stillThere = await w.handler.handle(mcpRequest("POST", "/mcp", { session: listening.id, body: listTools() }));
    expect(stillThere.status).toBe(200);
    await stillThere.text();
    // The client hangs up: the idle clock starts from then.
    await stream.body?.cancel();
    w.advance(61_000);
    expect((await w.handler.sweep()).sort()).toEqual([idle.id, listening.id].sort());
    expect(w.handler.sessions.size).toBe(0);
  });

  test("a restarted server opens again a session its predecessor issued, under the same token, with the client's name", async () => {
    const token = "s3cret-token";
    const auth = { authorization: `Bearer ${token}` };
    const before = world({ token });
    const init = await before.handler.handle(mcpRequest("POST", "/mcp", { body: initialize(), headers: auth }));
    const id = init.headers.get("mcp-session-id") as string;
    await init.text();
    await before.close();
    const after = world({ token });
    const version = { ...auth, "mcp-protocol-version": "2025-06-18" };
    const list = await after.handler.handle(
      mcpRequest("POST", "/mcp", { session: id, body: listTools(), headers: version }),
    );
    expect(list.status).toBe(200);
    expect((await messages(list))[0]?.result.tools.map((t: { name: string }) => t.name)).toContain("skill");
    const [resumed] = after.handler.sessions.list();
    expect(resumed?.id).toBe(id);
    expect(resumed?.server.server.getClientVersion()?.name).toBe("handler-test");
    expect(after.logger.lines.some((l) => l.includes(`session ${id.slice(0, 8)} resumed`))).toBe(true);
    // The GET stream a client opens again after the restart is the resumed session's.
    const stream = await after.handler.handle(
      mcpRequest("GET", "/mcp", { session: id, headers: { ...version, accept: "text/event-stream" } }),
    );
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    await stream.body?.cancel();
    expect(after.handler.sessions.size).toBe(1);
  });

  test("requests sent at once naming one id after a restart open one session, which answers them all", async () => {
    // One place in the table: a second session under the id could not open.
    const { id, after } = await restarted({ maxSessions: 1, ...ONE_ADDRESS });
    const answers = await Promise.all(
      [2, 3, 4, 5].map((n) => after.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools(n) }))),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const answer of answers) expect((await messages(answer))[0]?.result.tools.length).toBeGreaterThan(0);
    expect(after.handler.sessions.list().map((s) => s.id)).toEqual([id]);
    // Its one place in the table is given back when it ends.
    expect((await after.handler.handle(mcpRequest("DELETE", "/mcp", { session: id }))).status).toBe(200);
    expect(after.handler.sessions.size).toBe(0);
    expect((await after.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools() }))).status).toBe(
      404,
    );
    await after.open();
  });

  test("a DELETE of a session the server no longer holds ends it too: it is not opened again", async () => {
    const { id, after } = await restarted();
    expect((await after.handler.handle(mcpRequest("DELETE", "/mcp", { session: id }))).status).toBe(200);
    expect((await after.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools() }))).status).toBe(
      404,
    );
    expect(after.handler.sessions.size).toBe(0);
  });

  test("a resumed session asking in a protocol version the server lacks gets 400 and opens nothing", async () => {
    const { id, after } = await restarted();
    const asked = await after.handler.handle(
      mcpRequest("POST", "/mcp", { session: id, body: listTools(), headers: { "mcp-protocol-version": "1999-01-01" } }),
    );
    expect(asked.status).toBe(400);
    expect((await errorOf(asked)).message).toContain('unsupported MCP-Protocol-Version "1999-01-01"');
    expect(after.handler.sessions.size).toBe(0);
  });

  test("a resumed session is told when the tools change, though it listed them before the restart", async () => {
    const { id, after } = await restarted();
    await after.hub.ready;
    const stream = await after.handler.handle(
      mcpRequest("GET", "/mcp", { session: id, headers: { accept: "text/event-stream" } }),
    );
    const reader = sseReader(stream);
    writeSkill(after.dir, "brand-new", { description: "Added while serving" });
    await after.hub.refresher.rescan("test");
    const seen: string[] = [];
    while (!seen.includes("notifications/tools/list_changed")) seen.push((await reader.next()).method);
    await reader.cancel();
  });

  test("a refusal for requests resuming one id at once reaches each of them", async () => {
    const { id, after } = await restarted({ maxSessions: 1, ...ONE_ADDRESS });
    await after.open();
    const answers = await Promise.all(
      [2, 3].map((n) => after.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools(n) }))),
    );
    expect(answers.map((a) => a.status)).toEqual([503, 503]);
    for (const answer of answers) expect((await errorOf(answer)).message).toContain("sessions are open");
  });

  test("an id this server did not issue, or issued under another token, or altered, is 404", async () => {
    const issuer = world({ token: "one-token" });
    const init = await issuer.handler.handle(
      mcpRequest("POST", "/mcp", { body: initialize(), headers: { authorization: "Bearer one-token" } }),
    );
    const id = init.headers.get("mcp-session-id") as string;
    await init.text();
    const other = world({ token: "another-token" });
    const auth = { authorization: "Bearer another-token" };
    const altered = `${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}`;
    const renamed = id.replace(/\.[\w-]*\./, `.${Buffer.from("someone-else").toString("base64url")}.`);
    for (const session of [id, altered, renamed, "00000000-0000-0000-0000-000000000000", "a.b.c"]) {
      const answer = await other.handler.handle(
        mcpRequest("POST", "/mcp", { session, body: listTools(), headers: auth }),
      );
      expect(answer.status, session).toBe(404);
      expect((await errorOf(answer)).code).toBe(-32001);
    }
    expect(other.handler.sessions.size).toBe(0);
    // An initialize sent with an old id opens nothing either: the server picks every id.
    const reopened = await issuer.handler.handle(
      mcpRequest("POST", "/mcp", {
        session: altered,
        body: initialize(),
        headers: { authorization: "Bearer one-token" },
      }),
    );
    expect(reopened.status).toBe(404);
  });

  test("tools/list_changed reaches every session with a GET stream", async () => {
    const w = world();
    await w.hub.ready;
    const readers = [];
    for (let i = 0; i < 2; i++) {
      const { id } = await w.open();
      await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: listTools() })).then((r) => r.text());
      const stream = await w.handler.handle(
        mcpRequest("GET", "/mcp", { session: id, headers: { accept: "text/event-stream" } }),
      );
      readers.push(sseReader(stream));
    }
    writeSkill(w.dir, "brand-new", { description: "Added while serving" });
    await w.hub.refresher.rescan("test");
    for (const reader of readers) {
      const message = await reader.next();
      expect(message.method).toBe("notifications/tools/list_changed");
      await reader.cancel();
    }
  });

  test("an initialize over 64 KiB opens no session (413): a session keeps what initialize sent for its whole life", async () => {
    const w = world();
    const padded = (bytes: number) => {
      const body = initialize();
      return {
        ...body,
        params: { ...body.params, capabilities: { experimental: { pad: { text: "x".repeat(bytes) } } } },
      };
    };
    const refused = await w.handler.handle(mcpRequest("POST", "/mcp", { body: padded(MAX_INITIALIZE_BYTES) }));
    expect(refused.status).toBe(413);
    expect((await errorOf(refused)).message).toBe(
      `Payload Too Large: a request that opens a session (initialize) must not exceed ${MAX_INITIALIZE_BYTES} bytes.`,
    );
    expect(w.handler.sessions.size).toBe(0);
    const opened = await w.handler.handle(mcpRequest("POST", "/mcp", { body: padded(MAX_INITIALIZE_BYTES - 1024) }));
    expect(opened.status).toBe(200);
    expect(w.handler.sessions.size).toBe(1);
    // Within a session, requests keep the 4 MiB limit.
    const id = opened.headers.get("mcp-session-id") as string;
    const call = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "search_skills", arguments: { query: "git", pad: "x".repeat(MAX_INITIALIZE_BYTES) } },
    };
    const [reply] = await messages(await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: call })));
    expect(reply?.id).toBe(3);
  });

  test("the number of sessions is bounded: 503 with Retry-After while every session is in use", async () => {
    const w = world({ maxSessions: 1, ...ONE_ADDRESS });
    await w.open();
    const refused = await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize() }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("60");
  });

  test("with every session taken by open streams, the one quiet the longest gives its place to a newcomer", async () => {
    const w = world({ maxSessions: 2, ...ONE_ADDRESS });
    const held: ReturnType<typeof sseReader>[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { id } = await w.open();
      ids.push(id);
      const stream = await w.handler.handle(
        mcpRequest("GET", "/mcp", { session: id, headers: { accept: "text/event-stream" } }),
      );
      held.push(sseReader(stream));
      w.advance(10_000);
    }
    // Streams open, no request: never idle, so only the quiet-the-longest rule frees a place.
    w.advance(30 * 60_000 + 1);
    const second = ids[1] as string;
    await w.handler.handle(mcpRequest("POST", "/mcp", { session: second, body: listTools() })).then((r) => r.text());
    const { id: newcomer } = await w.open();
    expect(
      w.handler.sessions
        .list()
        .map((s) => s.id)
        .sort(),
    ).toEqual([second, newcomer].sort());
    // Its client's next request would open it again, in the place of one quiet for a minute: none is.
    const gone = await w.handler.handle(mcpRequest("POST", "/mcp", { session: ids[0] as string, body: listTools() }));
    expect(gone.status).toBe(503);
    // Sessions that all asked something within the minute keep their places.
    const refused = await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize() }));
    expect(refused.status).toBe(503);
    // The closed session's stream has failed, which closes a socket's connection; the other is let go.
    const [closed] = await Promise.allSettled([held[0]?.cancel()]);
    expect(closed?.status).toBe("rejected");
    await held[1]?.cancel();
  });

  test("a session with a call in progress keeps its place, however long the call runs", async () => {
    const w = world({ maxSessions: 1, ...ONE_ADDRESS }, { SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "bash" });
    const skill = join(w.dir, "pdf-tools");
    // The command says it started, then waits for the test's word: no clock decides how long it runs.
    writeFileSync(join(skill, "wait.sh"), "touch started\nwhile [ ! -e go ]; do sleep 0.05; done\necho done\n");
    const { id } = await w.open();
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "run_skill_command", arguments: { skill_name: "pdf-tools", command: "bash", args: ["wait.sh"] } },
    };
    const running = sseReader(await w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body: call })));
    const answer = running.next();
    await eventually(() => existsSync(join(skill, "started")));
    w.advance(10 * 60_000);
    const refused = await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize() }));
    expect(refused.status).toBe(503);
    expect(w.handler.sessions.list().map((s) => s.id)).toEqual([id]);
    writeFileSync(join(skill, "go"), "");
    expect(await answer).toMatchObject({ id: 7, result: { structuredContent: { stdout: "done\n" } } });
  });

  test("a cancelled call's stream ends with a 'Request cancelled' answer; one answered first gets nothing more", async () => {
    const w = world({}, { SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "bash" });
    const skill = join(w.dir, "pdf-tools");
    writeFileSync(join(skill, "wait.sh"), "touch started\nwhile [ ! -e go ]; do sleep 0.05; done\necho done\n");
    // 2025-03-26: the last revision with batches, which this test sends too.
    const { id } = await w.open("2025-03-26");
    const post = (body: unknown) => w.handler.handle(mcpRequest("POST", "/mcp", { session: id, body }));
    const cancel = (requestId: number) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId },
    });
    const command = {
      name: "run_skill_command",
      arguments: { skill_name: "pdf-tools", command: "bash", args: ["wait.sh"] },
    };
    // A call running when its cancellation comes: the SDK sends it no answer, and its stream stayed open.
    const running = sseReader(await post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: command }));
    await eventually(() => existsSync(join(skill, "started")));
    expect((await post(cancel(7))).status).toBe(202);
    expect(await running.next()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32800, message: "Request cancelled" },
    });
    await running.ended();
    // Cancelled in the body that asks it: the SDK never starts it. Many of them leave no stream open.
    for (let n = 100; n < 120; n++) {
      const batch = [{ jsonrpc: "2.0", id: n, method: "tools/list" }, cancel(n)];
      expect(await messages(await post(batch))).toEqual([
        { jsonrpc: "2.0", id: n, error: { code: -32800, message: "Request cancelled" } },
      ]);
    }
    expect(w.handler.sessions.list()[0]).toMatchObject({ openStreams: 0, openCalls: 0 });
    // Answered before the cancellation came: the cancellation changes nothing.
    const listed = await messages(await post(listTools(200)));
    expect(listed[0]).toMatchObject({ id: 200, result: { tools: expect.any(Array) } });
    expect((await post(cancel(200))).status).toBe(202);
    expect(await messages(await post(listTools(201)))).toEqual([expect.objectContaining({ id: 201 })]);
    // In a batch, one request answered while the other runs: its stream stays open, and cancelling the
    // answered one sends nothing more; the other's answer comes next.
    writeFileSync(join(skill, "wait2.sh"), "touch started2\nwhile [ ! -e go2 ]; do sleep 0.05; done\necho done2\n");
    const slow = { ...command, arguments: { ...command.arguments, args: ["wait2.sh"] } };
    const both = sseReader(
      await post([{ jsonrpc: "2.0", id: 300, method: "tools/call", params: slow }, listTools(301)]),
    );
    expect(await both.next()).toMatchObject({ id: 301, result: { tools: expect.any(Array) } });
    await eventually(() => existsSync(join(skill, "started2")));
    expect((await post(cancel(301))).status).toBe(202);
    writeFileSync(join(skill, "go2"), "");
    expect(await both.next()).toMatchObject({ id: 300, result: { structuredContent: { stdout: "done2\n" } } });
    writeFileSync(join(skill, "go"), "");
  });

  test("an initialize the SDK refuses (wrong Accept) leaves no session behind", async () => {
    const w = world();
    const response = await w.handler.handle(
      mcpRequest("POST", "/mcp", { body: initialize(), headers: { accept: "application/json" } }),
    );
    expect(response.status).toBe(406);
    expect(w.handler.sessions.size).toBe(0);
  });
});

describe("stateless mode", () => {
  test("each POST is answered in JSON without a session; GET and DELETE are 405", async () => {
    const w = world({ stateless: true });
    const init = await w.handler.handle(mcpRequest("POST", "/mcp", { body: initialize("2025-06-18") }));
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toContain("application/json");
    expect(init.headers.get("mcp-session-id")).toBeNull();
    expect((await messages(init))[0]?.result.protocolVersion).toBe("2025-06-18");
    const list = await w.handler.handle(mcpRequest("POST", "/mcp", { body: listTools() }));
    expect(list.headers.get("content-type")).toContain("application/json");
    const [reply] = await messages(list);
    expect(reply?.result.tools.some((t: { name: string }) => t.name === "skill")).toBe(true);
    const call = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "skill", arguments: { name: "pdf-tools" } },
    };
    const [called] = await messages(await w.handler.handle(mcpRequest("POST", "/mcp", { body: call })));
    expect(called?.result.content[0].text).toContain("Loading: pdf-tools");
    expect(
      (await w.handler.handle(mcpRequest("GET", "/mcp", { headers: { accept: "text/event-stream" } }))).status,
    ).toBe(405);
    expect((await w.handler.handle(mcpRequest("DELETE", "/mcp"))).status).toBe(405);
    expect(w.handler.sessions.size).toBe(0);
  });
});
