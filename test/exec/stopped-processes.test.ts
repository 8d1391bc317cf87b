import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runSearch } from "../../src/exec/proc-search.ts";
import { RunningGroups } from "../../src/exec/process-group.ts";
import type { ProcStat } from "../../src/exec/process-stat.ts";
import {
  type KillFn,
  type KnownProcesses,
  killRunNow,
  type ProcessRow,
  RUN_MARKER_VARIABLE,
  STOP_WINDOW_MS,
  signalRunSteps,
} from "../../src/exec/process-tree.ts";
import { killAllStopped, stopProcess, stoppedPids } from "../../src/exec/stopped-processes.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { eventually, HANG_MS } from "../helpers/hub.ts";

const linux = process.platform === "linux";
const SLEEP = Bun.which("sleep") as string;

afterEach(() => {
  killAllStopped();
});
afterAll(cleanupTemp);

/**
 * A fake process table: each process has a start and a state, as /proc/<pid>/stat tells them. `kill`
 * records the signals and plays their effect; `replace` gives a dead process's pid to a new process.
 */
function fakeTable(rows: (ProcessRow & { start: number })[]) {
  const procs = new Map(rows.map((row) => [row.pid, { row, state: "S" }]));
  const signals: string[] = [];
  const kill: KillFn = (pid, signal) => {
    const proc = procs.get(pid);
    if (!proc || proc.state === "Z") throw new Error("ESRCH");
    signals.push(`${signal} ${pid}`);
    if (signal === "SIGSTOP") proc.state = "T";
    if (signal === "SIGKILL") proc.state = "Z";
  };
  const table = {
    *processes(_marker: string, _since?: number, known?: KnownProcesses) {
      for (const { row, state } of [...procs.values()]) {
        if (state === "Z") continue;
        yield undefined;
        const isKnown = known?.has(row.pid) === true && known.get(row.pid) === row.start;
        yield { ...row, marked: row.marked && !isKnown };
      }
    },
    stat(pid: number): ProcStat | undefined {
      const proc = procs.get(pid);
      return proc && { ppid: proc.row.ppid, pgid: proc.row.pgid, start: proc.row.start, state: proc.state };
    },
  };
  const replace = (row: ProcessRow & { start: number }) => procs.set(row.pid, { row, state: "S" });
  return { table, kill, signals, replace };
}

describe("a closing server leaves nothing stopped", () => {
  test("killAll kills the run's processes as it finds them, never stopping one first", () => {
    const { table, kill, signals } = fakeTable([
      { pid: 100, ppid: 1, pgid: 100, start: 5, marked: true },
      { pid: 101, ppid: 100, pgid: 100, start: 6, marked: false },
    ]);
    const groups = new RunningGroups(table);
    groups.add({ group: 50, marker: "m" }, kill);
    groups.killAll();
    expect(signals.filter((s) => !s.startsWith("SIGKILL -"))).toEqual(["SIGKILL 100", "SIGKILL 101"]);
  });

  test("killAll kills what a search still under way has stopped", () => {
    const { table, kill, signals } = fakeTable([{ pid: 100, ppid: 1, pgid: 100, start: 5, marked: true }]);
    // A run's search, stopped halfway: its process is stopped and the search waits for its next turn.
    const search = signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", kill, table);
    while (!signals.includes("SIGSTOP 100")) search.next();
    expect(stoppedPids()).toEqual([100]);
    new RunningGroups(table).killAll();
    expect(signals).toEqual(["SIGSTOP 100", "SIGKILL 100"]);
    expect(stoppedPids()).toEqual([]);
  });

  test("what a kill stops is killed once the stop window has passed, while the search goes on", async () => {
    // Each look shows one more of the run's processes, for ever: the looks alone would end at KILL_LOOKS.
    let next = 1000;
    const rows: (ProcessRow & { start: number })[] = [];
    const { table, kill, signals, replace } = fakeTable(rows);
    const growing = {
      ...table,
      *processes(marker: string, since?: number, known?: KnownProcesses) {
        const pid = next++;
        replace({ pid, ppid: 1, pgid: pid, start: pid, marked: true });
        yield* table.processes(marker, since, known);
      },
    };
    let clock = 0;
    const search = signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", kill, growing, {
      now: () => clock,
    });
    while (!signals.includes("SIGSTOP 1000")) search.next();
    expect(signals).not.toContain("SIGKILL 1000");
    clock += STOP_WINDOW_MS;
    while (!signals.includes("SIGKILL 1000")) {
      const step = search.next();
      expect(step.done).toBe(false);
    }
    // Killed halfway through the search, which went on.
    expect(signals.filter((s) => s.startsWith("SIGSTOP")).length).toBeLessThan(3);
    await runSearch(search, () => {}, { budgetMs: HANG_MS });
    expect(stoppedPids()).toEqual([]);
  });

  test.skipIf(!linux)(
    "a server that exits while a search has processes stopped kills them on its way out",
    async () => {
      const dir = tempDir("skillhub-stopped-");
      const marker = crypto.randomUUID();
      const victim = Bun.spawn([SLEEP, "300"], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", [RUN_MARKER_VARIABLE]: marker },
        stdio: ["ignore", "ignore", "ignore"],
      });
      try {
        const tree = join(import.meta.dir, "../../src/exec/process-tree.ts");
        // A server whose search has stopped the run's process, and that exits before the search ends.
        write(
          join(dir, "server.ts"),
          `import { signalRunSteps } from ${JSON.stringify(tree)};\n` +
            "let stopped = false;\n" +
            "const kill = (pid, signal) => { process.kill(pid, signal); if (signal === 'SIGSTOP') stopped = true; };\n" +
            `const search = signalRunSteps({ group: -1, marker: ${JSON.stringify(marker)} }, () => undefined, "SIGKILL", kill);\n` +
            "while (!stopped) if (search.next().done) process.exit(3);\n" +
            "process.exit(0);\n",
        );
        const server = Bun.spawn([process.execPath, join(dir, "server.ts")], {
          stdio: ["ignore", "ignore", "inherit"],
        });
        expect(await server.exited).toBe(0);
        await eventually(() => !existsSync(`/proc/${victim.pid}`) || stateOf(victim.pid) === "Z");
      } finally {
        victim.kill("SIGKILL");
      }
    },
  );
});

