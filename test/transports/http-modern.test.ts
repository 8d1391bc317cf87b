import { afterAll, describe, expect, test } from "bun:test";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp } from "../helpers/fs.ts";
import { handlerWorld, mcpRequest, messages } from "../helpers/http.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

const MODERN = "2026-07-28";

/** A 2026-07-28 request body: every request carries its own _meta envelope (no initialize). */
function modern(id: number, method: string, params: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
}

function post(body: unknown, headers: Record<string, string>) {
  return mcpRequest("POST", "/mcp", { body, headers: { "mcp-protocol-version": MODERN, ...headers } });
}

describe("the 2026-07-28 revision over HTTP (stateless, no initialize)", () => {
  test("server/discover answers without a session, with the extension, instructions and cache fields", async () => {
    const w = handlerWorld();
    closers.push(w.close);
    const response = await w.handler.handle(post(modern(1, "server/discover"), { "mcp-method": "server/discover" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const [answer] = await messages(response);
    expect(answer?.id).toBe(1);
    expect(answer?.result.capabilities.extensions["io.modelcontextprotocol/skills"]).toEqual({ directoryRead: true });
    expect(answer?.result.instructions).toContain("skill");
    expect(answer?.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: "private" });
  });

  test("tools/list carries ttlMs and cacheScope; the same call on 2025 does not", async () => {
    const w = handlerWorld();
    closers.push(w.close);
    const response = await w.handler.handle(post(modern(2, "tools/list"), { "mcp-method": "tools/list" }));
    const [answer] = await messages(response);
    expect(answer?.result.tools.length).toBeGreaterThan(0);
    expect(answer?.result.ttlMs).toBe(30_000);
    expect(answer?.result.cacheScope).toBe("private");
    const session = await w.open("2025-11-25");
    const legacy = await w.handler.handle(
      mcpRequest("POST", "/mcp", {
        session: session.id,
        body: { jsonrpc: "2.0", id: 3, method: "tools/list" },
        headers: { "mcp-protocol-version": "2025-11-25" },
      }),
    );
    const [old] = await messages(legacy);
    expect(old?.result.ttlMs).toBeUndefined();
  });

  test("Mcp-Method and Mcp-Name headers are validated against the body; the error carries the request id", async () => {
    const w = handlerWorld();
    closers.push(w.close);
    const cases: { body: ReturnType<typeof modern>; headers: Record<string, string> }[] = [
      { body: modern(4, "tools/list"), headers: { "mcp-method": "tools/call" } },
      { body: modern(5, "tools/list"), headers: {} },
      {
        body: modern(6, "tools/call", { name: "skill", arguments: { name: "git-helper" } }),
        headers: { "mcp-method": "tools/call", "mcp-name": "search_skills" },
      },
      {
        body: modern(7, "resources/read", { uri: "skill://git-helper/SKILL.md" }),
        headers: { "mcp-method": "resources/read" },
      },
    ];
    for (const { body, headers } of cases) {
      const response = await w.handler.handle(post(body, headers));
      expect(response.status).toBe(400);
      const [answer] = await messages(response);
      expect({ id: answer?.id, hasError: answer?.error !== undefined }).toEqual({ id: body.id, hasError: true });
    }
    const ok = await w.handler.handle(
      post(modern(8, "tools/call", { name: "skill", arguments: { name: "git-helper" } }), {
        "mcp-method": "tools/call",
        "mcp-name": "skill",
      }),
    );
    expect(ok.status).toBe(200);
    const [answer] = await messages(ok);
    expect(answer?.result.content[0].text).toContain("git-helper");
  });

  test("security still applies first: a foreign Host or Origin is refused before the revision matters", async () => {
    const w = handlerWorld({ token: "secret-token-0123456789" });
    closers.push(w.close);
    const body = modern(9, "tools/list");
    expect((await w.handler.handle(post(body, { "mcp-method": "tools/list", host: "evil.example" }))).status).toBe(403);
    expect(
      (await w.handler.handle(post(body, { "mcp-method": "tools/list", origin: "https://evil.example" }))).status,
    ).toBe(403);
    expect((await w.handler.handle(post(body, { "mcp-method": "tools/list" }))).status).toBe(401);
    const authorized = await w.handler.handle(
      post(body, { "mcp-method": "tools/list", authorization: "Bearer secret-token-0123456789" }),
    );
    expect(authorized.status).toBe(200);
  });
});
