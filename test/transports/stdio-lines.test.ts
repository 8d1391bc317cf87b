import { afterAll, describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { serveStdio } from "../../src/transports/stdio.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";
import { HANG_MS } from "../helpers/wait.ts";

afterAll(cleanupTemp);

/** serveStdio over in-process pipes: what a client writes, and every line the server answers. */
function pipes(maxLineBytes?: number) {
  const dir = tempDir("skillhub-stdio-");
  writeSkill(dir, "git-helper", { description: "Git workflow helper" });
  const { hub } = testHub({ flags: { "skills-dir": [dir] } });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers: Array<Record<string, any>> = [];
  let buffer = "";
  stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      answers.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  const done = serveStdio(hub, { stdin, stdout, signals: [], maxLineBytes });
  const send = (line: string) => stdin.write(`${line}\n`);
  const waitFor = async (id: number | string | null, count = 1) => {
    const end = Date.now() + HANG_MS;
    while (answers.filter((a) => a.id === id).length < count) {
      if (Date.now() > end) throw new Error(`no answer with id ${id}: ${JSON.stringify(answers)}`);
      await Bun.sleep(10);
    }
    return answers.filter((a) => a.id === id);
  };
  return { stdin, send, answers, waitFor, done };
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
});

describe("stdio survives any input", () => {
  test("a malformed JSON line gets -32700 with id null, and the next message is served", async () => {
    const p = pipes();
    p.send(initialize);
    await p.waitFor(1);
    p.send("{ this is not json");
    const [parseError] = await p.waitFor(null);
    expect(parseError?.error.code).toBe(-32700);
    expect(parseError?.error.message).toContain("not valid JSON");
    p.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    const [list] = await p.waitFor(2);
    expect(list?.result.tools.length).toBeGreaterThan(0);
    p.stdin.end();
    expect(await p.done).toBe("stdin ended");
  });

  test("JSON that is not JSON-RPC gets -32600 with its id", async () => {
    const p = pipes();
    p.send(JSON.stringify({ id: 7, hello: "world" }));
    const [invalid] = await p.waitFor(7);
    expect(invalid?.error.code).toBe(-32600);
    p.stdin.end();
    await p.done;
  });

  test("a message over the size limit gets -32600, the rest of its line is dropped, the next message is served", async () => {
    const p = pipes(64 * 1024);
    p.send(initialize);
    await p.waitFor(1);
    // Written in pieces, as a pipe delivers a big message.
    const big = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { pad: "x".repeat(200_000) } });
    for (let i = 0; i < big.length; i += 16_384) p.stdin.write(big.slice(i, i + 16_384));
    p.stdin.write("\n");
    const [tooLarge] = await p.waitFor(null);
    expect(tooLarge?.error.code).toBe(-32600);
    expect(tooLarge?.error.message).toContain("65536 bytes");
    p.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    const [list] = await p.waitFor(3);
    expect(list?.result.tools.length).toBeGreaterThan(0);
    expect(p.answers.some((a) => a.id === 9)).toBe(false);
    p.stdin.end();
    expect(await p.done).toBe("stdin ended");
  });

  test("resources/read of a URI over the length limit gets -32602 naming the limit; the next read is served", async () => {
    const p = pipes();
    p.send(initialize);
    await p.waitFor(1);
    const uri = `skill://git-helper/${"a".repeat(1_000_000)}`;
    p.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "resources/read", params: { uri } }));
    const [refused] = await p.waitFor(4);
    expect(refused?.error.code).toBe(-32602);
    expect(refused?.error.message).toContain("at most 8192 characters");
    p.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "resources/read",
        params: { uri: "skill://git-helper/SKILL.md" },
      }),
    );
    const [read] = await p.waitFor(5);
    expect(read?.result.contents[0].text).toContain("Git workflow helper");
    p.stdin.end();
    await p.done;
  });

  test("a line with more than 10,000 object members gets -32700 naming the limit, under its own id; the next message is served", async () => {
    const p = pipes();
    p.send(initialize);
    await p.waitFor(1);
    const params: Record<string, string> = { id: "nested, not the request's" };
    for (let i = 0; i < 20_000; i++) params[`k${i}`] = "v";
    // The id after the params, and after a string holding `"id":`: found where it stands, at the top level.
    p.send(JSON.stringify({ jsonrpc: "2.0", method: "ping", params, note: '"id": 99', id: 6 }));
    const [refused] = await p.waitFor(6);
    expect(refused?.error.code).toBe(-32700);
    expect(refused?.error.message).toContain("more than 10000 in its objects");
    p.send(JSON.stringify({ jsonrpc: "2.0", id: 'req-"8"', method: "ping", params }));
    expect((await p.waitFor('req-"8"'))[0]?.error.code).toBe(-32700);
    p.send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }));
    expect((await p.waitFor(7))[0]?.result).toEqual({});
    p.stdin.end();
    await p.done;
  });

  test("stdin's end answers the requests already sent, then ends the server", async () => {
    const p = pipes();
    p.send(initialize);
    p.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    p.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "skill", arguments: { name: "git-helper" } },
      }),
    );
    p.stdin.end();
    expect(await p.done).toBe("stdin ended");
    expect(p.answers.find((a) => a.id === 2)?.result.content[0].text).toContain("git-helper");
  });
});
