import { afterAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { AnswerBudgetOptions } from "../../src/server/answer-budget.ts";
import { type HttpServeOptions, type RunningHttpServer, startHttpServer } from "../../src/transports/http.ts";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from "../../src/transports/http-handler.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { handTimers } from "../helpers/hand-timers.ts";
import { countedSocket, fetchFrom, initialize, mcpRequest, messages } from "../helpers/http.ts";
import { testHub } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";
import { eventually } from "../helpers/wait.ts";

/** The bytes of answers the HTTP server holds at once are bounded, in all and per address (answer-budget.ts). */

afterAll(cleanupTemp);
const closers = closeAfterEach({ ignoringErrors: true });

/** Small limits, so that files of some KiB stand for files of some MiB. */
const LIMITS: AnswerBudgetOptions = { maxBytes: 100_000, maxPerPeer: 60_000 };
const URL_ = "http://127.0.0.1:8000/mcp";
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** picture.png's size: 26,298 bytes as base64 in JSON, 26 KiB; its answer as an image, with its note, is more. */
const PICTURE_BYTES = 19_722;
const TEXT = "skill://bulk/text.txt";

/**
 * A skill with a 40 KB text, 12 KB and 300 KB of control characters, a 15 KB and a 25 KB text, a 30 KB
 * binary file, a 20 KB zip and a 19.7 KB PNG; a skill the skills extension does not publish (its name breaks
 * the rules), with a 30 KB binary file; a tree node (never published) whose own file is 25 KB, not UTF-8; a
 * node with three 8 KB text assets, which get_skill inlines; a skill whose instructions are 22 KB.
 */
function skills(): string {
  const dir = tempDir("skillhub-answers-");
  writeSkill(dir, "bulk", { description: "Large files" });
  write(join(dir, "bulk", "text.txt"), "a".repeat(40_000));
  write(join(dir, "bulk", "controls.txt"), "\x01".repeat(12_000));
  write(join(dir, "bulk", "controls-long.txt"), "\x01".repeat(300_000));
  write(join(dir, "bulk", "picture.png"), Buffer.concat([PNG_SIGNATURE, Buffer.alloc(PICTURE_BYTES - 8, 0x42)]));
  write(join(dir, "bulk", "small.txt"), "b".repeat(15_000));
  write(join(dir, "bulk", "medium.txt"), "c".repeat(25_000));
  // Not UTF-8: served as base64 (a file of NUL bytes would be text, six bytes per byte).
  write(join(dir, "bulk", "blob.bin"), new Uint8Array(30_000).fill(0xff));
  // Binary by its extension: get_asset sends it as base64, whatever its bytes.
  write(join(dir, "bulk", "blob.zip"), new Uint8Array(20_000).fill(0xff));
  writeSkill(dir, "Loose_Bulk", { description: "A name the skills extension does not publish" });
  write(join(dir, "Loose_Bulk", "loose.bin"), new Uint8Array(30_000).fill(0xff));
  const node = Buffer.from('---\nkeywords: [notes]\ndescription: "Notes not in UTF-8"\n---\n\n');
  write(join(dir, "notes", "latin.md"), Buffer.concat([node, Buffer.alloc(25_000, 0xff)]));
  writeNode(dir, "notes/guide.md", {
    keywords: ["guide"],
    extra: ["assets:", ...["a", "b", "c"].flatMap((n) => [`  - file: ${n}.txt`, "    type: reference"])].join("\n"),
  });
  for (const name of ["a", "b", "c"]) write(join(dir, "notes", "guide", `${name}.txt`), name.repeat(8_000));
  writeSkill(dir, "long-read", { description: "Long instructions", body: `# Long\n\n${"d".repeat(22_000)}\n` });
  return dir;
}

/** A handler over those files, with `LIMITS` and `options` (stateless, the idle limit's timer), and its log. */
async function world(options: Partial<HttpHandlerOptions> = {}) {
  const { hub, logger } = testHub({
    flags: { "skills-dir": [skills()] },
    env: { SKILLHUB_TOOLS: "all" },
    hub: { acceptRoots: false },
  });
  const handler = createHttpHandler(hub, { host: "127.0.0.1", version: "test", answers: LIMITS, ...options });
  void hub.start();
  await hub.ready;
  closers.push(async () => {
    await handler.close();
    hub.close();
  });
  return { handler, logger };
}

/** An SDK client of `url` on `revision`. */
async function client(url: string, revision: string, fetch?: typeof globalThis.fetch): Promise<Client> {
  const c = new Client(
    { name: `answers-${revision}`, version: "1.0.0" },
    revision >= "2026-"
      ? { versionNegotiation: { mode: { pin: revision as "2026-07-28" } } }
      : { supportedProtocolVersions: [revision] },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  closers.unshift(() => c.close());
  return c;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: Error & { code?: number }) => e,
  );

/** A 2025 session opened by `peer` with raw requests: post to it, as a client reading its answers when it likes. */
async function rawSession(handler: HttpHandler, peer: string, protocolVersion = "2025-11-25") {
  const opened = await handler.handle(mcpRequest("POST", "/mcp", { body: initialize(protocolVersion) }), { peer });
  const session = opened.headers.get("mcp-session-id") ?? "";
  await opened.text();
  const headers = { "mcp-protocol-version": protocolVersion };
  const post = (body: unknown) => handler.handle(mcpRequest("POST", "/mcp", { session, body, headers }), { peer });
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" })).text();
  return post;
}

const read = (id: number, uri = TEXT) => ({ jsonrpc: "2.0", id, method: "resources/read", params: { uri } });

describe("the answers a server holds are bounded", () => {
  for (const revision of ["2025-11-25", "2026-07-28"])
    test(`${revision}: a file's answer counts as sent, a control character as six bytes; one past an address's share is refused, saying what to do`, async () => {
      const { handler } = await world();
      const c = await client(URL_, revision, fetchFrom(handler, "10.0.0.1"));
      const text = await c.readResource({ uri: TEXT });
      expect(JSON.stringify(text.contents)).toContain("a".repeat(1000));
      // 12 KB of control characters: 72 KB as JSON, more than the 60 KB one address may be sent at once.
      const refused = await failure(c.readResource({ uri: "skill://bulk/controls.txt" }));
      expect(refused?.code).toBe(-32602);
      expect(refused?.message).toContain(
        "skill://bulk/controls.txt was not sent: the answer would take 71 KiB, more than the 59 KiB this server sends one client at once. Instead, read the file in parts with read_skill_file (offset and length; it takes the file's skill:// URI too).",
      );
      const blob = await c.readResource({ uri: "skill://bulk/blob.bin" });
      expect(blob.contents[0]).toMatchObject({ blob: Buffer.alloc(30_000, 0xff).toString("base64") });
      await eventually(() => handler.answers.held === 0);
    });

  test("an answer counts until its response is read: meanwhile its address's next read is refused, another address's is not", async () => {
    const { handler } = await world();
    const post = await rawSession(handler, "10.0.0.1");
    // A client that asks, then reads nothing: its answer is built and held.
    const held = await post(read(2));
    await eventually(() => handler.answers.held > 40_000);
    const same = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.1"));
    const refused = await failure(same.readResource({ uri: TEXT }));
    expect(refused?.code).toBe(-32603);
    expect(refused?.message).toContain(
      "skill://bulk/text.txt was not sent: the server is sending 40 KiB of answers now",
    );
    expect(refused?.message).toContain(
      "Retry in a moment, once the answers being sent have been read, or read the file",
    );
    // A tool's answer counts the same way: get_asset holds the file twice (its content and its JSON text).
    const asset = await same.callTool({ name: "get_asset", arguments: { skill_path: "bulk", file: "small.txt" } });
    expect(asset.isError).toBe(true);
    expect(asset.structuredContent).toMatchObject({ error: { code: "SERVER_BUSY" } });
    expect(JSON.stringify(asset.content)).toContain("The answer of get_asset was not sent: the server is sending");
    const other = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.2"));
    expect(JSON.stringify((await other.readResource({ uri: TEXT })).contents)).toContain("aaaa");
    // Read at last: its bytes are free again.
    expect(JSON.stringify(await messages(held))).toContain("aaaa");
    await eventually(() => handler.answers.held === 0);
    expect(JSON.stringify((await same.readResource({ uri: TEXT })).contents)).toContain("aaaa");
    const served = await same.callTool({ name: "get_asset", arguments: { skill_path: "bulk", file: "small.txt" } });
    expect(served.structuredContent).toMatchObject({ content: "b".repeat(15_000) });
  });

  test("a file's size on disk counts before it is read: a read that cannot fit is refused before its answer is built", async () => {
    const { handler } = await world();
    const post = await rawSession(handler, "10.0.0.1");
    const unread = await post(read(2));
    await eventually(() => handler.answers.held > 40_000);
    // blob.bin is 30,000 bytes, 40,002 as base64: refused for its size on disk, its answer was never built.
    const [refused] = await messages(await post(read(3, "skill://bulk/blob.bin")));
    expect(refused?.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining(
        "skill://bulk/blob.bin was not sent: the server is sending 40 KiB of answers now (40 KiB of them to this client's address) and this one, 30 KiB, would pass its limit",
      ),
    });
    await unread.text();
    await eventually(() => handler.answers.held === 0);
    const [blob] = await messages(await post(read(4, "skill://bulk/blob.bin")));
    expect(blob?.result.contents[0].blob).toBe(Buffer.alloc(30_000, 0xff).toString("base64"));
    await eventually(() => handler.answers.held === 0);
  });

  test("a file of a skill the extension does not publish, a tree node's own too, counts its size on disk before it is read, as a published one", async () => {
    const { handler } = await world();
    const post = await rawSession(handler, "10.0.0.1");
    const unread = await post(read(2));
    await eventually(() => handler.answers.held > 40_000);
    // loose.bin is 30,000 bytes, 40,002 as base64: refused for its size on disk, its answer was never built.
    const [refused] = await messages(await post(read(3, "skill://Loose_Bulk/loose.bin")));
    expect(refused?.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining(
        "skill://Loose_Bulk/loose.bin was not sent: the server is sending 40 KiB of answers now (40 KiB of them to this client's address) and this one, 30 KiB, would pass its limit",
      ),
    });
    // A tree node's own file: 25 KiB on disk, 33 KiB as base64.
    const [node] = await messages(await post(read(5, "skill://notes/latin.md")));
    expect(node?.error.message).toContain(
      "skill://notes/latin.md was not sent: the server is sending 40 KiB of answers now (40 KiB of them to this client's address) and this one, 25 KiB, would pass its limit",
    );
    await unread.text();
    await eventually(() => handler.answers.held === 0);
    const [loose] = await messages(await post(read(4, "skill://Loose_Bulk/loose.bin")));
    expect(loose?.result.contents[0].blob).toBe(Buffer.alloc(30_000, 0xff).toString("base64"));
    await eventually(() => handler.answers.held === 0);
    const [latin] = await messages(await post(read(6, "skill://notes/latin.md")));
    expect(latin?.result.contents[0].blob.length).toBeGreaterThan(33_000);
    await eventually(() => handler.answers.held === 0);
  });

  test("get_asset counts its file's size on disk before reading it, as base64 for a binary file: one that cannot fit is refused unread", async () => {
    const { handler } = await world();
    const post = await rawSession(handler, "10.0.0.1");
    const unread = await post(read(2));
    await eventually(() => handler.answers.held > 40_000);
    const c = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.1"));
    const asset = (file: string) => c.callTool({ name: "get_asset", arguments: { skill_path: "bulk", file } });
    // Each answer would be about twice its file (content and JSON text); each is refused for what it takes before
    // it is read: medium.txt its 25,000 bytes, blob.zip its 26,670 as base64.
    for (const [file, bytes] of [
      ["medium.txt", "25 KiB"],
      ["blob.zip", "27 KiB"],
    ]) {
      const refused = await asset(file as string);
      const sentence = `The answer of get_asset was not sent: the server is sending 40 KiB of answers now (40 KiB of them to this client's address) and this one, ${bytes}, would pass its limit`;
      expect({ file, refused: refused.structuredContent }).toEqual({
        file,
        refused: { error: { code: "SERVER_BUSY", message: expect.stringContaining(sentence) } },
      });
      expect(JSON.parse((refused.content as { text: string }[])[0]?.text ?? "")).toEqual(refused.structuredContent);
      expect(refused.isError).toBe(true);
    }
    await unread.text();
    await eventually(() => handler.answers.held === 0);
    expect((await asset("blob.zip")).structuredContent).toMatchObject({
      content_base64: Buffer.alloc(20_000, 0xff).toString("base64"),
    });
    expect((await asset("medium.txt")).structuredContent).toMatchObject({ content: "c".repeat(25_000) });
    await eventually(() => handler.answers.held === 0);
  });

  test("read_skill_file counts a whole image's base64 from its size on disk before reading it: one that cannot fit is refused unread", async () => {
    const { handler } = await world();
    const post = await rawSession(handler, "10.0.0.1");
    const unread = await post(read(2));
    await eventually(() => handler.answers.held > 40_000);
    const c = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.1"));
    const picture = () =>
      c.callTool({ name: "read_skill_file", arguments: { skill_name: "bulk", file_path: "picture.png" } });
    // Refused for the 26 KiB its bytes take as base64, counted before they are read: once read and built, the
    // answer (the image and a note about it) takes more.
    const refused = await picture();
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: {
        code: "SERVER_BUSY",
        message: expect.stringContaining(
          "The answer of read_skill_file was not sent: the server is sending 40 KiB of answers now (40 KiB of them to this client's address) and this one, 26 KiB, would pass its limit",
        ),
      },
    });
    await unread.text();
    await eventually(() => handler.answers.held === 0);
    const served = await picture();
    const base64 = Buffer.concat([PNG_SIGNATURE, Buffer.alloc(PICTURE_BYTES - 8, 0x42)]).toString("base64");
    expect(served.content).toContainEqual({ type: "image", data: base64, mimeType: "image/png" });
    expect(JSON.stringify(served).length).toBeGreaterThan(26 * 1024);
    await eventually(() => handler.answers.held === 0);
  });

  test("get_skill counts each text asset it inlines before reading it: the one that cannot fit stops the answer there", async () => {
    const { handler } = await world();
    const post = await rawSession(handler, "10.0.0.1");
    const unread = await post(read(2));
    await eventually(() => handler.answers.held > 40_000);
    const c = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.1"));
    const guide = () => c.callTool({ name: "get_skill", arguments: { context: "notes/guide" } });
    // The answer would hold each 8 KB asset twice (content and JSON text): refused at its third asset, before
    // reading it, for the 24 KB of the three.
    const refused = await guide();
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: {
        code: "SERVER_BUSY",
        message: expect.stringContaining(
          "The answer of get_skill was not sent: the server is sending 40 KiB of answers now (40 KiB of them to this client's address) and this one, 24 KiB, would pass its limit",
        ),
      },
    });
    expect(JSON.parse((refused.content as { text: string }[])[0]?.text ?? "")).toEqual(refused.structuredContent);
    await unread.text();
    await eventually(() => handler.answers.held === 0);
    const served = (await guide()).structuredContent as { assets: { file: string; content?: string }[] };
    expect(served.assets.map((a) => [a.file, a.content])).toEqual(
      ["a", "b", "c"].map((n) => [`${n}.txt`, n.repeat(8_000)]),
    );
    await eventually(() => handler.answers.held === 0);
  });

  test("get_asset counts a text's JSON escapes as it reads it: a file of control characters is refused at the first chunk its answer cannot fit after", async () => {
    const { handler } = await world({ answers: { maxBytes: 1_000_000, maxPerPeer: 500_000 } });
    const c = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.1"));
    const asset = (file: string) => c.callTool({ name: "get_asset", arguments: { skill_path: "bulk", file } });
    // 300,000 bytes on disk, 1.8 MB as JSON: refused too large after its first 64 KiB, when the file's size and
    // that chunk's escapes (five more bytes for each of its 65,536) already pass the address's share.
    const refused = await asset("controls-long.txt");
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      error: {
        code: "FILE_TOO_LARGE",
        message:
          "The answer of get_asset was not sent: the answer would take 613 KiB, more than the 489 KiB this server sends one client at once. Instead, read the file in parts with read_skill_file (offset and length; it takes the file's skill:// URI too).",
      },
    });
    expect(handler.answers.held).toBe(0);
    // A text that fits is served whole, its escapes counted as it was read and given back.
    const small = await asset("controls.txt");
    expect(small.structuredContent).toMatchObject({ content: "\x01".repeat(12_000) });
    await eventually(() => handler.answers.held === 0);
  });

  test("a prompt's answer counts until its response is read: meanwhile its address's next one is refused", async () => {
    const { handler } = await world({ stateless: true });
    const headers = { "mcp-protocol-version": "2025-11-25" };
    const post = (body: unknown) => handler.handle(mcpRequest("POST", "/mcp", { body, headers }), { peer: "10.0.0.1" });
    const prompt = { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "long-read" } };
    // A stateless JSON answer is built whole before its response: it counts from then until it is read.
    const held = await post(prompt);
    expect(handler.answers.held).toBeGreaterThan(22_000);
    // The 40 KB read would pass the address's share beside the prompt's unread answer.
    const [refusedRead] = await messages(await post(read(3)));
    expect(refusedRead?.error).toMatchObject({
      code: -32603,
      message: expect.stringContaining("the server is sending 23 KiB of answers now"),
    });
    expect(JSON.stringify(await messages(held))).toContain("dddd");
    await eventually(() => handler.answers.held === 0);
    // And the other way round: a prompt past the share beside an unread answer is refused, saying what to do.
    const unread = await post(read(4));
    expect(handler.answers.held).toBeGreaterThan(40_000);
    const c = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.1"));
    const refused = await failure(c.getPrompt({ name: "long-read" }));
    expect(refused?.code).toBe(-32603);
    expect(refused?.message).toContain(
      "Prompt 'long-read' was not sent: the server is sending 40 KiB of answers now (40 KiB of them to this client's address) and this one, 23 KiB, would pass its limit (98 KiB in all, 59 KiB to one address). Retry in a moment, once the answers being sent have been read, or ask for less.",
    );
    const other = await client(URL_, "2025-11-25", fetchFrom(handler, "10.0.0.2"));
    expect(JSON.stringify((await other.getPrompt({ name: "long-read" })).messages)).toContain("dddd");
    await unread.text();
    await eventually(() => handler.answers.held === 0);
    expect(JSON.stringify((await c.getPrompt({ name: "long-read" })).messages)).toContain("dddd");
    await eventually(() => handler.answers.held === 0);
  });

  test("over a socket, every answer read gives its bytes back: reads near the share, one after another, all succeed", async () => {
    const { running } = await socketWorld();
    for (const revision of ["2025-11-25", "2026-07-28"]) {
      const c = await client(running.url, revision);
      for (let i = 0; i < 10; i++) expect((await c.readResource({ uri: TEXT })).contents).toHaveLength(1);
    }
    await eventually(() => running.handler.answers.held === 0);
  });
});

