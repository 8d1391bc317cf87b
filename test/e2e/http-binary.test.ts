import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";
import { within } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const bin = binary();

function world() {
  const home = tempDir("skillhub-http-bin-home-");
  const skills = tempDir("skillhub-http-bin-skills-");
  writeSkill(skills, "git-helper", { description: "Git workflow helper" });
  return { home, skills, env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "DEBUG" } };
}

describe("the compiled binary over Streamable HTTP", () => {
  test("serve --transport http --port 0: reports its URL, serves MCP and /healthz, exits 0 on SIGTERM; the token is never logged", async () => {
    const w = world();
    const token = "tok-0123456789abcdef0123456789";
    const server = await startHttpBinary(bin, ["--skills-dir", w.skills], {
      env: { ...w.env, SKILLHUB_HTTP_TOKEN: token },
      cwd: w.home,
      logLevel: "DEBUG",
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", skills: 1 });
    const client = new Client({ name: "binary-http", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const result = (await client.callTool({ name: "skill", arguments: { name: "git-helper" } })) as CallToolResult;
    expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Loading: git-helper") });
    await client.close();
    const refused = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", host: "evil.example.com" },
      body: "{}",
    });
    expect(refused.status).toBe(403);
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain("token required");
    expect(server.stderr()).not.toContain(token);
  });

  test("a non-loopback address without a token: refuses to start, exit 2, says what to do", async () => {
    const w = world();
    const proc = Bun.spawn(
      [bin, "serve", "--transport", "http", "--host", "0.0.0.0", "--port", "0", "--skills-dir", w.skills],
      {
        env: w.env,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    expect(await proc.exited).toBe(2);
    const stderr = await new Response(proc.stderr).text();
    expect(stderr).toContain("refusing to serve HTTP on 0.0.0.0 without a token");
    expect(stderr).toContain("SKILLHUB_HTTP_TOKEN");
    expect(await new Response(proc.stdout).text()).toBe("");
  });

  test("--help documents the HTTP options", () => {
    const help = Bun.spawnSync([bin, "--help"]).stdout.toString();
    for (const flag of ["--transport stdio|http", "--host ADDR", "--port N", "--stateless", "SKILLHUB_HTTP_TOKEN"])
      expect(help).toContain(flag);
  });

  test("SIGINT with an open GET stream still exits 0", async () => {
    const w = world();
    const server = await startHttpBinary(bin, ["--skills-dir", w.skills, "--no-watch"], { env: w.env });
    const client = new Client({ name: "binary-http", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await client.listTools();
    server.proc.kill("SIGINT");
    expect(await server.proc.exited).toBe(0);
    await client.close().catch(() => undefined);
  });
});

/** One raw HTTP/1.1 exchange over TCP: for what fetch will not send (a bad Host, half a body). */
async function rawRequest(port: number, text: string): Promise<{ status: number; socket: { end(): void } }> {
  let received = "";
  let resolveStatus!: (status: number) => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, chunk) {
        received += new TextDecoder().decode(chunk);
        const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
        if (match) resolveStatus(Number(match[1]));
      },
      close() {
        resolveStatus(0);
      },
    },
  });
  socket.write(text);
  return { status: await status, socket };
}

describe("the binary's HTTP edge under bad input and signals", () => {
  test("a malformed Host header gets 403 at DEBUG, not 500", async () => {
    const w = world();
    const server = await startHttpBinary(bin, ["--skills-dir", w.skills], {
      env: w.env,
      cwd: w.home,
      logLevel: "DEBUG",
    });
    const port = Number(new URL(server.url).port);
    for (const host of ["exa mple:1", "[::1", "a@b"]) {
      const { status, socket } = await rawRequest(
        port,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
      socket.end();
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    }
    expect(await server.stop()).toBe(0);
  });

  test("SIGTERM ends the server promptly while a client holds a half-sent POST body", async () => {
    const w = world();
    const server = await startHttpBinary(bin, ["--skills-dir", w.skills], { env: w.env, cwd: w.home });
    const port = Number(new URL(server.url).port);
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 5000\r\n\r\n{"jsonrpc":"2.0",`,
    );
    await Bun.sleep(200);
    server.proc.kill("SIGTERM");
    // Hang detection only (within): the server must exit, however loaded the machine.
    const code = await within(server.proc.exited, "the server's exit after SIGTERM");
    socket.end();
    expect(code).toBe(0);
  });

  test("a second serve on a busy port refuses to start: non-zero exit, 'port N is in use'", async () => {
    const w = world();
    const first = await startHttpBinary(bin, ["--skills-dir", w.skills], { env: w.env, cwd: w.home });
    const port = new URL(first.url).port;
    const second = Bun.spawn([bin, "serve", "--transport", "http", "--port", port, "--skills-dir", w.skills], {
      env: w.env,
      cwd: w.home,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    const code = await second.exited;
    const stderr = await new Response(second.stderr).text();
    expect(code).not.toBe(0);
    expect(stderr).toContain(`port ${port} is in use`);
    expect(await first.stop()).toBe(0);
  });
});
