import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createServer } from "../server/create-server.ts";
import type { Hub } from "../server/hub.ts";
import { errorMessage } from "../util/errors.ts";

export interface StdioOptions {
  stdin?: NodeJS.ReadableStream & { on(event: string, fn: (...args: unknown[]) => void): unknown };
  stdout?: NodeJS.WritableStream;
  /** Signals that end the server. Default: SIGINT, SIGTERM, SIGHUP. */
  signals?: readonly NodeJS.Signals[];
}

/**
 * Serve one client over stdin/stdout. Resolves when the client goes away
 * (stdin ends) or a signal arrives: the SDK's transport does not exit on
 * its own. Nothing but JSON-RPC is written to stdout.
 */
export async function serveStdio(hub: Hub, options: StdioOptions = {}): Promise<string> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const server = createServer(hub);
  const transport = new StdioServerTransport(stdin as never, stdout as never);
  transport.onerror = (error) => hub.logger.warn(`ignored a malformed message on stdin: ${errorMessage(error)}`);
  let finish!: (why: string) => void;
  const done = new Promise<string>((resolve) => (finish = resolve));
  const onSignal = (signal: NodeJS.Signals) => finish(signal);
  for (const signal of options.signals ?? (["SIGINT", "SIGTERM", "SIGHUP"] as const)) process.on(signal, onSignal);
  stdin.on("end", () => finish("stdin ended"));
  stdin.on("close", () => finish("stdin closed"));
  // A client that vanished mid-write: nothing left to talk to.
  stdout.on("error", () => finish("stdout closed"));
  await server.connect(transport);
  startAfterFirstMessage(transport, hub);
  const why = await done;
  for (const signal of options.signals ?? (["SIGINT", "SIGTERM", "SIGHUP"] as const)) process.off(signal, onSignal);
  // Stops the timers and sends the last analytics events (bounded by a short timeout).
  await hub.shutdown();
  await server.close().catch(() => undefined);
  return why;
}

/**
 * Start scanning once the first message has been handled (its reply written), so `initialize`
 * is not answered behind the first scan (issue 16: ×1.69 → ×1.42 the floor at 10,000 skills).
 * A request that needs the catalog waits for it as before; with no message at all the scan
 * starts after a second anyway, so git sync and analytics are not held back.
 */
function startAfterFirstMessage(transport: StdioServerTransport, hub: Hub): void {
  let started = false;
  const begin = () => {
    if (started) return;
    started = true;
    clearTimeout(timer);
    void hub.start();
  };
  const timer = setTimeout(begin, 1000);
  const handle = transport.onmessage;
  transport.onmessage = (...args: Parameters<NonNullable<typeof handle>>) => {
    handle?.(...args);
    // After the handler's microtasks: the reply to this message is already on its way.
    if (!started) setImmediate(begin);
  };
}
