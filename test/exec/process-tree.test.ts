import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../../src/exec/process.ts";
import { ENVIRON_PART_BYTES } from "../../src/exec/process-environ.ts";
import { RunningGroups } from "../../src/exec/process-group.ts";
import { bootTicks } from "../../src/exec/process-stat.ts";
import { procTable, RUN_MARKER_VARIABLE, runMembers, signalRun } from "../../src/exec/process-tree.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { eventually, HANG_MS } from "../helpers/hub.ts";
import { heldTimeout, survivors } from "../helpers/process.ts";

const SLEEP = Bun.which("sleep") as string;
const linux = process.platform === "linux";

/** Processes a test started itself, killed at its end whatever happened. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0))
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
});
afterAll(cleanupTemp);

/** Alive and not a zombie (a killed orphan may wait for a PID 1 that never reaps it). */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

describe("every descendant of a script dies at timeout (process tree + marker)", () => {
  /** A script that starts a setsid child, says its pid, creates `ready` in its folder, then sleeps. */
  const setsidRun = () => {
    const dir = tempDir("skillhub-tree-");
    const spec = {
      argv: ["bash", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!; touch ready; sleep 300"],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: HANG_MS,
      maxOutputBytes: 10_000,
    };
    return { spec, ready: () => existsSync(join(dir, "ready")) };
  };

  test.skipIf(process.platform !== "linux")(
    "a setsid child, in its own session and group, is killed at timeout",
    async () => {
      const { spec, ready } = setsidRun();
      const timeout = heldTimeout();
      const run = runProcess(spec, { graceMs: 300, ...timeout.options });
      await eventually(ready);
      timeout.fire();
      const result = await run;
      expect(result.timedOut).toBe(true);
      const pid = Number(result.stdout.text.trim());
      expect(pid).toBeGreaterThan(0);
      await eventually(() => !running(pid));
    },
  );

  test.skipIf(process.platform !== "linux")(
    "server shutdown (killAll) also ends a setsid child of a running script",
    async () => {
      const groups = new RunningGroups();
      const { spec, ready } = setsidRun();
      const run = runProcess(spec, { graceMs: 300, groups });
      await eventually(ready);
      expect(groups.killAll()).toBe(1);
      const result = await run;
      const pid = Number(result.stdout.text.trim());
      expect(pid).toBeGreaterThan(0);
      await eventually(() => !running(pid));
    },
  );

  test("the run's processes: marker carriers and descendants; the root only while not reaped; never us", () => {
    const rows = [
      { pid: 10, ppid: 1, pgid: 10, marked: false },
      { pid: 11, ppid: 10, pgid: 10, marked: false },
      { pid: 12, ppid: 11, pgid: 10, marked: false },
      { pid: 20, ppid: 1, pgid: 20, marked: true },
      { pid: 21, ppid: 20, pgid: 20, marked: false },
      { pid: 30, ppid: 1, pgid: 30, marked: false },
      { pid: 31, ppid: 30, pgid: 30, marked: false },
      { pid: process.pid, ppid: 1, pgid: 1, marked: true },
    ];
    expect(runMembers(rows, 10)).toEqual([11, 12, 20, 21]);
    expect(runMembers(rows, undefined)).toEqual([20, 21]);
    // Processes already known to be the run's (stopped by an earlier look) count as carriers.
    expect(runMembers(rows, undefined, new Set([30]))).toEqual([20, 21, 30, 31]);
  });
});

describe.skipIf(!linux)("the search for a run's processes never holds the server", () => {
  test("it reads many large environments a part at a time, with turns of the event loop between, and finds every carrier", async () => {
    const marker = crypto.randomUUID();
    const since = bootTicks();
    // A 1 MiB environment with the run's marker last: each is read to its end.
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    for (let i = 0; i < 8; i++) env[`BIG${i}`] = "A".repeat(127 * 1024);
    env[RUN_MARKER_VARIABLE] = marker;
    const carriers = Array.from({ length: 24 }, () =>
      Bun.spawn([SLEEP, "300"], { env, stdio: ["ignore", "ignore", "ignore"] }),
    );
    started.push(...carriers.map((c) => c.pid));
    let clock = 0;
    let turns = 0;
    const end = await signalRun({ group: -1, marker, since }, () => undefined, "SIGKILL", process.kill, procTable, {
      budgetMs: HANG_MS,
      // Every look at the clock is a millisecond later: turns come by the number of steps, not by this machine's speed.
      now: () => clock++,
      pause: () => {
        turns++;
        return new Promise((resolve) => setImmediate(resolve));
      },
    });
    expect(end).toBe("searched");
    expect(await survivors(carriers.map((c) => c.pid))).toEqual([]);
    // Each environment took several steps (1 MiB in parts of 64 KiB), so several turns each.
    expect(ENVIRON_PART_BYTES).toBe(64 * 1024);
    expect(turns).toBeGreaterThan(carriers.length * 2);
  });
});
