import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { execHost, runOnHost } from "../../src/exec/host.ts";
import { SkillHubError } from "../../src/util/errors.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { HANG_MS } from "../helpers/wait.ts";

afterAll(cleanupTemp);

const BASH = Bun.which("bash") as string;

function spec(script: string) {
  const dir = tempDir("skillhub-host-");
  const file = write(join(dir, "s.sh"), script);
  return {
    argv: [BASH, file],
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: HANG_MS,
    maxOutputBytes: 4096,
  };
}

/** The error code of a call that throws synchronously, or "started". */
function attempt(start: () => Promise<unknown>, runs: Promise<unknown>[]): string {
  try {
    runs.push(start());
    return "started";
  } catch (error) {
    return error instanceof SkillHubError ? error.code : String(error);
  }
}

describe("runOnHost: how many run at once", () => {
  test("calls made in the same turn are counted as they are made: none past the server's limit or a client's share", async () => {
    const host = execHost({ maxRunning: 8 });
    const runs: Promise<unknown>[] = [];
    // Every call before any await: a count taken only once a run's process is registered would let all through.
    const client = Array.from({ length: 3 }, () => attempt(() => runOnHost(host, spec("exit 0\n"), "session a"), runs));
    expect(client).toEqual(["started", "started", "TOO_MANY_RUNS"]);
    const server = Array.from({ length: 8 }, () => attempt(() => runOnHost(host, spec("exit 0\n")), runs));
    expect(server).toEqual([...Array(6).fill("started"), "TOO_MANY_RUNS", "TOO_MANY_RUNS"]);
    await Promise.all(runs);
    // Every place is free again once the runs ended.
    expect(attempt(() => runOnHost(host, spec("exit 0\n"), "session a"), runs)).toBe("started");
    await Promise.all(runs);
    expect(host.held.size).toBe(0);
  });
});
