import { afterAll, beforeAll } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { binOf, ensureNode22, ensureNpmTool, PINNED } from "../../scripts/npm-tools.ts";
import { binary } from "./binary.ts";
import { cleanupTemp, tempDir, writeSkill } from "./fs.ts";
import { type HttpBinary, startHttpBinary } from "./http-binary.ts";
import { runsHere } from "./runs-here.ts";

/**
 * The real MCP clients (Claude Code, Gemini CLI, Codex), the MCP Bundle CLI and mcp-remote, pinned and installed
 * into .tools/ by `make client-tools`. Tests that use them run under `make clients`
 * (SKILLHUB_CLIENT_TOOLS=1), not in every `bun test`: the first run needs the npm registry.
 */
export const clientToolsEnabled = runsHere(
  process.env.SKILLHUB_CLIENT_TOOLS === "1",
  "the real MCP clients' tests (Claude Code, Gemini CLI, Codex, mcpb)",
  "they run under make clients (SKILLHUB_CLIENT_TOOLS=1)",
);

export interface ClientTools {
  node: string;
  /** argv prefix of each command-line tool. */
  claude: string[];
  gemini: string[];
  codex: string[];
  mcpb: string[];
  /** mcp-remote, which Claude Desktop's HTTP snippet starts with `npx -y mcp-remote`. */
  mcpRemote: string[];
  /** The mcpb package folder, for its library (getMcpConfigForManifest: what Claude Desktop substitutes). */
  mcpbDir: string;
}

let tools: ClientTools | undefined;

/** The pinned tools, installed on first use. */
export function clientTools(): ClientTools {
  if (tools) return tools;
  const node = ensureNode22();
  const dir = (tool: { name: string; version: string }) => ensureNpmTool(tool.name, tool.version);
  const mcpbDir = dir(PINNED.mcpb);
  tools = {
    node,
    // Claude Code's package carries a native executable; the others are Node programs.
    claude: [binOf(dir(PINNED.claudeCode), "claude")],
    gemini: [node, binOf(dir(PINNED.geminiCli), "gemini")],
    codex: [node, binOf(dir(PINNED.codex), "codex")],
    mcpb: [node, binOf(mcpbDir, "mcpb")],
    mcpRemote: [node, binOf(dir(PINNED.mcpRemote), "mcp-remote")],
    mcpbDir,
  };
  return tools;
}

/** A client's world: an empty HOME (its config lives there), a project folder, and a PATH with Node and skillhub. */
export interface ClientHome {
  home: string;
  project: string;
  env: Record<string, string>;
}

/**
 * A fresh HOME for a client. PATH holds Node 22, a `skillhub` (the compiled binary) and the system's
 * PATH; the clients' update checks and telemetry are off (nothing but loopback is reached). With
 * `skillhub: "local-bin"`, the binary is in ~/.local/bin instead, which is not on PATH.
 */
export function clientHome(options: { skillhub?: "path" | "local-bin" } = {}): ClientHome {
  const home = tempDir("skillhub-client-home-");
  const project = join(home, "project");
  const bin = join(home, options.skillhub === "local-bin" ? ".local/bin" : "bin");
  mkdirSync(project);
  mkdirSync(bin, { recursive: true });
  symlinkSync(binary(), join(bin, "skillhub"));
  const env = {
    PATH: `${options.skillhub === "local-bin" ? "" : `${bin}:`}${dirname(clientTools().node)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: home,
    LOG_LEVEL: "WARN",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    GEMINI_CLI_DISABLE_AUTO_UPDATE: "true",
    NO_COLOR: "1",
  };
  return { home, project, env };
}

export interface Ran {
  code: number;
  out: string;
  err: string;
}

/** Run a command to its end (without blocking the event loop: a loopback server may answer it). */
export async function runTool(
  argv: string[],
  options: { env: Record<string, string>; cwd: string; stdin?: string; timeoutMs?: number },
): Promise<Ran> {
  const proc = Bun.spawn(argv, {
    env: options.env,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 90_000);
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  clearTimeout(timer);
  return { code, out, err };
}

/**
 * `skillhub print-config CLIENT ...args` from the compiled binary: stdout (one file's content) and the
 * stderr lines (where it goes, and any command to run instead).
 */
export async function printConfig(client: string, args: string[], env: Record<string, string>, cwd: string) {
  const ran = await runTool([binary(), "print-config", client, ...args], { env, cwd });
  if (ran.code !== 0) throw new Error(`print-config ${client} failed: ${ran.err}`);
  return { file: ran.out, notes: ran.err };
}

/** The command line print-config offers on stderr after "# <where>:" (e.g. `claude mcp add …`). */
export function offeredCommand(notes: string, startsWith: string): string {
  const line = notes.split("\n").find((l) => l.startsWith(startsWith));
  if (!line) throw new Error(`print-config offered no "${startsWith}…" command:\n${notes}`);
  return line;
}

/**
 * Runs, as a user would paste it into a shell in the project, a command line print-config offered
 * (`claude mcp add …`, `gemini mcp add …`, `codex mcp add …`): its first word is that pinned client.
 */
export async function runOffered(c: ClientHome, line: string): Promise<Ran> {
  const word = line.split(" ", 1)[0] as string;
  if (word !== "claude" && word !== "gemini" && word !== "codex") throw new Error(`not a client's command: ${line}`);
  const argv = clientTools()[word];
  const tool = Object.fromEntries(argv.map((arg, i) => [`CLIENT_ARGV_${i}`, arg]));
  const prefix = argv.map((_, i) => `"$CLIENT_ARGV_${i}"`).join(" ");
  return runTool(["sh", "-c", `${prefix}${line.slice(word.length)}`], { env: { ...c.env, ...tool }, cwd: c.project });
}

/** The bearer token of the shared server the client tests connect to over HTTP. */
export const CLIENT_TOKEN = "client-test-token-0123456789";

/**
 * What every client test file shares, set up once per file (hooks registered here): a skills folder
 * holding `release-notes`, and the binary serving it over HTTP with CLIENT_TOKEN. Read its fields in
 * tests, after the hooks ran.
 */
export function clientFixture(): { skills: string; server: HttpBinary } {
  const fixture = {} as { skills: string; server: HttpBinary };
  beforeAll(async () => {
    if (!clientToolsEnabled) return;
    clientTools();
    fixture.skills = tempDir("skillhub-client-skills-");
    writeSkill(fixture.skills, "release-notes", { description: "Writes release notes from merged pull requests." });
    fixture.server = await startHttpBinary(binary(), ["--skills-dir", fixture.skills, "--no-watch"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: tempDir("skillhub-client-server-"),
        SKILLHUB_HTTP_TOKEN: CLIENT_TOKEN,
      },
    });
  });
  afterAll(async () => {
    await fixture.server?.stop();
    await cleanupTemp();
  });
  return fixture;
}
