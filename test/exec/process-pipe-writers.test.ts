import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSearch, runSearchNow } from "../../src/exec/proc-search.ts";
import { runProcess } from "../../src/exec/process.ts";
import { RunningGroups } from "../../src/exec/process-group.ts";
import { pipeWriterSteps } from "../../src/exec/process-pipe-writers.ts";
import { bootTicks, readProcStat } from "../../src/exec/process-stat.ts";
import { type ProcessRow, procTable } from "../../src/exec/process-tree.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { eventually, HANG_MS } from "../helpers/hub.ts";
import { killedAfterEach, survivors } from "../helpers/process.ts";

const BASH = Bun.which("bash") as string;
const PYTHON = Bun.which("python3");
const SLEEP = Bun.which("sleep") as string;
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const linux = process.platform === "linux";

/** Processes a test started itself, killed at its end whatever happened. */
const started = killedAfterEach();
afterAll(cleanupTemp);

function spec(argv: string[], dir = tempDir("skillhub-pipes-")) {
  return { argv, cwd: dir, env, timeoutMs: HANG_MS, maxOutputBytes: 1_048_576 };
}

/** The pids a script printed as "pid <n>" lines. */
const pidsIn = (text: string) => [...text.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));

/** Until the boot clock has moved past the tick `pid` started in: from then on, a run begins after it. */
async function startedBefore(pid: number): Promise<void> {
  const start = readProcStat(`/proc/${pid}`)?.start ?? Number.POSITIVE_INFINITY;
  await eventually(() => (bootTicks() ?? 0) > start);
}

/** Whether any thread of `pid` still runs (a process whose first thread exited shows that one as a zombie). */
function threadsRunning(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return tasks.some((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "latin1");
      return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
    } catch {
      return false;
    }
  });
}

/**
 * A script's lines that leave a process told apart from all others only by the run's output pipe it
 * holds: in a session of its own (setsid), with an empty environment (env -i), and a child of PID 1
 * (its parent, a subshell, has exited).
 */
const escapedChild = (sleepSeconds: number) =>
  `( setsid env -i ${SLEEP} ${sleepSeconds} & echo $! > escaped )\np=$(cat escaped)\nwhile grep -qa SKILLHUB_RUN_ID /proc/$p/environ 2>/dev/null; do :; done\necho pid $p\n`;

