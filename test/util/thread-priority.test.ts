import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** A thread's nice value, from /proc (the 19th field of its stat line). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

describe.if(process.platform === "linux")("lowerThreadPriority (background workers yield the CPU)", () => {
  test("lowers the worker's own thread, not the process's main thread", async () => {
    const util = join(import.meta.dir, "..", "..", "src", "util", "thread-priority.ts");
    const file = write(
      join(tempDir("skillhub-priority-"), "task.ts"),
      `import { readlinkSync } from "node:fs";
       import { lowerThreadPriority } from ${JSON.stringify(util)};
       lowerThreadPriority();
       self.postMessage(Number(readlinkSync("/proc/thread-self").split("/").pop()));
       // Alive until terminated, so that its /proc entry is still there to read.
       self.onmessage = () => undefined;`,
    );
    // What the process runs at (0, or 19 under nice -n 19): the worker goes to 10 unless already lower.
    const base = niceOf(process.pid);
    const worker = new Worker(file);
    const tid = await new Promise<number>((resolve) => {
      worker.onmessage = (event) => resolve(event.data as number);
    });
    try {
      expect(niceOf(tid)).toBe(Math.max(base, 10));
      expect(niceOf(process.pid)).toBe(base);
    } finally {
      worker.terminate();
    }
  });
});