/** A loopback server over skills(), with `LIMITS` unless `options` says otherwise, and its log. */
async function socketWorld(options: HttpServeOptions = {}, dir = skills()) {
  const { hub, logger } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
  const running = startHttpServer(hub, { port: 0, answers: LIMITS, ...options });
  void hub.start();
  await hub.ready;
  closers.push(async () => {
    await running.stop();
    hub.close();
  });
  return { running, hub, logger, dir };
}

describe("a client that reads slowly", () => {
  test("over a socket, holds its answer's bytes until it has read them: meanwhile its address's next read is refused", async () => {
    const { running } = await socketWorld(LARGE_LIMITS, largeSkills());
    const slow = await largeRead(running);
    await eventually(() => running.handler.answers.held > 16_000_000);
    const same = await client(running.url, "2025-11-25");
    const refused = await failure(same.readResource({ uri: "skill://bulk/large.bin" }));
    expect(refused?.message).toContain(
      "skill://bulk/large.bin was not sent: the server is sending 15.3 MiB of answers now",
    );
    slow.read();
    await eventually(() => slow.received() > 16_000_000 && running.handler.answers.held === 0);
    expect((await same.readResource({ uri: "skill://bulk/large.bin" })).contents).toHaveLength(1);
  });

  test("over a socket, a client that keeps its answer under 64 KiB/s once the server has waited 30 s for it loses it: the bytes are free again for its address", async () => {
    const hand = handTimers();
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const { running, logger } = await socketWorld(
      { ...LARGE_LIMITS, readerIdle: { timer: hand.timer }, now: () => clock },
      largeSkills(),
    );
    const slow = await largeRead(running);
    const same = await client(running.url, "2025-11-25");
    // The server sends what the connection's buffers take, then waits for its client to take more.
    await eventually(() => running.handler.answers.held > 16_000_000 && hand.armed.size > 0);
    // Ten minutes of waiting (counted: the server waits for the client now) for a client that has taken the few
    // MB its buffers hold: far under 64 KiB/s.
    clock += 600_000;
    expect((await failure(same.readResource({ uri: "skill://bulk/large.bin" })))?.message).toContain("was not sent");
    slow.read();
    await slow.closed;
    expect(slow.received()).toBeLessThan(16_000_000);
    await eventually(() => running.handler.answers.held === 0);
    expect(logger.lines.filter((line) => line.includes("stopped"))).toEqual([
      expect.stringMatching(
        /http: an answer to POST \/mcp from 127\.0\.0\.1 stopped: its client read too slowly: \d+ KiB in 600 s, under the 64 KiB\/s it must average after 30 s$/,
      ),
    ]);
    expect((await same.readResource({ uri: "skill://bulk/large.bin" })).contents).toHaveLength(1);
  });
});

