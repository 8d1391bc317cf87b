import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runWorker } from "../../src/util/worker-task.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** A worker script in a temporary folder. */
const script = (text: string) => write(join(tempDir("skillhub-worker-"), "task.ts"), text);

describe("runWorker: one task in a worker thread", () => {
  test("parts arrive in order before the answer", async () => {
    const file = script(
      "self.onmessage = (e) => { for (let i = 0; i < e.data; i++) postMessage({ part: i }); postMessage({ done: 'end' }); };",
    );
    const parts: number[] = [];
    expect(await runWorker<number, string>(file, 3, (p) => parts.push(p))).toBe("end");
    expect(parts).toEqual([0, 1, 2]);
  });

  test("an error the script reports, a throw, a missing script and an exit without an answer all reject", async () => {
    const reported = script("self.onmessage = () => postMessage({ error: 'no such thing' });");
    await expect(runWorker(reported, 0, () => undefined)).rejects.toThrow("no such thing");
    const thrown = script("self.onmessage = () => { throw new Error('boom'); };");
    await expect(runWorker(thrown, 0, () => undefined)).rejects.toThrow("boom");
    await expect(runWorker(join(tempDir(), "missing.ts"), 0, () => undefined)).rejects.toThrow();
    const exits = script("self.onmessage = () => process.exit(0);");
    await expect(runWorker(exits, 0, () => undefined)).rejects.toThrow("without an answer");
  });

  test("a part the caller cannot take ends the task with that error", async () => {
    const file = script(
      "self.onmessage = () => { postMessage({ part: 1 }); setTimeout(() => postMessage({ done: 1 }), 50); };",
    );
    await expect(
      runWorker(file, 0, () => {
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
  });
});
