/**
 * Worker script (refresh/watcher.ts, workerWatch): recursive file watchers on large skill folders.
 * Setting one up walks the whole tree at once (Bun adds an inotify watch per folder: 130–170 ms at
 * 10,000 skills, 260–290 ms at 20,000), which here blocks no call; and a burst of events (a git
 * checkout) becomes one message per folder every CHANGE_GAP_MS instead of a callback per file. It also
 * runs the watched check on its own timer when the server hands it over (WorkerCheck).
 */
import { type FSWatcher, realpathSync, statSync, watch } from "node:fs";
import { verifyPacked } from "../sources/walk-record.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { lowerThreadPriority } from "../util/thread-priority.ts";
import { timerPlan, WORKER_CHECK_STATS } from "./timer-plan.ts";
import type { WatchReply, WatchRequest, WorkerCheck } from "./watcher.ts";

declare const self: Worker;
lowerThreadPriority();

/** Least time between two change messages for one folder (the server debounces 500 ms anyway). */
const CHANGE_GAP_MS = 100;

const watchers = new Map<number, FSWatcher>();
const reply = (message: WatchReply) => self.postMessage(message);

/** Changes of `id` reported at most every CHANGE_GAP_MS, the last one never dropped. */
function throttled(id: number): () => void {
  let waiting = false;
  let missed = false;
  const send = () => {
    reply({ id, change: true });
    waiting = true;
    setTimeout(() => {
      waiting = false;
      if (missed) {
        missed = false;
        send();
      }
    }, CHANGE_GAP_MS);
  };
  return () => {
    if (waiting) missed = true;
    else send();
  };
}

/** The watched check handed over (WorkerCheck), and how many it has run (which slice is next). */
let check: { request: WorkerCheck; timer: ReturnType<typeof setInterval> } | undefined;
let checks = 0;
const fs = { statSync, realpathSync };

/** Stat this check's slice of every record; at the first difference, say so and stop checking. */
function runCheck(request: WorkerCheck): void {
  const plan = timerPlan(checks++, true, request.sliced, WORKER_CHECK_STATS);
  for (const packed of request.records) {
    if (verifyPacked(fs, packed, plan)) continue;
    setCheck(null);
    reply({ checkChanged: true });
    return;
  }
}

function setCheck(request: WorkerCheck | null): void {
  if (check) clearInterval(check.timer);
  check = request ? { request, timer: setInterval(() => runCheck(request), request.everyMs) } : undefined;
}

self.onmessage = (event: MessageEvent<WatchRequest>) => {
  const request = event.data;
  if ("check" in request) return setCheck(request.check);
  if ("close" in request) {
    watchers.get(request.close)?.close();
    watchers.delete(request.close);
    return;
  }
  const { id, dir } = request;
  try {
    const watcher = watch(dir, { recursive: true }, throttled(id));
    watcher.on("error", (error) => {
      watcher.close();
      watchers.delete(id);
      reply({ id, error: errorMessage(error) });
    });
    watchers.set(id, watcher);
    reply({ id, ready: true });
  } catch (error) {
    reply({ id, error: errorMessage(error), missing: errnoCode(error) === "ENOENT" });
  }
};
