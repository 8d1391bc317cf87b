import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeUtf8Prefix } from "../../src/exec/capture.ts";
import { defaultSpawn, runProcess, type SpawnFn, TIMEOUT_EXIT_CODE } from "../../src/exec/process.ts";
import { RunningGroups } from "../../src/exec/process-group.ts";
import { SkillHubError } from "../../src/util/errors.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { eventually, HANG_MS } from "../helpers/hub.ts";
import { heldTimeout, survivors } from "../helpers/process.ts";

afterAll(cleanupTemp);

const BASH = Bun.which("bash") as string;
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

function spec(script: string, more: Partial<Parameters<typeof runProcess>[0]> = {}) {
  const dir = tempDir("skillhub-exec-");
  const file = write(join(dir, "s.sh"), script);
  return { argv: [BASH, file], cwd: dir, env, timeoutMs: HANG_MS, maxOutputBytes: 1_048_576, ...more };
}

/**
 * Run `script` with its timeout held until it has created the file `ready` in its folder: a timeout
 * that fires before a slow machine has run the script's first lines would test nothing.
 */
async function timedOutRun(script: string, graceMs?: number) {
  const timeout = heldTimeout();
  const s = spec(script);
  const run = runProcess(s, { ...timeout.options, graceMs });
  await eventually(() => existsSync(join(s.cwd, "ready")));
  const firedAt = Date.now();
  timeout.fire();
  return { result: await run, firedAt };
}

/** The pids a script printed as "pid <n>" lines. */
const pidsIn = (text: string) => [...text.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));

