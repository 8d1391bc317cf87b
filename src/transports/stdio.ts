import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { createServer } from "../server/create-server.ts";
import type { Hub } from "../server/hub.ts";
import { loadNamedSkills, namedSkillsFile, saveNamedSkills } from "../server/named-skills.ts";
import { errorMessage } from "../util/errors.ts";
import { bounded } from "./bounded.ts";
import { LineTransport } from "./stdio-lines.ts";

/** How long the first answer waits for the first scan, so the instructions can name skills (ms). */
const INSTRUCTIONS_WAIT_MS = 1500;

export interface StdioOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Signals that end the server. Default: SIGINT, SIGTERM, SIGHUP. */
  signals?: readonly NodeJS.Signals[];
  /** Longest message line (bytes). Default 4 MiB. */
  maxLineBytes?: number;
}

/**
 * Serve one client over stdin/stdout, on whichever revision it opens with
 * (2025 initialize, or 2026 per-request envelopes: the SDK's serveStdio pins
 * the era per connection). Resolves when the client goes away (stdin ends)
 * or a signal arrives. Nothing but JSON-RPC is written to stdout.
 */
export async function serveStdio(hub: Hub, options: StdioOptions = {}): Promise<string> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  let finish!: (why: string) => void;
  const done = new Promise<string>((resolve) => (finish = resolve));
  const transport = new LineTransport({
    stdin,
    stdout,
    maxLineBytes: options.maxLineBytes,
    onRejected: (reason) => hub.logger.warn(`stdin: ${reason}`),
  });
  // The instructions name skills. With the names kept by the last run, answer at once (the first scan of a
  // large catalog must not delay initialize); on a first run, wait briefly for the first scan instead.
  const namedFile = namedSkillsFile(hub);
  const kept = loadNamedSkills(namedFile);
  let scanned = false;
  void hub.ready.then(
    () => {
      scanned = true;
      saveNamedSkills(hub, namedFile);
    },
    () => undefined,
  );
  const unkeep = hub.store.onChange(() => saveNamedSkills(hub, namedFile));
  const factory = async () => {
    if (kept && !scanned) return createServer(hub, { namedSkills: kept });
    await bounded(hub.ready, INSTRUCTIONS_WAIT_MS);
    return createServer(hub);
  };
  const handle = sdkServeStdio(factory, {
    transport,
    onerror: (error) => hub.logger.debug(`stdio: ${errorMessage(error)}`),
  });
  const previousOnClose = transport.onclose;
  transport.onclose = () => {
    previousOnClose?.();
    finish("stdin ended");
  };
  const onSignal = (signal: NodeJS.Signals) => finish(signal);
  const signals = options.signals ?? (["SIGINT", "SIGTERM", "SIGHUP"] as const);
  for (const signal of signals) process.on(signal, onSignal);
  // A client that vanished mid-write: nothing left to talk to.
  stdout.on("error", () => finish("stdout closed"));
  void hub.start();
  const why = await done;
  for (const signal of signals) process.off(signal, onSignal);
  unkeep();
  // Bounded: a signal must end the process within seconds whatever is still running.
  await bounded(
    (async () => {
      await handle.close().catch(() => undefined);
      // Stops the timers and sends the last analytics events.
      await hub.shutdown();
    })(),
  );
  return why;
}
