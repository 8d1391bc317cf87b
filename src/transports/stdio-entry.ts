import { type JSONRPCMessage, type McpServer, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import type { LineTransport } from "./stdio-lines.ts";

export interface StdioEntryOptions {
  /** Makes the connection's server (once, when the first message has come). */
  factory: () => Promise<McpServer>;
  onerror: (error: Error) => void;
  /** The transport closed (stdin ended), whichever way the connection is served. */
  onclose: () => void;
}

/**
 * One stdio connection, served on the revision the client opens with. A 2025-era `initialize` (no
 * envelope claim in its `_meta`: every client today) gets its server connected to the transport itself,
 * which is what the SDK's entry does once it has pinned that era, without the entry checking every
 * message in and out against the SDK's message schemas on the way (about 20 µs of a `skill`
 * call). Any other opening goes to the SDK's entry, which classifies it (2026-07-28 envelopes,
 * `server/discover`, a malformed claim). Messages that come before the server is connected are held
 * and then delivered in order.
 */
export function serveStdioEntry(transport: LineTransport, options: StdioEntryOptions): { close(): Promise<void> } {
  const held: JSONRPCMessage[] = [];
  let closeServer: () => Promise<void> = async () => undefined;
  let closing = false;
  transport.onclose = options.onclose;
  const hold = (message: JSONRPCMessage) => {
    held.push(message);
    if (held.length === 1) open(message).catch(failed);
  };
  // As the SDK's entry does: the requests held are answered with an internal error, and the next
  // message tries again.
  const failed = (error: Error) => {
    options.onerror(error);
    transport.onmessage = hold;
    for (const message of held.splice(0))
      if ("method" in message && "id" in message) transport.sendInternalError(message.id);
  };
  transport.onmessage = hold;
  const open = async (first: JSONRPCMessage) => {
    if (isLegacyOpening(first)) {
      const server = await options.factory();
      if (closing) return void (await server.close());
      closeServer = () => server.close();
      // connect() keeps the handlers it finds and calls them first: the close one, not the holding one.
      transport.onmessage = undefined;
      await server.connect(transport);
    } else {
      const handle = sdkServeStdio(options.factory, { transport, onerror: options.onerror });
      closeServer = () => handle.close();
      // The entry replaces the transport's handlers: ours must still hear the close.
      const entry = transport.onclose;
      transport.onclose = () => {
        entry?.();
        options.onclose();
      };
    }
    // In this turn, so before any message read after them.
    for (const message of held.splice(0)) transport.onmessage?.(message);
  };
  void transport.start();
  return {
    close: async () => {
      closing = true;
      await closeServer();
      await transport.close();
    },
  };
}

/** The SDK entry's legacy rule for an opening `initialize`: one without the 2026 envelope claim. */
function isLegacyOpening(message: JSONRPCMessage): boolean {
  if (!("method" in message) || message.method !== "initialize" || !("id" in message)) return false;
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta !== "object" || meta === null || !(PROTOCOL_VERSION_META_KEY in meta);
}
