import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BATCH, runWorker } from "../../src/util/worker-task.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** A worker script in a temporary folder. */
const script = (text: string) => write(join(tempDir("skillhub-worker-"), "task.ts"), text);

describe("runWorker: one task in a worker thread", () => {
  test("items arrive in batches of BATCH, in order, with the extra fields; parts come back before the answer", async () => {
    const file = script(`
      const seen = [];
      let messages = 0;
      self.onmessage = (e) => {
        messages++;
        for (const item of e.data.batch) seen.push(item * e.data.factor);
        postMessage({ part: e.data.batch.length });
        if (e.data.last) postMessage({ done: { seen, messages } });
      };`);
    const items = Array.from({ length: BATCH * 2 + 7 }, (_, i) => i);
    const parts: number[] = [];
    const done = await runWorker<number, { factor: number }, number, { seen: number[]; messages: number }>(
      file,
      items,
      { factor: 2 },
      (p) => parts.push(p),
    );
    expect(done.messages).toBe(3);
    expect(parts).toEqual([BATCH, BATCH, 7]);
    expect(done.seen).toEqual(items.map((i) => i * 2));
    // No items: one empty last batch, so the script still answers.
    const empty = await runWorker<number, { factor: number }, number, unknown>(
      file,
      [],
      { factor: 1 },
      () => undefined,
    );
    expect(empty).toEqual({ seen: [], messages: 1 });
  });

  test("what is posted of each item is made batch by batch, as the batches go", async () => {
    const file = script(`
      const seen = [];
      self.onmessage = (e) => {
        seen.push(...e.data.batch);
        if (e.data.last) postMessage({ done: seen });
      };`);
    const items = Array.from({ length: BATCH + 3 }, (_, i) => ({ i, secret: "not posted" }));
    let shaped = 0;
    const shapedWhenFirstPosted: number[] = [];
    const done = await runWorker<(typeof items)[number], object, never, { i: number }[], { i: number }>(
      file,
      items,
      {},
      () => undefined,
      ({ i }) => {
        if (++shaped === 1) queueMicrotask(() => shapedWhenFirstPosted.push(shaped));
        return { i };
      },
    );
    expect(done).toEqual(items.map(({ i }) => ({ i })));
    // The first batch went before the second was shaped.
    expect(shapedWhenFirstPosted).toEqual([BATCH]);
  });

  test("an error the script reports, a throw, a missing script and an exit without an answer all reject", async () => {
    const run = (file: string) => runWorker(file, [1], {}, () => undefined);
    await expect(run(script("self.onmessage = () => postMessage({ error: 'no such thing' });"))).rejects.toThrow(
      "no such thing",
    );
    await expect(run(script("self.onmessage = () => { throw new Error('boom'); };"))).rejects.toThrow("boom");
    await expect(run(join(tempDir(), "missing.ts"))).rejects.toThrow();
    await expect(run(script("self.onmessage = () => process.exit(0);"))).rejects.toThrow("without an answer");
  });

  test("a part the caller cannot take ends the task with that error", async () => {
    const file = script(
      "self.onmessage = () => { postMessage({ part: 1 }); setTimeout(() => postMessage({ done: 1 }), 50); };",
    );
    await expect(
      runWorker(file, [1], {}, () => {
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
  });
});