describe("runProcess: one child under full control", () => {
  test("exit code, both streams, duration; no shell between the argv and the child", async () => {
    const result = await runProcess(
      spec('echo "out $1"; echo err >&2; exit 3', {
        argv: [BASH, "-c", 'echo "out $1"; echo err >&2; exit 3', "x", "a;b $(id)"],
      }),
    );
    expect(result).toMatchObject({ exitCode: 3, timedOut: false, aborted: false });
    expect(result.stdout).toEqual({ text: "out a;b $(id)\n", truncated: false, totalBytes: 14 });
    expect(result.stderr.text).toBe("err\n");
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  test("stdin is closed: a reader gets end of file at once", async () => {
    const result = await runProcess(spec("cat; echo done"));
    expect(result.stdout.text).toBe("done\n");
  });

  test("a child ended by a signal reports 128 + its number", async () => {
    const result = await runProcess(spec("kill -SEGV $$"));
    expect(result.exitCode).toBe(128 + 11);
    expect(result.signal).toBe("SIGSEGV");
  });

  test("timeout: SIGTERM to the whole group, a sleeping grandchild too; partial output kept; exit code 137", async () => {
    const { result } = await timedOutRun(
      "sleep 300 &\necho pid $!\necho pid $$\necho partial >&2\ntouch ready\nsleep 300\n",
    );
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(TIMEOUT_EXIT_CODE);
    expect(result.stderr.text).toBe("partial\n");
    const pids = pidsIn(result.stdout.text);
    expect(pids).toHaveLength(2);
    expect(await survivors(pids)).toEqual([]);
  });

  test("a group that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const { result, firedAt } = await timedOutRun(
      "trap '' TERM\nsleep 300 &\necho pid $!\necho pid $$\ntouch ready\nwhile :; do sleep 0.05; done\n",
      400,
    );
    expect(result.exitCode).toBe(TIMEOUT_EXIT_CODE);
    // SIGKILL, not SIGTERM, ended it, and not before the grace period had passed since the timeout
    // (a lower bound: a slow machine only makes it later). The loop never ends on its own.
    expect(result.signal).toBe("SIGKILL");
    expect(Date.now() - firedAt).toBeGreaterThanOrEqual(399);
    expect(await survivors(pidsIn(result.stdout.text))).toEqual([]);
  });

  test("nothing outlives a script that exits normally: its background processes are ended", async () => {
    const result = await runProcess(spec("sleep 300 >/dev/null 2>&1 &\necho pid $!\nexit 0\n"), { graceMs: 400 });
    expect(result.exitCode).toBe(0);
    expect(await survivors(pidsIn(result.stdout.text))).toEqual([]);
  });

  test.skipIf(process.platform !== "linux")(
    "a child that left the group and cleared its environment (setsid + env -i) dies while it holds the run's output",
    async () => {
      const sleep = Bun.which("sleep") as string;
      // Each waits until its child runs `sleep` with no marker left in its environment: only the pipe tells.
      const cleared = "while grep -qa SKILLHUB_RUN_ID /proc/$!/environ 2>/dev/null; do :; done";
      const result = await runProcess(
        spec(
          `setsid env -i ${sleep} 300 &\n${cleared}\necho pid $!\nexec 3>&1\nsetsid env -i ${sleep} 301 >/dev/null 2>&1 &\n${cleared}\necho pid $!\n`,
        ),
        { graceMs: 400 },
      );
      expect(result.exitCode).toBe(0);
      const pids = pidsIn(result.stdout.text);
      expect(pids).toHaveLength(2);
      expect(await survivors(pids)).toEqual([]);
    },
  );

  test.skipIf(process.platform !== "linux")(
    "its output is found however fast the script ends: here it has exited before the server looks at all",
    async () => {
      const sleep = Bun.which("sleep") as string;
      // A loaded machine can run a short script to its end before the server's next step; made certain here.
      const spawnThenWait: SpawnFn = async (argv, options) => {
        const child = await defaultSpawn(argv, options);
        await child.exited;
        return child;
      };
      const cleared = "while grep -qa SKILLHUB_RUN_ID /proc/$!/environ 2>/dev/null; do :; done";
      const result = await runProcess(spec(`setsid env -i ${sleep} 300 &\n${cleared}\necho pid $!\n`), {
        graceMs: 400,
        spawn: spawnThenWait,
      });
      expect(result.exitCode).toBe(0);
      const pids = pidsIn(result.stdout.text);
      expect(pids).toHaveLength(1);
      expect(await survivors(pids)).toEqual([]);
    },
  );

  test.skipIf(process.platform !== "linux")(
    "the run names the pipes its child writes to before the child starts, and closes its own ends after",
    async () => {
      let child: Awaited<ReturnType<SpawnFn>> | undefined;
      const keep: SpawnFn = async (argv, options) => {
        child = await defaultSpawn(argv, options);
        return child;
      };
      const result = await runProcess(spec("readlink /proc/$$/fd/1 /proc/$$/fd/2\n"), { spawn: keep });
      expect(result.stdout.text.trim().split("\n")).toEqual([...(child?.outputPipes ?? ["none"])]);
      for (const pipe of child?.outputPipes ?? []) expect(pipe).toMatch(/^pipe:\[\d+\]$/);
      // The runtime closes its own copy of a read end a moment after the stream ends.
      const held = () =>
        readdirSync("/proc/self/fd").some((fd) => {
          try {
            return child?.outputPipes?.includes(readlinkSync(`/proc/self/fd/${fd}`)) === true;
          } catch {
            return false;
          }
        });
      await eventually(() => !held());
    },
  );

  test("output is capped while streaming: 10 MB printed, the cap kept, the rest counted and dropped", async () => {
    const result = await runProcess(
      spec("head -c 10485760 /dev/zero | tr '\\0' 'x'; echo tail >&2", { maxOutputBytes: 65_536 }),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.text.length).toBe(65_536);
    expect(result.stdout.truncated).toBe(true);
    expect(result.stdout.totalBytes).toBe(10_485_760);
    expect(result.stderr).toEqual({ text: "tail\n", truncated: false, totalBytes: 5 });
  });

  test("an aborted request ends the group", async () => {
    const controller = new AbortController();
    const s = spec("echo pid $$\ntouch ready\nsleep 300\n", { signal: controller.signal });
    const run = runProcess(s);
    await eventually(() => existsSync(join(s.cwd, "ready")));
    controller.abort();
    const result = await run;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(128 + 15);
    expect(await survivors(pidsIn(result.stdout.text))).toEqual([]);
  });

  test("running groups are registered until they end; killAll ends them (server shutdown)", async () => {
    const groups = new RunningGroups();
    const running = runProcess(spec("echo pid $$\nsleep 300\n"), { groups });
    await eventually(() => groups.list().length === 1);
    expect(groups.killAll()).toBe(1);
    const result = await running;
    expect(result.exitCode).toBe(128 + 9);
    expect(groups.list()).toEqual([]);
  });

  test("a run whose start was under way when killAll ran is killed as soon as it has started", async () => {
    const groups = new RunningGroups();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let spawning = false;
    const spawn: SpawnFn = async (argv, options) => {
      spawning = true;
      await held;
      return defaultSpawn(argv, options);
    };
    const running = runProcess(spec("echo pid $$\nsleep 300\n"), { groups, spawn });
    await eventually(() => spawning);
    groups.killAll();
    release();
    const result = await running;
    expect(result.exitCode).toBe(128 + 9);
    expect(result.timedOut).toBe(false);
    expect(groups.list()).toEqual([]);
  });

  test("a timeout longer than a timer takes (24.8 days) is no timeout at all, not one that fires at once", async () => {
    // A timer of 2^31 ms or more fires after 1 ms: every script would be killed as it started.
    const s = spec("touch ready; while [ ! -e go ]; do sleep 0.05; done; echo done", { timeoutMs: 3_000_000_000 });
    const run = runProcess(s);
    const ready = eventually(() => existsSync(join(s.cwd, "ready"))).then(() => "ready");
    expect(await Promise.race([ready, run.then(() => "ended")])).toBe("ready");
    writeFileSync(join(s.cwd, "go"), "");
    expect(await run).toMatchObject({ exitCode: 0, timedOut: false, stdout: { text: "done\n" } });
  });

  test("an executable that cannot start is a SPAWN_FAILED error", async () => {
    const error = await runProcess({ ...spec("true"), argv: ["/nonexistent/runner"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillHubError);
    expect((error as SkillHubError).code).toBe("SPAWN_FAILED");
    // Its path once, and why in words: not the system's message, which names the path again.
    expect((error as SkillHubError).message).toBe(
      "/nonexistent/runner does not exist, or the interpreter its #! line names does not (ENOENT)",
    );
  });
});

describe("decodeUtf8Prefix", () => {
  test("a character cut by the cap is dropped whole", () => {
    const bytes = new TextEncoder().encode("aé€😀");
    expect(decodeUtf8Prefix(bytes)).toBe("aé€😀");
    expect(decodeUtf8Prefix(bytes.subarray(0, 2))).toBe("a");
    expect(decodeUtf8Prefix(bytes.subarray(0, 5))).toBe("aé");
    expect(decodeUtf8Prefix(bytes.subarray(0, 9))).toBe("aé€");
    expect(decodeUtf8Prefix(bytes.subarray(0, 10))).toBe("aé€😀");
  });
});
