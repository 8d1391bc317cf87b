import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type HttpServeOptions, type RunningHttpServer, startHttpServer } from "../../src/transports/http.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { initialize } from "../helpers/http.ts";
import { eventually, testHub } from "../helpers/hub.ts";

/**
 * Sample arguments for every tool SkillHub may list. A tool that tools/list
 * offers without an entry here fails the suite: add one when adding a tool.
 */
const SAMPLE_ARGUMENTS: Record<string, Record<string, unknown>> = {
  skill: { name: "git-helper" },
  search_skills: { query: "git workflow" },
  load_skill: { skill_name: "git-helper" },
  read_skill_file: { skill_name: "git-helper", file_path: "reference.md" },
  list_skills: {},
  get_skill: { context: "git workflow" },
  refresh_skills: {},
};

afterAll(cleanupTemp);
const cleanups = closeAfterEach({ ignoringErrors: true, lastFirst: true });

/** A real server on 127.0.0.1 port 0 over a hub with two skills; its clock is ours. */
function serve(options: HttpServeOptions = {}) {
  const dir = tempDir("skillhub-http-e2e-");
  writeSkill(dir, "git-helper", { description: "Git workflow helper: branches, commits, rebases" });
  write(join(dir, "git-helper", "reference.md"), "# Reference\n\nUse small commits.\n");
  writeSkill(dir, "pdf-tools", { description: "Work with PDF files" });
  const { hub } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
  let clock = 1_000_000;
  const server: RunningHttpServer = startHttpServer(hub, { port: 0, now: () => clock, ...options });
  void hub.start();
  cleanups.push(async () => {
    await server.stop();
    hub.close();
  });
  return { dir, hub, server, advance: (ms: number) => (clock += ms) };
}

async function connect(url: string, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "http-e2e", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

/** A session opened with plain fetch: no GET stream, so nothing keeps it alive. */
async function rawSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(initialize()),
  });
  await response.text();
  const id = response.headers.get("mcp-session-id");
  if (!id) throw new Error(`no session (status ${response.status})`);
  return id;
}

async function listWith(url: string, session: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  });
  await response.text();
  return response.status;
}

describe("Streamable HTTP on a real socket with the SDK client", () => {
  test("initialize, then every listed tool answers its sample arguments", async () => {
    const { server } = serve();
    const { client, transport } = await connect(server.url);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}\.[\w-]*\.[\w-]{43}$/);
    expect(client.getServerVersion()?.name).toBe("skillhub");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("skill");
    const missing = names.filter((n) => !(n in SAMPLE_ARGUMENTS));
    expect(
      missing,
      `tools/list offers tools with no sample arguments in test/e2e/http.test.ts: ${missing.join(", ")}`,
    ).toEqual([]);
    for (const name of names) {
      const result = (await client.callTool({ name, arguments: SAMPLE_ARGUMENTS[name] })) as CallToolResult;
      const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      expect(result.isError ? `${name}: ${text}` : "", `${name} failed with its sample arguments`).toBe("");
      expect(text.length, `${name} returned no text`).toBeGreaterThan(0);
    }
    const skill = (await client.callTool({ name: "skill", arguments: { name: "git-helper" } })) as CallToolResult;
    expect(skill.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Loading: git-helper") });
  });

  test("a skill added while serving sends tools/list_changed down the GET stream", async () => {
    const { dir, hub, server } = serve();
    await hub.ready;
    const { client } = await connect(server.url);
    let changed = 0;
    client.setNotificationHandler("notifications/tools/list_changed", async () => {
      changed++;
    });
    const before = await client.listTools();
    expect(before.tools.find((t) => t.name === "skill")?.description).not.toContain("brand-new");
    // The SDK client opens its GET stream after `initialized`; wait until the server holds it.
    await eventually(() => [...serverSessions(server)].some((s) => s.openStreams > 0));
    writeSkill(dir, "brand-new", { description: "Added while serving" });
    await hub.refresher.rescan("test");
    await eventually(() => changed > 0);
    const after = await client.listTools();
    expect(after.tools.find((t) => t.name === "skill")?.description).toContain("brand-new");
  });

  test("an idle session is closed and opened again by its next request; a client holding its GET stream stays", async () => {
    const { server, advance } = serve({ sessionIdleMinutes: 1 });
    const { client, transport } = await connect(server.url);
    await client.listTools();
    await eventually(() => [...serverSessions(server)].some((s) => s.openStreams > 0));
    const raw = await rawSession(server.url);
    expect(await listWith(server.url, raw)).toBe(200);
    advance(61_000);
    expect(await server.handler.sweep()).toEqual([raw]);
    expect(await listWith(server.url, raw)).toBe(200);
    expect(server.handler.sessions.size).toBe(2);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // Once the client hangs up, its session expires too.
    const id = transport.sessionId as string;
    await transport.close();
    await eventually(() => [...serverSessions(server)].every((s) => s.openStreams === 0));
    advance(61_000);
    expect((await server.handler.sweep()).sort()).toEqual([id, raw].sort());
    expect(server.handler.sessions.size).toBe(0);
  });

  test("a client that vanishes without DELETE while holding its GET stream is dropped once idle, unasked", async () => {
    const { server, advance } = serve({ sessionIdleMinutes: 30 });
    const id = await rawSession(server.url);
    const [session] = serverSessions(server);
    const socket = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } });
    socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${id}\r\n\r\n`);
    await eventually(() => session?.openStreams === 1);
    // Gone: the connection drops, no DELETE, no further request; the idle time counts from then.
    socket.terminate();
    await eventually(() => session?.openStreams === 0);
    advance(30 * 60_000 - 1);
    expect(await server.handler.sweep()).toEqual([]);
    advance(1);
    // The periodic sweep frees it: no request has to come for the session to be closed.
    expect(await server.handler.sweep()).toEqual([id]);
    expect(server.handler.sessions.size).toBe(0);
  });

  test("DELETE ends the session: the SDK's terminateSession, then 404", async () => {
    const { server } = serve();
    const { transport } = await connect(server.url);
    const id = transport.sessionId as string;
    expect(server.handler.sessions.size).toBe(1);
    await transport.terminateSession();
    expect(server.handler.sessions.size).toBe(0);
    expect(await listWith(server.url, id)).toBe(404);
  });

  test("stateless mode serves the SDK client without a session", async () => {
    const { server } = serve({ stateless: true });
    const { client, transport } = await connect(server.url);
    expect(transport.sessionId).toBeUndefined();
    const result = (await client.callTool({ name: "skill", arguments: { name: "pdf-tools" } })) as CallToolResult;
    expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Loading: pdf-tools") });
    expect(server.handler.sessions.size).toBe(0);
  });

  test("with a token the SDK client connects only when it sends it", async () => {
    const token = "0123456789abcdef0123456789abcdef";
    const { server } = serve({ token });
    await expect(connect(server.url)).rejects.toThrow();
    const { client } = await connect(server.url, { Authorization: `Bearer ${token}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const health = await fetch(server.url.replace(/\/mcp$/, "/healthz"));
    expect(((await health.json()) as { status: string }).status).toBe("ok");
  });
});

/** The server's open sessions (for waiting on the client's GET stream). */
function serverSessions(server: RunningHttpServer) {
  return server.handler.sessions.list();
}
