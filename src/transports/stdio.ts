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
  void hub.start();
  const why = await done;
  for (const signal of options.signals ?? (["SIGINT", "SIGTERM", "SIGHUP"] as const)) process.off(signal, onSignal);
  // Stops the timers and sends the last analytics events (bounded by a short timeout).
  await hub.shutdown();
  await server.close().catch(() => undefined);
  return why;
}