describe("a pid is signalled again only while it names the same process", () => {
  test("a stopped process that died, its pid given to another process, is not killed", async () => {
    const { table, kill, signals, replace } = fakeTable([{ pid: 100, ppid: 1, pgid: 100, start: 5, marked: true }]);
    const search = signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", kill, table);
    while (!signals.includes("SIGSTOP 100")) search.next();
    // Someone else kills the stopped process; a process of the user's daemon is given its pid.
    replace({ pid: 100, ppid: 7, pgid: 7, start: 9, marked: false });
    await runSearch(search, () => {}, { budgetMs: HANG_MS });
    expect(signals).toEqual(["SIGSTOP 100"]);
    expect(stoppedPids()).toEqual([]);
  });

  test("a known pid given to a new process is not taken for the run's, nor are its children", async () => {
    const { table, kill, signals, replace } = fakeTable([{ pid: 100, ppid: 1, pgid: 100, start: 5, marked: true }]);
    const search = signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", kill, table);
    while (!signals.includes("SIGSTOP 100")) search.next();
    replace({ pid: 100, ppid: 7, pgid: 7, start: 9, marked: false });
    replace({ pid: 101, ppid: 100, pgid: 7, start: 10, marked: false });
    await runSearch(search, () => {}, { budgetMs: HANG_MS });
    expect(signals).toEqual(["SIGSTOP 100"]);
  });
});

describe("every signal of a search goes to the process the look found", () => {
  /** A table whose look read pid 100 before it died: the row has its old start, /proc the new one's. */
  function staleLook() {
    const fake = fakeTable([{ pid: 100, ppid: 7, pgid: 7, start: 9, marked: false }]);
    const table = {
      ...fake.table,
      *processes() {
        yield undefined;
        yield { pid: 100, ppid: 1, pgid: 100, start: 5, marked: true };
      },
    };
    return { ...fake, table };
  }

  test("a pid given to another process since the look is not stopped", async () => {
    const { table, kill, signals } = staleLook();
    await runSearch(
      signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", kill, table),
      () => {},
      {
        budgetMs: HANG_MS,
      },
    );
    expect(signals).toEqual([]);
    expect(stoppedPids()).toEqual([]);
  });

  test("a pid given to another process as it is stopped is let go on at once, and not kept", async () => {
    const { table, kill, signals, replace } = fakeTable([{ pid: 100, ppid: 1, pgid: 100, start: 5, marked: true }]);
    const reusing: KillFn = (pid, signal) => {
      // The run's process dies just before the SIGSTOP, which reaches a process of the user given its pid.
      if (signal === "SIGSTOP") replace({ pid: 100, ppid: 7, pgid: 7, start: 9, marked: false });
      kill(pid, signal);
    };
    const search = signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", reusing, table);
    while (!signals.includes("SIGSTOP 100")) search.next();
    expect(stoppedPids()).toEqual([]);
    await runSearch(search, () => {}, { budgetMs: HANG_MS });
    expect(signals).toEqual(["SIGSTOP 100", "SIGCONT 100"]);
  });

  test("a closing server does not kill a pid given to another process since the look", () => {
    const { table, kill, signals } = staleLook();
    killRunNow({ group: 50, marker: "m" }, kill, table, performance.now() + HANG_MS);
    expect(signals).toEqual([]);
  });

  test("SIGTERM does not go to a pid given to another process since the look", async () => {
    const { table, kill, signals } = staleLook();
    await runSearch(
      signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGTERM", kill, table),
      () => {},
      {
        budgetMs: HANG_MS,
      },
    );
    expect(signals).toEqual([]);
  });

  test("a stop under an old start of a stopped pid leaves it in the record, and it is killed", () => {
    const { table, kill, signals } = fakeTable([{ pid: 100, ppid: 1, pgid: 100, start: 5, marked: true }]);
    const stat = table.stat.bind(table);
    expect(stopProcess(100, { start: 5, kill, stat })).toBe(true);
    // Another search, whose look read the pid when it named an older process.
    expect(stopProcess(100, { start: 3, kill, stat })).toBe(false);
    expect(stoppedPids()).toEqual([100]);
    killAllStopped();
    expect(signals).toEqual(["SIGSTOP 100", "SIGKILL 100"]);
  });

  test("once the server is closing, a search under way kills what it finds without stopping it", async () => {
    const { table, kill, signals } = fakeTable([
      { pid: 100, ppid: 1, pgid: 100, start: 5, marked: true },
      { pid: 101, ppid: 1, pgid: 101, start: 6, marked: true },
    ]);
    const groups = new RunningGroups(table);
    const search = signalRunSteps({ group: 50, marker: "m" }, () => undefined, "SIGKILL", kill, table, {
      closing: () => groups.closing,
    });
    while (!signals.includes("SIGSTOP 100")) search.next();
    groups.killAll();
    await runSearch(search, () => {}, { budgetMs: HANG_MS });
    expect(signals).toEqual(["SIGSTOP 100", "SIGKILL 100", "SIGKILL 101"]);
    expect(stoppedPids()).toEqual([]);
  });
});

function stateOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return "";
  }
}
