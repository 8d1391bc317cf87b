import { catalogStamps } from "../catalog/catalog-stamps.ts";
import { readSnapshot, saveSnapshot, snapshotFile } from "../server/catalog-snapshot.ts";
import { createServer } from "../server/create-server.ts";
import type { Hub } from "../server/hub.ts";
import { errorMessage } from "../util/errors.ts";
import { bounded } from "./bounded.ts";
import { serveStdioEntry } from "./stdio-entry.ts";
import { type InputStream, LineTransport } from "./stdio-lines.ts";

/** The scan starts at the client's first message, or after this long without one (ms). */
const IDLE_START_MS = 1000;

/**
 * Longest wait, when a client leaves during the first scan, for that scan to end and be kept (ms): within the
 * shutdown's budget, with room for the rest of the shutdown.
 */
const SCAN_FINISH_MS = 1500;

/** Changes in a burst are kept once, this long after the last (ms): writing 10,000 skills takes a moment. */
const SNAPSHOT_SAVE_DELAY_MS = 2000;

export interface StdioOptions {
  stdin?: InputStream;
  stdout?: NodeJS.WritableStream;
  /** Signals that end the server. Default: SIGINT, SIGTERM, SIGHUP. */
  signals?: readonly NodeJS.Signals[];
  /** Longest message line (bytes). Default 4 MiB. */
  maxLineBytes?: number;
}

/**
 * Serve one client over stdin/stdout, on whichever revision it opens with
 * (2025 initialize, or 2026 per-request envelopes: stdio-entry.ts). Resolves when the client goes away (stdin ends)
 * or a signal arrives. Nothing but JSON-RPC is written to stdout.
 */
export async function serveStdio(hub: Hub, options: StdioOptions = {}): Promise<string> {
  // Bun 1.4.5's process.stdin hands over each read in a buffer of its own length (1.3.14's took 256 KiB
  // each, which SkillHub then avoided by reading descriptor 0 as a file; a `ping` now answers 0.14 ms
  // after it is sent instead of that file stream's 0.19).
  const stdin = options.stdin ?? (process.stdin as InputStream);
  const stdout = options.stdout ?? process.stdout;
  let finish!: (why: string) => void;
  const done = new Promise<string>((resolve) => (finish = resolve));
  const transport = new LineTransport({
    stdin,
    stdout,
    maxLineBytes: options.maxLineBytes,
    onRejected: (reason) => hub.logger.warn(`stdin: ${reason}`),
    onMessage: () => hub.memory.busy(),
    onUnsent: (reason) => hub.logger.error(`stdout: ${reason}`),
  });
  // initialize is answered at once, before the scan competes for the CPU; the scan starts right after.
  // With the last run's snapshot, its header names skills in the instructions and its catalog answers
  // tools/list while a large catalog is still being scanned. Without one (a first start), the
  // instructions name none and tools/list waits a moment for the scan, then lists the tools with the
  // skills still being read (list_changed follows). Calls always wait for the scan.
  const file = snapshotFile(hub);
  // Security: frozen, nothing is listed from a cache (a snapshot's names and descriptions carry no proof of
  // the bytes they came from): every SKILL.md is parsed from disk and checked against the lock.
  const snapshot = hub.frozen ? undefined : readSnapshot(file, hub.logger, hub.sources());
  // Saves one at a time, in order (each pauses between pieces): a later one is never overtaken.
  let saving = Promise.resolve();
  const keep = debounced(() => {
    saving = saving.then(() => saveSnapshot(hub, file));
  }, SNAPSHOT_SAVE_DELAY_MS);
  let scanned = false;
  void hub.ready.then(
    () => {
      scanned = true;
      // An unchanged catalog is not written again.
      const catalog = hub.catalog;
      if (catalog.contentHash !== snapshot?.contentHash || catalogStamps(catalog) !== snapshot.stamps) keep.now();
    },
    () => undefined,
  );
  const unkeep = hub.store.onChange(() => {
    if (scanned) keep.later();
  });
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    const catalog = snapshot?.catalog();
    const reused = catalog && hub.refresher.seed(catalog);
    // What parsing it left behind, before the scan adds its own.
    if (reused !== undefined) hub.memory.collectNow();
    if (catalog && reused !== undefined)
      hub.logger.debug(
        `catalog snapshot: ${catalog.size} skills listed until the first scan ends, which reads only the SKILL.md files changed since (${reused} parses kept; ${file})`,
      );
    void hub.start();
  };
  const factory = async () => {
    const server = createServer(hub, snapshot && !scanned ? { namedSkills: snapshot.named } : {});
    // After this turn: the initialize answer is written first, then the snapshot is parsed and the scan starts.
    setImmediate(start);
    return server;
  };
  const handle = serveStdioEntry(transport, {
    factory,
    onerror: (error) => hub.logger.debug(`stdio: ${errorMessage(error)}`),
    onclose: () => finish("stdin ended"),
  });
  const onSignal = (signal: NodeJS.Signals) => finish(signal);
  const signals = options.signals ?? (["SIGINT", "SIGTERM", "SIGHUP"] as const);
  for (const signal of signals) process.on(signal, onSignal);
  // A client that vanished mid-write: nothing left to talk to.
  stdout.on("error", () => finish("stdout closed"));
  const idleStart = setTimeout(start, IDLE_START_MS);
  const why = await done;
  // A first scan under way when the client left (see below).
  const scanning = started && !scanned;
  // Closing: a start still queued (setImmediate after initialize) must not start a hub being shut down.
  started = true;
  clearTimeout(idleStart);
  keep.cancel();
  for (const signal of signals) process.off(signal, onSignal);
  unkeep();
  // Bounded: a signal must end the process within seconds whatever is still running.
  const ended = await bounded(
    (async () => {
      await handle.close().catch(() => undefined);
      // A client that lists once and goes (an inspector, a health check) may leave before the first scan
      // ends: it is finished and kept, or every such start would scan from nothing or list a stale snapshot.
      // Not for long: a repository sync can hold that scan for seconds.
      if (scanning && why === "stdin ended") await bounded(hub.ready, SCAN_FINISH_MS);
      // A snapshot being written is finished (not left as a temporary file).
      await saving;
      // Stops the timers and sends the last analytics events.
      await hub.shutdown();
    })(),
  );
  // Out of time: the hub is closed all the same, which ends a clone or fetch and a script still running.
  if (!ended) hub.close();
  return why;
}

/** `fn` now, or once `ms` after the last `later()`; `cancel()` drops a pending one. */
function debounced(fn: () => void, ms: number): { now(): void; later(): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return {
    now: () => {
      cancel();
      fn();
    },
    later: () => {
      cancel();
      timer = setTimeout(() => {
        timer = undefined;
        fn();
      }, ms);
      timer.unref?.();
    },
    cancel,
  };
}
