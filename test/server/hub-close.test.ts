import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { RunningGroups } from "../../src/exec/process-group.ts";
import type { ProcessRow } from "../../src/exec/process-tree.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { type FakeGit, fakeGit, HANGING_GIT, killRecorded } from "../helpers/fake-git.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { connect, eventually } from "../helpers/hub.ts";
import { survivors } from "../helpers/process.ts";
import { writeScriptTree } from "../helpers/scripts.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();
const fakes: FakeGit[] = [];
afterEach(() => {
  for (const fake of fakes.splice(0)) killRecorded(fake);
});

/** Milliseconds of the test's clock each step of a search takes. */
const STEP_MS = 10;
/** killAll's budget for all its searches (exec/process-group.ts): 0.8 s for the markers, 0.4 s for the output's holders. */
const SHUTDOWN_BUDGET_MS = 1_200;

/**
 * A process table whose searches never end, each step taking STEP_MS of `clock`: only killAll's deadlines
 * end them. Records the run markers it was asked about.
 */
function endlessTable() {
  const state = { clock: 0, markers: [] as string[] };
  const table = {
    *processes(marker: string): Generator<ProcessRow | undefined> {
      state.markers.push(marker);
      for (;;) {
        state.clock += STEP_MS;
        yield undefined;
      }
    },
    *pipeWriters(): Generator<number | undefined> {
      for (;;) {
        state.clock += STEP_MS;
        yield undefined;
      }
    },
  };
  return { state, groups: new RunningGroups(table, () => state.clock) };
}

describe("a closing hub", () => {
  test.skipIf(process.platform === "win32")(
    "ends its gits and its scripts under one shutdown budget: every group is killed, each run searched for",
    async () => {
      const git = fakeGit(HANGING_GIT);
      fakes.push(git);
      const dir = writeScriptTree(tempDir());
      const { state, groups } = endlessTable();
      const session = await connect({
        flags: { "skills-dir": [dir] },
        env: { SKILLHUB_TOOLS: "all", SKILLS_REPO: "https://example.invalid/team/skills.git" },
        hub: {
          exec: { groups },
          // The clone hangs for good: the start-up wait gives up on it (its length does not matter).
          git: { runner: { env: git.env }, intervalMs: 0, startupWaitMs: 100 },
        },
      });
      closers.push(session.close);
      const script = session.call("run_script", { skill_path: "tools/echo", file: "scripts/slow.sh", args: {} });
      // The clone's git (its helper started) and the script (its background sleep started), both running.
      await eventually(() => git.children().length === 1 && existsSync(join(dir, "tools/echo/scripts/slow.ready")));
      const running = groups.list();
      const start = state.clock;
      session.hub.close();
      // Both runs were searched for, within one budget: the first run's searches took all of it.
      expect(new Set(state.markers).size).toBe(2);
      expect(state.clock - start).toBeLessThanOrEqual(SHUTDOWN_BUDGET_MS + 4 * STEP_MS);
      expect(running).toHaveLength(2);
      expect(groups.list()).toEqual([]);
      const { stdout } = (await script).structuredContent as { stdout: string };
      const scriptPids = [...stdout.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
      expect(scriptPids).toHaveLength(2);
      expect(await survivors([...running, ...scriptPids, ...git.children()])).toEqual([]);
    },
  );
});
