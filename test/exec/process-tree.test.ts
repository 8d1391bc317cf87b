import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runSearch } from "../../src/exec/proc-search.ts";
import { RUN_END_SEARCH_MS, runProcess } from "../../src/exec/process.ts";
import { ENVIRON_PART_BYTES } from "../../src/exec/process-environ.ts";
import { RunningGroups } from "../../src/exec/process-group.ts";
import { bootTicks } from "../../src/exec/process-stat.ts";
import {
  KILL_LOOKS,
  type KillFn,
  type KnownProcesses,
  type ProcessRow,
  type ProcessTable,
  procTable,
  RUN_MARKER_VARIABLE,
  runMembers,
  signalRun,
  signalRunSteps,
} from "../../src/exec/process-tree.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { eventually, HANG_MS } from "../helpers/hub.ts";
import { heldTimeout, killedAfterEach, survivors } from "../helpers/process.ts";

const BASH = Bun.which("bash") as string;
const SLEEP = Bun.which("sleep") as string;
const linux = process.platform === "linux";

/** Processes a test started itself, killed at its end whatever happened. */
const started = killedAfterEach();
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

describe("the end of a run is bounded", () => {
  test("its searches (at timeout, at SIGKILL, and the last) share one budget, and warn once when it runs out", async () => {
    const dir = tempDir("skillhub-tree-");
    // A table that is never all read: every search of the run's end runs out of time.
    let steps = 0;
    const table: ProcessTable = {
      *processes() {
        for (;;) {
          steps++;
          yield undefined;
        }
      },
    };
    // Every look at the clock is a millisecond later: the budget counts steps, not this machine's speed.
    let clock = 0;
    const logger = createMemoryLogger("WARN");
    const timeout = heldTimeout();
    const run = runProcess(
      {
        // It ignores SIGTERM, so the grace period ends in SIGKILL: three searches.
        argv: [BASH, "-c", "trap '' TERM; touch ready; exec sleep 300"],
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        timeoutMs: HANG_MS,
        maxOutputBytes: 10_000,
      },
      { graceMs: 50, processTable: table, now: () => clock++, logger, ...timeout.options },
    );
    await eventually(() => existsSync(join(dir, "ready")));
    timeout.fire();
    const result = await run;
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    expect(steps).toBeLessThanOrEqual(RUN_END_SEARCH_MS + 10);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toContain("not all found within 10 s");
  });
});

describe("a kill stops what it finds, then looks again", () => {
  /**
   * A fake table whose process 100 (the run's, in a session of its own) forks a child each time the
   * table lists it, unless it is stopped or dead: the child comes after the look that listed its parent.
   */
  function forkingTable() {
    const rows = new Map<number, ProcessRow>([[100, { pid: 100, ppid: 1, pgid: 100, marked: true }]]);
    const state = new Map<number, "stopped" | "dead">();
    const signals: string[] = [];
    let next = 101;
    const kill: KillFn = (pid, signal) => {
      if (!rows.has(pid) || state.get(pid) === "dead") throw new Error("ESRCH");
      signals.push(`${signal} ${pid}`);
      if (signal === "SIGSTOP") state.set(pid, "stopped");
      if (signal === "SIGKILL") state.set(pid, "dead");
    };
    const table = {
      *processes(_marker: string, _since?: number, known?: KnownProcesses) {
        for (const row of [...rows.values()]) {
          if (state.get(row.pid) === "dead") continue;
          if (row.pid === 100 && state.get(100) === undefined) {
            const child = next++;
            rows.set(child, { pid: child, ppid: 100, pgid: 100, marked: true });
          }
          yield undefined;
          yield { ...row, marked: row.marked && !known?.has(row.pid) };
        }
      },
    };
    const alive = () => [...rows.keys()].filter((pid) => state.get(pid) !== "dead");
    return { table, kill, signals, alive };
  }

  test("a child forked while the table is read is found by the next look; every one stopped is then killed", async () => {
    const { table, kill, signals, alive } = forkingTable();
    const end = await runSearch(
      signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", kill, table),
      () => {},
      {
        budgetMs: HANG_MS,
      },
    );
    expect(end).toBe("searched");
    expect(alive()).toEqual([]);
    expect(signals).toEqual(["SIGSTOP 100", "SIGSTOP 101", "SIGKILL 100", "SIGKILL 101"]);
  });

  test("looks are bounded, and a search cut short still kills what it stopped", async () => {
    // A table where each look shows one more of the run's processes, for ever.
    let next = 1000;
    const kill: KillFn = () => {};
    const signals: string[] = [];
    const recording: KillFn = (pid, signal) => {
      signals.push(`${signal} ${pid}`);
      kill(pid, signal);
    };
    const table = {
      *processes() {
        const pid = next++;
        yield undefined;
        yield { pid, ppid: 1, pgid: pid, marked: true };
      },
    };
    await runSearch(
      signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", recording, table),
      () => {},
      {
        budgetMs: HANG_MS,
      },
    );
    expect(signals.filter((s) => s.startsWith("SIGSTOP"))).toHaveLength(KILL_LOOKS);
    expect(signals.filter((s) => s.startsWith("SIGKILL"))).toHaveLength(KILL_LOOKS);

    signals.length = 0;
    let clock = 0;
    const cut = await runSearch(
      signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", recording, table),
      () => {},
      {
        budgetMs: 3,
        now: () => clock++,
        pause: async () => {},
      },
    );
    expect(cut).toBe("out of time");
    const stopped = signals.filter((s) => s.startsWith("SIGSTOP")).map((s) => s.split(" ")[1]);
    expect(stopped.length).toBeGreaterThan(0);
    expect(signals.filter((s) => s.startsWith("SIGKILL")).map((s) => s.split(" ")[1])).toEqual(stopped);
  });

  test.skipIf(!linux)(
    "a process that left the group, closed its output and forks on: the child it forks as the kill reaches it dies too",
    async () => {
      const dir = tempDir("skillhub-tree-");
      // In a session of its own, output closed, carrying the marker: it forks a `sleep` whenever told to
      // (SIGUSR1), and forks on as it waits.
      write(
        join(dir, "forker.sh"),
        "trap 'sleep 300 & echo $! > child.new; mv child.new child' USR1\n" +
          "echo $$ > forker.new; mv forker.new forker\n" +
          "while :; do sleep 0.05; done\n",
      );
      const script = `setsid ${BASH} forker.sh </dev/null >/dev/null 2>&1 &\nwhile [ ! -e forker ]; do sleep 0.01; done\n`;
      const read = (name: string) => Number(readFileSync(join(dir, name), "latin1"));
      // The kill: the first signal to the forker is held until it has forked once more (as if it forked
      // just as the search reached it), then delivered.
      let forked = false;
      const kill: KillFn = (pid, signal) => {
        if (!forked && signal !== 0 && pid > 0 && existsSync(join(dir, "forker")) && pid === read("forker")) {
          forked = true;
          process.kill(pid, "SIGUSR1");
          const end = Date.now() + HANG_MS;
          while (!existsSync(join(dir, "child")) && Date.now() < end) Bun.sleepSync(5);
        }
        process.kill(pid, signal);
      };
      const result = await runProcess(
        {
          argv: [BASH, "-c", script],
          cwd: dir,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
          timeoutMs: HANG_MS,
          maxOutputBytes: 10_000,
        },
        { graceMs: 300, kill },
      );
      expect(result.exitCode).toBe(0);
      const pids = [read("forker"), read("child")];
      started.push(...pids);
      expect(forked).toBe(true);
      expect(await survivors(pids)).toEqual([]);
    },
  );
});
