import { PassThrough } from "node:stream";
import {
  Client,
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import type { Hub } from "../../src/server/hub.ts";
import { serveStdio } from "../../src/transports/stdio.ts";

/** The client's end of a stdio connection served in process: it writes the server's stdin, reads its stdout. */
class PipeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly stdin: PassThrough,
    private readonly stdout: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.stdout.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage())
        this.onmessage?.(message);
    });
    this.stdout.on("end", () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.stdin.end();
  }
}

/**
 * A real SDK Client talking to serveStdio(hub) over in-process pipes: the whole stdio path (the entry,
 * the snapshot, when the scan starts) as a client's spawned server has it. `listChanged()` resolves at
 * the next tools/list_changed, or at once for one already received and not yet awaited.
 */
export async function stdioClient(hub: Hub) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const done = serveStdio(hub, { stdin, stdout, signals: [] });
  const client = new Client({ name: "test", version: "1.0.0" });
  let unseen = 0;
  let wake: (() => void) | undefined;
  client.setNotificationHandler("notifications/tools/list_changed", async () => {
    unseen++;
    wake?.();
  });
  await client.connect(new PipeTransport(stdin, stdout));
  return {
    client,
    /** tools/list_changed notifications received and not yet awaited. */
    pendingChanges: () => unseen,
    listChanged: async () => {
      while (unseen === 0) await new Promise<void>((resolve) => (wake = resolve));
      unseen--;
    },
    close: async () => {
      await client.close();
      await done;
    },
  };
}