describe("a client that takes nothing for the idle limit", () => {
  const STOPPED = "stopped: its client read nothing for 120 s, or read too slowly";

  test("loses its answer: its bytes are free again, the log says so once, and the session goes on", async () => {
    const hand = handTimers();
    const { handler, logger } = await world({ readerIdle: { timer: hand.timer } });
    const post = await rawSession(handler, "10.0.0.1");
    const unread = await post(read(2));
    await eventually(() => handler.answers.held > 40_000);
    expect(hand.armed.size).toBe(1);
    hand.fireAll();
    await eventually(() => handler.answers.held === 0);
    expect(
      await unread.text().then(
        () => "read",
        () => "failed",
      ),
    ).toBe("failed");
    expect(logger.lines.filter((line) => line.includes("stopped"))).toEqual([
      expect.stringContaining(`http: an answer to POST /mcp from 10.0.0.1 ${STOPPED}`),
    ]);
    expect(handler.sessions.list()[0]).toMatchObject({ openStreams: 0, openCalls: 0 });
    // A client that reads is never stopped: the answer it takes to its end arms nothing that stays.
    expect(JSON.stringify(await messages(await post(read(3))))).toContain("aaaa");
    expect(hand.armed.size).toBe(0);
  });

  test("an answer lifts its socket's silence limit until it has been read, however slowly", async () => {
    const { handler } = await world({ stateless: true });
    const { socket, hooks } = countedSocket();
    const one = await handler.handle(mcpRequest("POST", "/mcp", { body: read(2) }), hooks);
    expect(socket).toEqual({ lifted: 1, restored: 0 });
    expect(JSON.stringify(await messages(one))).toContain("aaaa");
    expect(socket).toEqual({ lifted: 1, restored: 1 });
    // An answer holding nothing of the budget is written at once: its limit is back at once.
    await handler.handle(mcpRequest("POST", "/mcp", { body: { jsonrpc: "2.0", id: 3, method: "tools/list" } }), hooks);
    expect(socket).toEqual({ lifted: 2, restored: 2 });
  });

  test("over a socket, loses its answer: the bytes are free again, and the client gets it cut short", async () => {
    const hand = handTimers();
    const { running, logger } = await socketWorld(
      { ...LARGE_LIMITS, readerIdle: { timer: hand.timer } },
      largeSkills(),
    );
    const slow = await largeRead(running);
    // The server sends what the connection's buffers take, then waits for its client to take more.
    await eventually(() => running.handler.answers.held > 16_000_000 && hand.armed.size > 0);
    hand.fireAll();
    await eventually(() => running.handler.answers.held === 0);
    slow.read();
    await slow.closed;
    expect(slow.received()).toBeLessThan(16_000_000);
    expect(logger.lines.filter((line) => line.includes("stopped"))).toEqual([
      expect.stringContaining(`http: an answer to POST /mcp from 127.0.0.1 ${STOPPED}`),
    ]);
    const c = await client(running.url, "2025-11-25");
    expect((await c.readResource({ uri: "skill://bulk/large.bin" })).contents).toHaveLength(1);
  });

  test("over a socket, a listener that reads is never stopped, however long no change comes", async () => {
    const hand = handTimers();
    const { running, hub, dir, logger } = await socketWorld({ readerIdle: { timer: hand.timer } });
    const changes: string[] = [];
    const listeners = [];
    for (const revision of ["2025-11-25", "2026-07-28"]) {
      const c = await client(running.url, revision);
      c.setNotificationHandler("notifications/tools/list_changed", async () => void changes.push(revision));
      // A change is announced to a client that has listed what changed.
      await c.listTools();
      if (revision >= "2026-") await c.listen({ toolsListChanged: true });
      listeners.push(c);
    }
    // The 2025 client's GET stream, the 2026 client's subscriptions/listen stream: open, waiting for an event.
    await eventually(
      () => running.handler.sessions.list().some((s) => s.openStreams > 0) && running.handler.listens.size > 0,
    );
    // While no event comes, no limit counts: nothing to fire.
    await eventually(() => hand.armed.size === 0);
    for (const name of ["first-new", "second-new"]) {
      writeSkill(dir, name, { description: "Added while listening" });
      await hub.refresher.rescan("test");
      await eventually(() => changes.length >= 2);
      expect(changes.sort()).toEqual(["2025-11-25", "2026-07-28"]);
      changes.length = 0;
      await eventually(() => hand.armed.size === 0);
      hand.fireAll();
    }
    expect(logger.lines.filter((line) => line.includes("stopped"))).toEqual([]);
    for (const c of listeners) expect((await c.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe("JSON-RPC batches", () => {
  test("are refused on a session of 2025-06-18 or later, which has none; the session goes on", async () => {
    const { handler } = await world();
    for (const revision of ["2025-06-18", "2025-11-25"]) {
      const post = await rawSession(handler, "10.0.0.1", revision);
      const refused = await post([read(2), read(3)]);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: `Invalid Request: a JSON-RPC batch (an array of messages) is not part of MCP ${revision}, the revision this client speaks; batches ended with 2025-03-26. Send each message in a request of its own.`,
        },
      });
      expect(JSON.stringify(await messages(await post(read(4))))).toContain("aaaa");
    }
    expect(handler.answers.held).toBe(0);
  });

  test("of a 2025-03-26 session get the reads the budget holds, and an error for each other", async () => {
    const { handler } = await world();
    const post = await rawSession(handler, "10.0.0.1", "2025-03-26");
    const answers = await messages(await post([2, 3, 4, 5, 6].map((id) => read(id))));
    // The batch's answers are one response: the first read's bytes count until it is read.
    expect(answers.filter((a) => a.result)).toHaveLength(1);
    expect(answers.filter((a) => a.error?.code === -32603)).toHaveLength(4);
    expect(answers.find((a) => a.error)?.error.message).toContain("was not sent: the server is sending 40 KiB");
    await eventually(() => handler.answers.held === 0);
  });

  test("stateless: refused under the revision a request names, 2025-06-18 or later; its JSON answer counts until read", async () => {
    const { handler } = await world({ stateless: true });
    const headers = (revision: string) => ({ "mcp-protocol-version": revision });
    const batch = [read(2), read(3)];
    const refused = await handler.handle(mcpRequest("POST", "/mcp", { body: batch, headers: headers("2025-11-25") }));
    expect(refused.status).toBe(400);
    const one = await handler.handle(mcpRequest("POST", "/mcp", { body: read(4), headers: headers("2025-11-25") }));
    expect(handler.answers.held).toBeGreaterThan(40_000);
    expect(JSON.stringify(await messages(one))).toContain("aaaa");
    await eventually(() => handler.answers.held === 0);
    // Without the header: 2025-03-26, which has batches.
    const old = await messages(await handler.handle(mcpRequest("POST", "/mcp", { body: batch })));
    expect(old.map((a) => a.id).sort()).toEqual([2, 3]);
  });
});

/** Limits that let one client be sent the 16 MB answer of largeSkills' large.bin. */
const LARGE_LIMITS: HttpServeOptions = { answers: { maxBytes: 64 << 20, maxPerPeer: 24 << 20 } };

/** skills() with a 12 MB large.bin, 16 MB as base64: more than this machine's sockets buffer. */
function largeSkills(): string {
  const dir = skills();
  write(join(dir, "bulk", "large.bin"), new Uint8Array(12_000_000).fill(0xff));
  return dir;
}

/** A session's read of large.bin over a raw connection that reads nothing of its answer until told to. */
async function largeRead(running: RunningHttpServer) {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  const opened = await fetch(running.url, { method: "POST", headers, body: JSON.stringify(initialize()) });
  const session = opened.headers.get("mcp-session-id") ?? "";
  await opened.text();
  const body = JSON.stringify(read(2, "skill://bulk/large.bin"));
  return rawClient(
    running.port,
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: ${session}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** A connection to `port` on loopback that sends `text`, then reads nothing until `read` is called. */
function rawClient(port: number, text: string) {
  let received = 0;
  const socket = connect(port, "127.0.0.1", () => socket.write(text));
  socket.pause();
  socket.on("data", (chunk: Buffer) => {
    received += chunk.length;
  });
  socket.on("error", () => undefined);
  closers.push(async () => void socket.destroy());
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  return {
    read: () => socket.resume(),
    /** Bytes received so far. */
    received: () => received,
    /** Settles when the connection has closed. */
    closed,
  };
}
