import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clientShare, MAX_RUNNING } from "../../src/exec/host.ts";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { startHttpBinary } from "../helpers/http-binary.ts";
import { eventually } from "../helpers/wait.ts";

/** What a client holding the token of a shared hub can do to the hub itself, against the compiled binary. */

afterAll(cleanupTemp);
const bin = binary();
const TOKEN = "tok-hostile-0123456789abcdef";
/** The last revision with JSON-RPC batches: a hostile client may still speak it. */
const PROTOCOL = "2025-03-26";

async function hub(env: Record<string, string> = {}) {
  const home = tempDir("skillhub-hostile-home-");
  const skills = tempDir("skillhub-hostile-skills-");
  writeSkill(skills, "slow", { description: "A skill whose script waits" });
  // Each run says it started, then waits for the test's word: no clock decides who is running when.
  write(join(skills, "slow", "wait.sh"), 'touch "started-$$"\nwhile [ ! -e go ]; do sleep 0.05; done\necho done\n');
  const server = await startHttpBinary(bin, ["--skills-dir", skills], {
    env: { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HTTP_TOKEN: TOKEN, ...env },
    cwd: home,
  });
  const headers = (session?: string) => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${TOKEN}`,
    "mcp-protocol-version": PROTOCOL,
    ...(session ? { "mcp-session-id": session } : {}),
  });
  const post = (body: unknown, session?: string) =>
    fetch(server.url, { method: "POST", headers: headers(session), body: JSON.stringify(body) });
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "hostile", version: "1" } },
  });
  const session = init.headers.get("mcp-session-id") ?? "";
  await init.text();
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  const slow = join(skills, "slow");
  const started = () => readdirSync(slow).filter((n) => n.startsWith("started-")).length;
  return { server, session, post, slow, started };
}

/** Reads the JSON-RPC messages of an SSE answer as they arrive. */
function sseMessages(response: Response) {
  const got: Array<Record<string, any>> = [];
  const done = (async () => {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      text = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith("data: ") && line.length > 6) got.push(JSON.parse(line.slice(6)));
    }
    return got;
  })();
  return { got, done };
}

describe("a client holding the token cannot exhaust the hub", () => {
  test("one request of 100 commands starts at most its client's share of MAX_RUNNING processes; the others are refused at once", async () => {
    const h = await hub({ SKILLHUB_ENABLE_COMMANDS: "1", ALLOWED_COMMANDS: "bash" });
    try {
      const batch = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "run_skill_command", arguments: { skill_name: "slow", command: "bash", args: ["wait.sh"] } },
      }));
      const answer = sseMessages(await h.post(batch, h.session));
      const code = (m: Record<string, any>) => m.result?.structuredContent?.error?.code;
      // Once every call has either started or been answered, the runs are let go.
      await eventually(() => h.started() + answer.got.filter((m) => code(m) === "TOO_MANY_RUNS").length >= 100);
      writeFileSync(join(h.slow, "go"), "");
      const results = (await answer.done).map((m) => m.result);
      expect(results).toHaveLength(100);
      const refused = results.filter((r) => r.structuredContent?.error?.code === "TOO_MANY_RUNS");
      const ran = results.filter((r) => r.structuredContent?.stdout === "done\n");
      expect(h.started()).toBe(ran.length);
      expect(ran.length).toBeLessThanOrEqual(clientShare(MAX_RUNNING));
      expect(ran.length + refused.length).toBe(100);
      expect(refused[0]?.content[0]?.text).toContain(
        `the most one client may run at once (its share of the ${MAX_RUNNING} this server runs for all its clients); try again when one of them has finished`,
      );
    } finally {
      await h.server.stop();
    }
  }, 120_000);
});

describe("a loopback port is open to every user of the machine", () => {
  test("commands enabled without a token: the server warns that any local user could run them; with a token it does not", async () => {
    const home = tempDir("skillhub-hostile-home-");
    const skills = tempDir("skillhub-hostile-skills-");
    writeSkill(skills, "slow", { description: "A skill" });
    const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_ENABLE_COMMANDS: "1" };
    const open = await startHttpBinary(bin, ["--skills-dir", skills], { env, cwd: home });
    await open.stop();
    expect(open.stderr()).toContain(
      "run_skill_command is enabled and no token is set: every user of this machine can connect to this port and run commands as you. Set SKILLHUB_HTTP_TOKEN",
    );
    const guarded = await startHttpBinary(bin, ["--skills-dir", skills], {
      env: { ...env, SKILLHUB_HTTP_TOKEN: TOKEN },
      cwd: home,
    });
    await guarded.stop();
    expect(guarded.stderr()).toContain("token required");
    expect(guarded.stderr()).not.toContain("every user of this machine");
  }, 120_000);
});
