/**
 * Smoke-test a release binary as a client would meet it: `--version` prints the release's version,
 * then initialize, initialized and tools/list over stdio list the skill tool for a one-skill folder.
 * Plain JSON-RPC and no imports beyond node:, so it runs on any CI runner with only Bun.
 * Usage: bun scripts/smoke.ts BINARY VERSION
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Resolves to nothing when the binary behaves; throws with what went wrong. */
export async function smoke(binary: string, version: string, timeoutMs = 20_000): Promise<void> {
  const bin = resolve(binary);
  const home = mkdtempSync(join(tmpdir(), "skillhub-smoke-"));
  try {
    // The runner's environment (Windows needs SystemRoot and friends) minus anything that would
    // point SkillHub at other skills, with an empty home.
    const inherited = Object.entries(process.env).filter(([key]) => !/^(SKILL|CLAUDE_|LOG_LEVEL$)/i.test(key));
    const env = { ...Object.fromEntries(inherited), HOME: home, USERPROFILE: home, LOG_LEVEL: "WARN" };
    const printed = Bun.spawnSync([bin, "--version"], { env, stdout: "pipe", stderr: "pipe" });
    const got = printed.stdout.toString().trim();
    if (printed.exitCode !== 0 || got !== version) {
      throw new Error(
        `${bin} --version: exit ${printed.exitCode}, printed "${got}", expected "${version}" ${printed.stderr.toString()}`,
      );
    }
    const skills = join(home, "skills");
    mkdirSync(join(skills, "smoke-check"), { recursive: true });
    writeFileSync(
      join(skills, "smoke-check", "SKILL.md"),
      "---\nname: smoke-check\ndescription: Checks that a release binary serves skills.\n---\nHello.\n",
    );
    const { serverInfo, tools } = await initializeAndList([bin, "--skills-dir", skills, "--no-watch"], {
      cwd: home,
      env,
      timeoutMs,
    });
    if (serverInfo.version !== version)
      throw new Error(`initialize reported ${JSON.stringify(serverInfo)}, expected version ${version}`);
    const skill = tools.find((t) => t.name === "skill");
    if (!skill?.description?.includes("smoke-check"))
      throw new Error(`tools/list has no skill tool listing smoke-check: ${tools.map((t) => t.name).join(", ")}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** What a client learns first: the server's identity and its tools. */
export interface Handshake {
  serverInfo: { name?: string; version?: string };
  tools: { name: string; description?: string }[];
}

/**
 * Start a stdio MCP server (`argv`), send initialize, initialized and tools/list as a client would,
 * and return the answers; the server is ended by closing its stdin. Throws with what went wrong.
 */
export async function initializeAndList(
  argv: string[],
  options: { env: Record<string, string | undefined>; cwd: string; timeoutMs?: number },
): Promise<Handshake> {
  const proc = Bun.spawn(argv, { cwd: options.cwd, env: options.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(proc.stderr).text();
  const timer = setTimeout(() => proc.kill(), options.timeoutMs ?? 20_000);
  const send = (message: object) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    proc.stdin.flush();
  };
  const replies = readLines(proc.stdout);
  const reply = async (id: number) => {
    for (;;) {
      const next = await replies.next();
      if (next.done) throw new Error(`${argv[0]} closed stdout before answering request ${id}`);
      const message = JSON.parse(next.value) as { id?: number; result?: Record<string, unknown>; error?: unknown };
      if (message.id !== id) continue;
      if (!message.result) throw new Error(`request ${id} failed: ${JSON.stringify(message.error)}`);
      return message.result;
    }
  };
  try {
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "smoke", version: "1" } },
    });
    const serverInfo = ((await reply(1)).serverInfo ?? {}) as Handshake["serverInfo"];
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/list", params: {} });
    const tools = ((await reply(2)).tools ?? []) as Handshake["tools"];
    return { serverInfo, tools };
  } catch (error) {
    proc.kill();
    const why = proc.killed ? "(killed after timeout)" : "";
    throw new Error(`${(error as Error).message} ${why}\n${(await stderr).trim()}`);
  } finally {
    clearTimeout(timer);
    proc.stdin.end();
    await proc.exited;
  }
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield line;
      newline = buffered.indexOf("\n");
    }
  }
}

if (import.meta.main) {
  const [binary, version] = process.argv.slice(2);
  if (!binary || !version) {
    process.stderr.write("usage: bun scripts/smoke.ts BINARY VERSION\n");
    process.exit(2);
  }
  try {
    await smoke(binary, version);
    process.stdout.write(`ok ${binary} ${version}: --version, initialize, tools/list\n`);
  } catch (error) {
    process.stderr.write(`smoke test failed: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
