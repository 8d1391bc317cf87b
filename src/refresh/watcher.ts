import { type FSWatcher, watch as fsWatch } from "node:fs";
import type { PackedRecord } from "../sources/walk-record.ts";
import { errnoCode } from "../util/errors.ts";
import { workerScript } from "../util/worker-task.ts";

/** A watcher set up; `ready` resolves once it is watching (when it is set up asynchronously). */
export interface Watching {
  close(): void;
  ready?: Promise<void>;
}

/**
 * A recursive watcher on `dir`: `onChange` for any change below it, `onError`
 * once when it stops working (the refresher then stats every file at each
 * timer tick instead of a slice). Injectable for tests.
 */
export type WatchFn = (dir: string, onChange: () => void, onError?: (error: unknown) => void) => Watching;

/** fs.watch, recursive, not keeping the process alive. */
export const defaultWatch: WatchFn = (dir, onChange, onError) => {
  const watcher: FSWatcher = fsWatch(dir, { recursive: true, persistent: false }, () => onChange());
  watcher.on("error", (error) => {
    watcher.close();
    onError?.(error);
  });
  return watcher;
};

/**
 * The watched check (timer-plan.ts) run by the watch worker on its own timer: every `everyMs`, a stat
 * check of one slice of the last scan's records (timerPlan with a working watcher, `sliced` entries).
 * Run there, the server's thread allocates nothing between scans, and Bun's collection timer stops
 * collecting its heap (issue 16: idle CPU).
 */
export interface WorkerCheck {
  records: PackedRecord[];
  sliced: number;
  everyMs: number;
}

/** To the watch worker (watch-worker.ts): watch `dir` as `id`, stop watch `id`, or run (or stop: null) the check. */
export type WatchRequest = { id: number; dir: string } | { close: number } | { check: WorkerCheck | null };
/**
 * From it: watch `id` is set up, a change below it, or what stopped it (`missing`: the folder is gone,
 * which fs.watch reports as ENOENT); or that the check found a difference (it then stops checking).
 */
export type WatchReply =
  | { id: number; ready: true }
  | { id: number; change: true }
  | { id: number; error: string; missing?: boolean }
  | { checkChanged: true };

/**
 * Folders a source's scan walked from which its watcher is set up in the watch worker: below this,
 * fs.watch's walk takes under about 15 ms here; a worker costs about 6 MB.
 */
export const WATCH_IN_WORKER_DIRS = 1000;

interface WorkerWatch {
  dir: string;
  onChange: () => void;
  onError?: (error: unknown) => void;
  /** The in-process watcher that took over when the worker failed. */
  fallback?: { close(): void };
  /** Resolves `ready`: set up, failed, or moved to a watcher in process. */
  settle: () => void;
}

interface WatchPool {
  worker: Worker;
  watches: Map<number, WorkerWatch>;
  next: number;
  /** Called when the check handed over ends: it found a difference, or the worker ended. */
  checkOver?: () => void;
}

/**
 * Hand the watched check to the watch worker (or stop it there: null); `over` is called once when it
 * ends: it found a difference (and stopped), or the worker ended. False when no watch worker runs: the
 * caller checks itself.
 */
export function workerCheck(check: WorkerCheck | null, over: () => void): boolean {
  if (!pool) return false;
  pool.checkOver = check ? over : undefined;
  pool.worker.postMessage({ check } satisfies WatchRequest);
  return true;
}

/** Whether the watch worker runs, so that a check can be handed to it (workerCheck). */
export function watchWorkerRunning(): boolean {
  return pool !== undefined;
}

/** The pool is gone: whoever handed it the check checks again. */
function endPool(ended: WatchPool): void {
  if (pool === ended) pool = undefined;
  checkOver(ended);
}

function checkOver(ended: WatchPool): void {
  const over = ended.checkOver;
  ended.checkOver = undefined;
  over?.();
}

let pool: WatchPool | undefined;
/** The worker could not run (its script failed to load, or it died): watch in process from now on. */
let workerBroken = false;

/**
 * A recursive watcher on `dir` run in one shared worker thread (watch-worker.ts), for large trees:
 * the walk fs.watch makes to set up a recursive watch blocks its thread (issue 16: 130–290 ms at
 * 10,000–20,000 skills, every call waiting). The worker ends when its last watch is closed and never
 * keeps the process alive. Should it fail, each of its watches moves to a watcher in process.
 */
export const workerWatch: WatchFn = (dir, onChange, onError) => {
  const current = workerBroken ? undefined : (pool ?? startPool());
  if (!current) return defaultWatch(dir, onChange, onError);
  const id = current.next++;
  let settle!: () => void;
  const ready = new Promise<void>((resolve) => (settle = resolve));
  const watch: WorkerWatch = { dir, onChange, onError, settle };
  current.watches.set(id, watch);
  current.worker.postMessage({ id, dir } satisfies WatchRequest);
  return {
    ready,
    close() {
      settle();
      watch.fallback?.close();
      if (!current.watches.delete(id)) return;
      current.worker.postMessage({ close: id } satisfies WatchRequest);
      if (current.watches.size === 0) {
        // Closed on purpose (a scan dropped the folder, or the server stops): that scan's records are the server's.
        current.checkOver = undefined;
        current.worker.terminate();
        endPool(current);
      }
    },
  };
};

function startPool(): WatchPool | undefined {
  let worker: Worker;
  try {
    worker = new Worker(workerScript("refresh/watch-worker.ts"));
  } catch {
    workerBroken = true;
    return undefined;
  }
  const started: WatchPool = { worker, watches: new Map(), next: 1 };
  worker.unref();
  worker.onmessage = (event: MessageEvent<WatchReply>) => {
    const reply = event.data;
    if ("checkChanged" in reply) return checkOver(started);
    const watch = started.watches.get(reply.id);
    if (!watch) return;
    if ("ready" in reply) return watch.settle();
    if ("change" in reply) return watch.onChange();
    started.watches.delete(reply.id);
    watch.settle();
    if (!reply.missing) watch.onError?.(new Error(reply.error));
  };
  const failed = () => {
    endPool(started);
    if (started.watches.size === 0) return;
    workerBroken = true;
    for (const watch of started.watches.values()) {
      try {
        watch.fallback = defaultWatch(watch.dir, watch.onChange, watch.onError);
      } catch (error) {
        if (errnoCode(error) !== "ENOENT") watch.onError?.(error);
      }
      watch.settle();
    }
    started.watches.clear();
  };
  worker.onerror = failed;
  worker.addEventListener("close", failed);
  pool = started;
  return started;
}
