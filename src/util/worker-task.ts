import { COMPILED } from "./compiled.ts";
import { errorMessage } from "./errors.ts";
import { nextTurn } from "./next-turn.ts";

/**
 * One task run in a Worker thread, for work whose garbage would otherwise stay resident: a first scan
 * reads and parses every SKILL.md, a first index build reads every body. The garbage is collected
 * in the server's heap too, but JavaScriptCore keeps the fragmented pages, so resident memory stayed
 * about 2.5 times the live data; a worker's whole heap goes back when it ends, and only its answer,
 * copied compactly, is kept (bench/memory.ts measures it).
 */

/** Messages a worker script posts: any number of parts, then `done` or `error`. */
export type WorkerReply<P, D> = { part: P } | { done: D } | { error: string };

/**
 * Where a worker script is, given its path under src/. scripts/build.ts adds each one as an entry point
 * of the binary, where it lives at that path under the embedded root; from source it is a file.
 */
export function workerScript(fromSrc: string): string {
  return COMPILED ? `./${fromSrc}` : new URL(`../${fromSrc}`, import.meta.url).href;
}

/** What a request message carries besides its batch: the last one says so. */
export interface Batch<T> {
  batch: T[];
  last: boolean;
}

/**
 * Items per request message. Posting copies the message on the posting thread: 10,000 skills in one
 * message held the event loop 130-160 ms, a batch of 500 10-20 ms on a slower machine (calls made as a
 * first start's index build began waited up to 54 ms behind such copies; 44 with 125).
 */
export const BATCH = 125;

/**
 * Start a worker running `script`, post it `items` in batches (one per turn of the event loop, each
 * with `extra`), hand each part it sends back to `onPart`, and resolve with its `done` value. Rejects
 * (and ends the worker) when the script fails to load, throws, reports an error or exits without an
 * answer, so a caller can do the work itself instead.
 */
export function runWorker<T, X extends object, P, D, U = T>(
  script: string,
  items: readonly T[],
  extra: X,
  onPart: (part: P) => void,
  /** What of an item is posted, made batch by batch (10,000 copies at once held the event loop 16 ms). */
  shape: (item: T) => U = (item) => item as unknown as U,
): Promise<D> {
  return new Promise<D>((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(script);
    } catch (error) {
      reject(new Error(`cannot start worker ${script}: ${errorMessage(error)}`));
      return;
    }
    let settled = false;
    const end = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      worker.terminate();
      outcome();
    };
    worker.onmessage = (event: MessageEvent<WorkerReply<P, D>>) => {
      const reply = event.data;
      if ("part" in reply) {
        try {
          onPart(reply.part);
        } catch (error) {
          end(() => reject(error));
        }
      } else if ("done" in reply) end(() => resolve(reply.done));
      else end(() => reject(new Error(reply.error)));
    };
    worker.onerror = (event) => end(() => reject(new Error(`worker ${script} failed: ${event.message}`)));
    worker.addEventListener("close", () => end(() => reject(new Error(`worker ${script} exited without an answer`))));
    void (async () => {
      for (let from = 0; !settled; from += BATCH) {
        const last = from + BATCH >= items.length;
        const message: Batch<U> & X = { ...extra, batch: items.slice(from, from + BATCH).map(shape), last };
        worker.postMessage(message);
        if (last) return;
        await nextTurn();
      }
    })();
  });
}
