import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../../src/exec/process.ts";
import { RunningGroups } from "../../src/exec/process-group.ts";
import { RUN_MARKER_VARIABLE, runProcesses } from "../../src/exec/process-tree.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { eventually, HANG_MS } from "../helpers/hub.ts";
import { heldTimeout } from "../helpers/process.ts";

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
    const table = {
      list: () => [
        { pid: 10, ppid: 1 },
        { pid: 11, ppid: 10 },
        { pid: 12, ppid: 11 },
        { pid: 20, ppid: 1, environ: `A=1\0${RUN_MARKER_VARIABLE}=m1\0B=2` },
        { pid: 21, ppid: 20 },
        { pid: 30, ppid: 1, environ: `${RUN_MARKER_VARIABLE}=m10` },
        { pid: process.pid, ppid: 1, environ: `${RUN_MARKER_VARIABLE}=m1` },
      ],
    };
    expect(runProcesses(table, 10, "m1")).toEqual([11, 12, 20, 21]);
    expect(runProcesses(table, undefined, "m1")).toEqual([20, 21]);
  });
});
