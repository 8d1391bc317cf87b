import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { readJsonlFile } from "../../src/analytics/jsonl.ts";
import { Publisher } from "../../src/analytics/publisher.ts";
import { Tracker } from "../../src/analytics/tracker.ts";
import { serveStdio } from "../../src/transports/stdio.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { analyticsEndpoint, type Endpoint } from "../helpers/endpoint.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { type ConnectOptions, connect, eventually, HANG_MS, testHub, within } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

function endpoint(): Endpoint {
  const e = analyticsEndpoint();
  closers.push(() => e.stop());
  return e;
}

/** `pdf` and the named skills (report_usage records feedback on existing skills only). */
function skills(names: string[] = []): string {
  const dir = tempDir();
  for (const name of ["pdf", ...names]) writeSkill(dir, name);
  return dir;
}

async function session(env: Record<string, string>, options: ConnectOptions = {}, names: string[] = []) {
  const s = await connect({ flags: { "skills-dir": [skills(names)] }, ...options, env: { USER: "alice", ...env } });
  closers.push(s.close);
  return s;
}

describe("analytics publisher", () => {
  test("batches of { events } arrive at the endpoint with type, ISO timestamp, server_id and data", async () => {
    const e = endpoint();
    const { call, client } = await session({ ANALYTICS_ENDPOINT: e.url, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "0.1" });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("report_usage");
    await call("skill", { name: "pdf" });
    await call("report_usage", { skill_path: "pdf", useful: false, comment: "No OCR." });
    await eventually(() => e.events().length >= 2);
    const [loaded, feedback] = e.events();
    expect(loaded).toMatchObject({
      type: "skill_loaded",
      server_id: "dev-alice",
      data: { tool: "skill", skill: "pdf" },
    });
    expect(new Date(String(loaded?.timestamp)).toISOString()).toBe(String(loaded?.timestamp));
    expect(feedback).toMatchObject({
      type: "skill_feedback",
      server_id: "dev-alice",
      data: { skill_path: "pdf", useful: false, comment: "No OCR." },
    });
  });

  test("endpoint down: events go to analytics-buffer.jsonl; the next success sends them and clears it", async () => {
    const e = endpoint();
    e.mode = 503;
    const { call, hub, logger } = await session(
      { ANALYTICS_ENDPOINT: e.url, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "0.1" },
      {},
      ["a", "b", "c"],
    );
    const buffer = join(hub.config.home, "analytics-buffer.jsonl");
    await call("report_usage", { skill_path: "a", useful: true });
    await eventually(() => existsSync(buffer) && readJsonlFile(buffer).events.length === 1);
    await call("report_usage", { skill_path: "b", useful: true });
    await eventually(() => readJsonlFile(buffer).events.length === 2);
    // The endpoint's secret query string never reaches the log.
    expect(
      logger.lines.some(
        (l) => l.includes("WARN") && l.includes("http://127.0.0.1") && l.includes("analytics-buffer.jsonl"),
      ),
    ).toBe(true);
    expect(logger.lines.join("\n")).not.toContain("secret-in-query");
    e.mode = 200;
    await call("report_usage", { skill_path: "c", useful: true });
    await eventually(() => e.events().length === 3);
    expect(e.events().map((x) => x.data.skill_path)).toEqual(["a", "b", "c"]);
    await eventually(() => !existsSync(buffer));
  });

  test("shutdown flushes what is left, through the stdio shutdown path", async () => {
    const e = endpoint();
    const { hub } = testHub({
      env: { ANALYTICS_ENDPOINT: e.url, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600", USER: "bob" },
      flags: { "skills-dir": [skills()] },
      // The server gives the final flush 2 s; a loaded machine may need more to reach even a local endpoint.
      hub: { analytics: { closeGraceMs: HANG_MS } },
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let output = "";
    stdout.on("data", (chunk) => (output += chunk.toString()));
    const served = serveStdio(hub, { stdin, stdout, signals: [] });
    const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "report_usage", arguments: { skill_path: "pdf", useful: true } },
    });
    await eventually(() => output.includes('"id":2'));
    expect(e.requests).toBe(0);
    stdin.end();
    expect(await served).toBe("stdin ended");
    expect(e.events()).toMatchObject([
      { type: "skill_feedback", server_id: "dev-bob", data: { skill_path: "pdf", useful: true } },
    ]);
  });

  test("a hung endpoint never blocks a tool call, flushes never overlap, and shutdown keeps the rest in the buffer", async () => {
    const e = endpoint();
    e.mode = "hang";
    const names = ["first", ...[0, 1, 2, 3, 4].map((i) => `next-${i}`)];
    const { call, hub } = await session(
      { ANALYTICS_ENDPOINT: e.url, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "0.05" },
      { hub: { analytics: { timeoutMs: 60_000 } } },
      names,
    );
    await call("report_usage", { skill_path: "first", useful: true });
    await eventually(() => e.requests === 1);
    // The endpoint never answers (and the publisher would wait 60 s): calls that return at all were not
    // held by the flush in flight. The cap only turns a hang into a failure.
    for (let i = 0; i < 5; i++)
      await within(call("report_usage", { skill_path: `next-${i}`, useful: true }), "report_usage");
    await Bun.sleep(200);
    expect(e.requests).toBe(1);
    // close(300) gives up on the hung flush after 300 ms instead of the publisher's 60 s.
    await within(Promise.resolve(hub.analytics.publisher?.close(300)), "shutdown");
    const buffered = readJsonlFile(join(hub.config.home, "analytics-buffer.jsonl")).events.map(
      (x) => x.data.skill_path,
    );
    expect(buffered).toEqual(["next-0", "next-1", "next-2", "next-3", "next-4"]);
  });

  test("file mode writes JSONL locally; analytics is off unless configured", async () => {
    const file = join(tempDir(), "usage", "events.jsonl");
    const { call, hub } = await session({ SKILLHUB_ANALYTICS_FILE: file, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "0.05" });
    await call("skill", { name: "pdf" });
    await eventually(() => readJsonlFile(file).events.length === 1);
    expect(readFileSync(file, "utf8")).toMatch(
      /^\{"type":"skill_loaded","timestamp":"[^"]+","server_id":"dev-alice","data":\{/,
    );
    expect(existsSync(join(hub.config.home, "analytics-buffer.jsonl"))).toBe(false);
    const off = await session({});
    expect(off.hub.analytics.publisher).toBeUndefined();
    expect((await off.client.listTools()).tools.map((t) => t.name)).not.toContain("report_usage");
    await off.call("skill", { name: "pdf" });
    expect(off.hub.analytics.tracker.pending).toBe(0);
  });

  test("a session's close returns once its last events are in the analytics file: nothing is written after it", async () => {
    const file = join(tempDir(), "analytics.jsonl");
    // No timed flush: the event reaches the file through the final flush only.
    const s = await session({ SKILLHUB_ANALYTICS_FILE: file, SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600" });
    await s.call("skill", { name: "pdf" });
    expect(existsSync(file)).toBe(false);
    await s.close();
    expect(readJsonlFile(file).events.map((e) => e.type)).toEqual(["skill_loaded"]);
  });
});

describe("tracker queue", () => {
  test("the queue is capped: further events are dropped, counted and reported once", () => {
    const logger = createMemoryLogger();
    const tracker = new Tracker({
      enabled: true,
      maxQueue: 3,
      serverId: "dev-x",
      logger,
      now: () => Date.UTC(2026, 1, 18, 14, 30),
    });
    const outcomes = [0, 1, 2, 3, 4].map((i) => tracker.track("search", { query: `q${i}`, results: 1 }));
    expect(outcomes).toEqual(["queued", "queued", "queued", "queue_full", "queue_full"]);
    expect(tracker.pending).toBe(3);
    expect(tracker.dropped).toBe(2);
    expect(logger.lines.filter((l) => l.includes("queue is full"))).toHaveLength(1);
    const events = tracker.drain();
    expect(events.map((e) => e.data.query)).toEqual(["q0", "q1", "q2"]);
    expect(events[0]).toEqual({
      type: "search",
      timestamp: "2026-02-18T14:30:00.000Z",
      server_id: "dev-x",
      data: { query: "q0", results: 1 },
    });
    expect(logger.lines.some((l) => l.includes("2 events were dropped"))).toBe(true);
    expect(tracker.track("search", { query: "again", results: 0 })).toBe("queued");
    expect(tracker.pending).toBe(1);
  });

  test("with analytics off nothing is queued, and track says so", () => {
    const tracker = new Tracker({ enabled: false, maxQueue: 1, serverId: "dev-x", logger: createMemoryLogger() });
    expect(tracker.track("skill_feedback", { skill_path: "pdf", useful: true, comment: null })).toBe("off");
    expect(tracker.track("skill_feedback", { skill_path: "pdf", useful: true, comment: null })).toBe("off");
    expect([tracker.pending, tracker.dropped]).toEqual([0, 0]);
  });
});

describe("the local analytics file is bounded", () => {
  test("it stops growing at its ceiling: new events are dropped with one warning, until it is rotated", async () => {
    const dir = tempDir("skillhub-an-");
    const file = join(dir, "events.jsonl");
    const logger = createMemoryLogger();
    const tracker = new Tracker({ enabled: true, maxQueue: 100, serverId: "dev-test", logger });
    const publisher = new Publisher({
      tracker,
      logger,
      file,
      maxFileBytes: 1000,
      bufferFile: join(dir, "buffer.jsonl"),
      flushMs: 0,
    });
    // About 520 bytes each, as a client's report_usage with a long comment.
    const feedback = () =>
      tracker.track("skill_feedback", { skill_path: "pdf", useful: false, comment: "x".repeat(400) });
    for (let i = 0; i < 10; i++) {
      feedback();
      await publisher.flush();
    }
    // Written while under the ceiling: at 0 and at ~520 bytes; at ~1,040 it stopped.
    expect(readJsonlFile(file).events.length).toBe(2);
    const warnings = logger.lines.filter((l) => l.includes("WARN") && l.includes("the most SkillHub writes to it"));
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain("Rotate it (move it aside)");
    renameSync(file, `${file}.1`);
    feedback();
    await publisher.flush();
    expect(readJsonlFile(file).events.length).toBe(1);
  });
});
