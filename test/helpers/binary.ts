import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Glob } from "bun";

const ROOT = join(import.meta.dir, "..", "..");
export const BINARY = join(ROOT, "dist", "skillhub");

/** The compiled binary, built first when missing or older than a source file. */
export function binary(): string {
  const built = existsSync(BINARY) ? statSync(BINARY).mtimeMs : 0;
  let newest = 0;
  for (const file of new Glob("src/**/*.ts").scanSync({ cwd: ROOT }))
    newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  if (built < newest) {
    const proc = Bun.spawnSync([process.execPath, "scripts/build.ts"], {
      cwd: ROOT,
      stdout: "ignore",
      stderr: "inherit",
    });
    if (proc.exitCode !== 0) throw new Error("could not build dist/skillhub (run `make build` to see why)");
  }
  return BINARY;
}

/**
 * An MCP client connected over stdio to the compiled binary serving `skillsDir`, with `home` as HOME
 * and cwd and debug logging (and `env` besides); `log()` is what it wrote to stderr so far.
 */
export async function binaryClient(skillsDir: string, home: string, env: Record<string, string> = {}) {
  return binaryClientWith(["--skills-dir", skillsDir], home, env);
}

/** binaryClient with the binary's arguments as given (a server with no --skills-dir: a team repository's). */
export async function binaryClientWith(args: string[], home: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: binary(),
    args,
    env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "DEBUG", ...env },
    cwd: home,
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, log: () => log };
}

/**
 * The compiled binary run once in `cwd` with `home` as HOME, `env` besides, as a person runs it installed:
 * by the name `skillhub` (argv[0], which the hints it prints spell commands with); its exit code and output.
 */
export function runBinary(args: string[], cwd: string, home: string, env: Record<string, string | undefined> = {}) {
  const proc = Bun.spawnSync([binary(), ...args], {
    argv0: "skillhub",
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env, HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() };
}
