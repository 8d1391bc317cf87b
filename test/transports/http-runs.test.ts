import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CallToolResult, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type HttpServeOptions, startHttpServer } from "../../src/transports/http.ts";
import { REVISIONS, type Revision } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";
import { survivors } from "../helpers/process.ts";
import { writeScriptTree } from "../helpers/scripts.ts";
import { eventually, HANG_MS } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach({ ignoringErrors: true });

/** The script every test runs: notes its pid in a file beside it, then waits for the test's word. */
const WAIT =
  'touch "$(dirname "$0")/started.$$"\nwhile [ ! -e "$(dirname "$0")/release" ]; do sleep 0.05; done\necho waited\n';

/**
 * `skillhub serve --http` in process on a free loopback port, over a tree whose `scripts/wait.sh` runs
 * until released; a run's timeout far past any wait of these tests, so only the server's own doing ends
 * one early.
 */
async function server(options: HttpServeOptions = {}) {
  const dir = writeScriptTree(tempDir());
  const scripts = join(dir, "tools/echo/scripts");
  write(join(scripts, "wait.sh"), WAIT);
  const { hub } = testHub({
    flags: { "skills-dir": [dir] },
    env: { SKILLHUB_TOOLS: "all" },
    configFile: { scripts: { timeout_seconds: 3600 } },
    hub: { acceptRoots: false },
  });
  const running = startHttpServer(hub, { port: 0, ...options });
  void hub.start();
  await hub.ready;
  closers.push(async () => {
    writeFileSync(join(scripts, "release"), "");
    await running.stop();
    await hub.shutdown();
  });
  return {
    url: running.url,
    /** The pids of the runs started so far. */
    runs: () =>
      readdirSync(scripts).flatMap((name) => {
        const started = /^started\.(\d+)$/.exec(name);
        return started ? [Number(started[1])] : [];
      }),
    release: () => writeFileSync(join(scripts, "release"), ""),
  };
}

/**
 * An SDK client of `url` on `revision` whose tool calls can be hung up on: `hangUp` aborts the HTTP
 * request of its oldest call not hung up on yet (the connection closes under it) and nothing else; the
 * client sends no cancellation.
 */
async function client(url: string, revision: Revision) {
  const calls: AbortController[] = [];
  const fetch: typeof globalThis.fetch = Object.assign(
    (input: string | URL | Request, init?: RequestInit) => {
      if (typeof init?.body !== "string" || !init.body.includes('"tools/call"')) return globalThis.fetch(input, init);
      const call = new AbortController();
      calls.push(call);
      return globalThis.fetch(input, {
        ...init,
        signal: init.signal ? AbortSignal.any([init.signal, call.signal]) : call.signal,
      });
    },
    { preconnect: globalThis.fetch.preconnect },
  );
  const modern = revision >= "2026-";
  const c = new Client(
    { name: `runs-${revision}`, version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: revision } } } : { supportedProtocolVersions: [revision] },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { fetch }));
  closers.unshift(() => c.close());
  // The client's own timeout would cancel the call (notifications/cancelled): far past the test's waits.
  const wait = () =>
    c.callTool(
      { name: "run_script", arguments: { skill_path: "tools/echo", file: "scripts/wait.sh" } },
      { timeout: 3 * HANG_MS },
    ) as Promise<CallToolResult>;
  return { wait, hangUp: () => calls.shift()?.abort() };
}

type Err = { error: { code: string; message: string; [k: string]: unknown } };
const error = (r: CallToolResult) => (r.structuredContent as Err).error;

describe("a call whose client hangs up", () => {
  const cases: Array<[string, Revision, HttpServeOptions]> = [
    ...REVISIONS.map((r): [string, Revision, HttpServeOptions] => [r, r, {}]),
    ["2025-06-18, stateless", "2025-06-18", { stateless: true }],
  ];
  for (const [name, revision, options] of cases)
    test(`${name}: its script is ended as a cancelled call's is; the client's other call goes on`, async () => {
      const hub = await server(options);
      const c = await client(hub.url, revision);
      void c.wait().catch(() => undefined);
      await eventually(() => hub.runs().length === 1);
      const [pid] = hub.runs() as [number];
      const other = c.wait();
      await eventually(() => hub.runs().length === 2);
      c.hangUp();
      // Without the hang-up seen, the script would run until its timeout, an hour away.
      expect(await survivors([pid])).toEqual([]);
      hub.release();
      expect((await other).structuredContent).toMatchObject({ success: true, stdout: "waited\n" });
      expect((await c.wait()).structuredContent).toMatchObject({ success: true, stdout: "waited\n" });
    });
});

describe("one client's share of the runs", () => {
  test("a session runs 4 scripts at once; its fifth is refused with TOO_MANY_RUNS while another session gets a place", async () => {
    const hub = await server();
    const greedy = await client(hub.url, "2025-06-18");
    const other = await client(hub.url, "2025-06-18");
    const held = Array.from({ length: 4 }, () => greedy.wait());
    await eventually(() => hub.runs().length === 4);
    let fifth: CallToolResult | undefined;
    void greedy.wait().then((r) => (fifth = r));
    // Without the share the fifth starts and waits with the others.
    await eventually(() => fifth !== undefined || hub.runs().length > 4);
    expect(hub.runs().length).toBe(4);
    expect(fifth?.isError).toBe(true);
    expect(fifth && error(fifth)).toMatchObject({ code: "TOO_MANY_RUNS", running: 4, client_share: 4 });
    expect(fifth && error(fifth).message).toBe(
      "This client is running 4 scripts and commands, the most one client may run at once (its share of the 16 this server runs for all its clients); try again when one of them has finished.",
    );
    const another = other.wait();
    await eventually(() => hub.runs().length === 5);
    hub.release();
    for (const result of await Promise.all([...held, another]))
      expect(result.structuredContent).toMatchObject({ success: true });
    // Its runs over, the client has its whole share again.
    const again = await Promise.all(Array.from({ length: 4 }, () => greedy.wait()));
    for (const result of again) expect(result.structuredContent).toMatchObject({ success: true });
  });

  test("requests without a session share half the runs between them, beyond any one session's share; a session keeps its own", async () => {
    const hub = await server();
    const first = await client(hub.url, "2026-07-28");
    const second = await client(hub.url, "2026-07-28");
    const session = await client(hub.url, "2025-11-25");
    const held = [...Array.from({ length: 5 }, () => first.wait()), ...Array.from({ length: 3 }, () => second.wait())];
    await eventually(() => hub.runs().length === 8);
    let refused: CallToolResult | undefined;
    void second.wait().then((r) => (refused = r));
    await eventually(() => refused !== undefined || hub.runs().length > 8);
    expect(hub.runs().length).toBe(8);
    expect(refused && error(refused)).toMatchObject({ code: "TOO_MANY_RUNS", running: 8, client_share: 8 });
    const own = session.wait();
    await eventually(() => hub.runs().length === 9);
    hub.release();
    for (const result of await Promise.all([...held, own]))
      expect(result.structuredContent).toMatchObject({ success: true });
  });
});
