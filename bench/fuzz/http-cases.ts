import { hostileCalls } from "./stdio-cases.ts";
import { must, type Suite } from "./suite.ts";

/** A free loopback port (bound then released). */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = server.port as number;
  server.stop(true);
  return port;
}

/** The JSON-RPC messages of a Streamable HTTP answer (JSON or SSE). */
async function messages(response: Response): Promise<string[]> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return text ? [text] : [];
  return text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim());
}

export async function httpCases(suite: Suite, base: string, answers: string[]): Promise<void> {
  const timeout = () => AbortSignal.timeout(15_000);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  let session: string | undefined;
  await suite.check("http: /healthz", async () => (await fetch(`${base}/healthz`, { signal: timeout() })).ok);
  await suite.check("http: initialize", async () => {
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers,
      signal: timeout(),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
      }),
    });
    session = response.headers.get("mcp-session-id") ?? undefined;
    answers.push(...(await messages(response)));
    if (session) headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = "2025-06-18";
    await fetch(`${base}/mcp`, {
      method: "POST",
      headers,
      signal: timeout(),
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    return response.ok;
  });
  let id = 100;
  for (const call of hostileCalls()) {
    await suite.check(`http ${call.tool}(${JSON.stringify(call.args).slice(0, 60)})`, async () => {
      const response = await fetch(`${base}/mcp`, {
        method: "POST",
        headers,
        signal: timeout(),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: id++,
          method: "tools/call",
          params: { name: call.tool, arguments: call.args },
        }),
      });
      answers.push(...(await messages(response)));
      must(response.status < 500, `HTTP ${response.status}`);
      return true;
    });
  }
  for (const [name, body] of [
    ["invalid JSON", "{"],
    ["a JSON array of garbage", "[1,2,3]"],
    ["an empty body", ""],
    ["a body over 4 MiB", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(5 * 1_048_576)}"}}`],
  ] as const) {
    await suite.check(`http: ${name} gets a 4xx, not a crash or a 500`, async () => {
      const response = await fetch(`${base}/mcp`, { method: "POST", headers, body, signal: timeout() });
      answers.push(await response.text());
      return response.status >= 400 && response.status < 500;
    });
  }
  await suite.check(
    "http: still healthy after the garbage",
    async () => (await fetch(`${base}/healthz`, { signal: timeout() })).ok,
  );
}

/**
 * Raw TCP: headers promising a body that never comes. Returns once the bytes are written.
 * Used to check that SIGTERM still stops the server.
 */
export async function halfSentBody(port: number): Promise<{ end(): void }> {
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: { data() {}, error() {} },
  });
  socket.write(
    'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"jsonrpc":',
  );
  return { end: () => socket.end() };
}

/** A request with a malformed Host header at DEBUG level: a 4xx is expected (transports). */
export async function malformedHost(port: number): Promise<number> {
  return await new Promise<number>((resolve) => {
    let text = "";
    void Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        data(_s, chunk) {
          text += new TextDecoder().decode(chunk);
          const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
          if (status) resolve(Number(status[1]));
        },
        error: () => resolve(0),
        close: () => resolve(0),
        open(s) {
          s.write("GET /mcp HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n");
        },
      },
    });
    setTimeout(() => resolve(0), 10_000);
  });
}