describe.skipIf(!linux)("the processes holding a run's output", () => {
  test("one that was running before the run began is not the run's: it survives, holding the pipe", async () => {
    const dir = tempDir("skillhub-pipes-");
    // A process of yours, already running: once the script says its pid, it opens the script's stdout
    // again through /proc (a descriptor of its own on the run's pipe) and keeps it until told to stop.
    const holder = Bun.spawn(
      [
        BASH,
        "-c",
        'while [ ! -e "$1/pid" ]; do sleep 0.01; done\nexec 3>"/proc/$(cat "$1/pid")/fd/1"\ntouch "$1/held"\nwhile [ ! -e "$1/go" ]; do sleep 0.01 3>&-; done\n',
        "holder",
        dir,
      ],
      { stdio: ["ignore", "ignore", "ignore"] },
    );
    started.push(holder.pid);
    await startedBefore(holder.pid);
    const result = await runProcess(
      spec(
        [BASH, "-c", "echo $$ > pid.new; mv pid.new pid\nwhile [ ! -e held ]; do sleep 0.01; done\necho done\n"],
        dir,
      ),
      { graceMs: 400 },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.text).toBe("done\n");
    writeFileSync(join(dir, "go"), "");
    // Ended by itself, not by SIGKILL.
    expect(await holder.exited).toBe(0);
    expect(holder.signalCode).toBeNull();
  });

  test("the process table lists only the processes that began at or after `since`", async () => {
    const dir = tempDir("skillhub-pipes-");
    const wait = ["-c", 'while [ ! -e "$1/go" ]; do sleep 0.01; done', "wait", dir];
    const before = Bun.spawn([BASH, ...wait]);
    started.push(before.pid);
    await startedBefore(before.pid);
    const since = bootTicks();
    const after = Bun.spawn([BASH, ...wait]);
    started.push(after.pid);
    const rows = [...procTable.processes("none", since)].filter((row): row is ProcessRow => row !== undefined);
    const pids = rows.map((row) => row.pid);
    expect(pids).toContain(after.pid);
    expect(pids).not.toContain(before.pid);
    writeFileSync(join(dir, "go"), "");
  });

  test.skipIf(!PYTHON)(
    "the event loop keeps turning while the search reads every descriptor of many processes",
    async () => {
      // Processes holding thousands of descriptors each (none of them the pipe searched for, so every
      // descriptor is read), started after `since`.
      const since = bootTicks();
      const hold =
        "import os, resource, sys, time\n" +
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n" +
        "resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))\n" +
        "fd = os.open('/dev/null', os.O_RDONLY)\n" +
        "for _ in range(min(hard - 16, 12000)):\n    os.dup(fd)\n" +
        "print(len(os.listdir('/proc/self/fd')), flush=True)\n" +
        "sys.stdin.read()\n";
      const holder = async () => {
        const proc = Bun.spawn([PYTHON as string, "-c", hold], { stdin: "pipe", stdout: "pipe" });
        started.push(proc.pid);
        const line = await proc.stdout.getReader().read();
        return { proc, held: Number(new TextDecoder().decode(line.value)) };
      };
      const first = await holder();
      // 64k descriptors in all, whatever this machine's limit per process.
      const holders = [first];
      while (holders.length < 32 && holders.length * Math.max(first.held, 1) < 64_000) holders.push(await holder());

      const timerLateness = async (search: () => unknown) => {
        let last = performance.now();
        let worst = 0;
        const timer = setInterval(() => {
          const now = performance.now();
          worst = Math.max(worst, now - last);
          last = now;
        }, 1);
        await Bun.sleep(5);
        worst = 0;
        last = performance.now();
        await search();
        await Bun.sleep(5);
        clearInterval(timer);
        return worst;
      };
      const none = ["pipe:[0]"];
      // Baseline: the same search without turns of the event loop (as a closing server runs it).
      const blocked = await timerLateness(() =>
        runSearchNow(pipeWriterSteps(none, since), () => {}, Number.POSITIVE_INFINITY),
      );
      let end: string | undefined;
      const turning = await timerLateness(async () => {
        end = await runSearch(pipeWriterSteps(none, since), () => {}, { budgetMs: HANG_MS });
      });
      expect(end).toBe("searched");
      expect(blocked).toBeGreaterThan(50);
      expect(turning).toBeLessThan(blocked / 4);
      for (const { proc } of holders) proc.stdin.end();
    },
  );

  test("a search out of time ends, with what it found so far killed at once", async () => {
    let clock = 0;
    const found: number[] = [];
    function* endless() {
      for (let pid = 1; ; pid++) {
        clock += 10;
        yield pid % 3 === 0 ? pid : undefined;
      }
    }
    const end = await runSearch(endless(), (pid) => found.push(pid), {
      budgetMs: 100,
      now: () => clock,
      pause: async () => {},
    });
    expect(end).toBe("out of time");
    expect(found).toEqual([3, 6, 9]);
  });

  test("a run whose holders are not all found in time is cut there, and says so in the log", async () => {
    const logger = createMemoryLogger("WARN");
    // A table whose search never finds anything and never ends.
    function* endless() {
      for (;;) yield undefined;
    }
    const result = await runProcess(spec([BASH, "-c", escapedChild(300)]), {
      graceMs: 400,
      logger,
      processTable: { processes: procTable.processes, pipeWriters: () => endless() },
    });
    started.push(...pidsIn(result.stdout.text));
    expect(result.exitCode).toBe(0);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toContain(
      `${BASH} left processes holding its output open, and they were not all found within 2 s: its output is cut there, and some of them may still run`,
    );
  });

  test("server shutdown (killAll) kills a process that left the group and cleared its environment, holding the output", async () => {
    const groups = new RunningGroups();
    const s = spec([BASH, "-c", `${escapedChild(300)}touch ready\n${SLEEP} 300\n`]);
    // The run's own end looks for no holder here: only the shutdown can find this one.
    const run = runProcess(s, { graceMs: 400, groups, processTable: { processes: procTable.processes } });
    await eventually(() => existsSync(join(s.cwd, "ready")));
    expect(groups.killAll()).toBe(1);
    const result = await run;
    const pids = pidsIn(result.stdout.text);
    started.push(...pids);
    expect(pids).toHaveLength(1);
    expect(await survivors(pids)).toEqual([]);
  });

  const SYS_EXIT: Record<string, number> = { x64: 60, arm64: 93 };
  test.skipIf(!PYTHON || SYS_EXIT[process.arch] === undefined)(
    "a process whose first thread has exited, listing no descriptors of its own, is found through its live thread",
    async () => {
      // A grandchild in a session of its own whose main thread exits while a second one holds stdout:
      // /proc/<pid>/fd is then empty, and its environment (the marker) unreadable.
      const script = write(
        join(tempDir("skillhub-pipes-"), "leader.py"),
        `import ctypes, os, threading, time
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        threading.Thread(target=lambda: time.sleep(300)).start()
        os.write(w, str(os.getpid()).encode())
        ctypes.CDLL(None).syscall(${SYS_EXIT[process.arch]}, 0)
    os._exit(0)
os.close(w)
os.wait()
pid = os.read(r, 20).decode()
while not open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1].startswith("Z"):
    time.sleep(0.01)
print("pid", pid, flush=True)
`,
      );
      const result = await runProcess(spec([PYTHON as string, script]), { graceMs: 400 });
      const pids = pidsIn(result.stdout.text);
      started.push(...pids);
      expect(pids).toHaveLength(1);
      await eventually(() => pids.every((pid) => !threadsRunning(pid)));
    },
  );

  test.skipIf(!PYTHON)(
    "a process whose thread keeps the output in a descriptor table of its own, the others' closed, is found through that thread",
    async () => {
      // A grandchild in a session of its own, with an empty environment, whose second thread takes a copy
      // of the descriptor table (unshare(CLONE_FILES)) before the first closes stdout and stderr: only
      // /proc/<pid>/task/<tid>/fd of that thread shows the run's pipes.
      const script = write(
        join(tempDir("skillhub-pipes-"), "thread-table.py"),
        `import ctypes, os, sys, threading, time
if len(sys.argv) == 1:
    r, w = os.pipe()
    os.set_inheritable(w, True)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execve(sys.executable, [sys.executable, sys.argv[0], str(w)], {})
        os._exit(0)
    os.close(w)
    os.wait()
    print("pid", os.read(r, 20).decode(), flush=True)
    sys.exit(0)
w = int(sys.argv[1])
copied = threading.Event()
def hold():
    if ctypes.CDLL(None, use_errno=True).unshare(0x400) != 0:
        os._exit(1)
    copied.set()
    time.sleep(300)
threading.Thread(target=hold, daemon=True).start()
copied.wait()
os.close(1)
os.close(2)
os.write(w, str(os.getpid()).encode())
os.close(w)
time.sleep(300)
`,
      );
      const result = await runProcess(spec([PYTHON as string, script]), { graceMs: 400 });
      const pids = pidsIn(result.stdout.text);
      started.push(...pids);
      expect(pids).toHaveLength(1);
      expect(await survivors(pids)).toEqual([]);
    },
  );
});
