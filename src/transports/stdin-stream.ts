import { createReadStream } from "node:fs";

/** Most bytes one read of standard input takes. */
const READ_BYTES = 64 * 1024;

/** What LineTransport reads: `data` (Buffer chunks), `end` and `error` events. */
export interface InputStream {
  on(event: string, listener: (arg: Buffer) => void): unknown;
  off(event: string, listener: (arg: Buffer) => void): unknown;
}

type Listener = (arg?: unknown) => void;

/**
 * Standard input, read as a file (descriptor 0) into buffers of what arrived. Bun's `process.stdin`
 * hands each read over in a buffer of 256 KiB whatever its length: one per JSON-RPC message, garbage
 * that a heap holding 10,000 skills lets pile up before collecting (300 `skill` calls in a row took the
 * server from 177 to 228 MB resident; read this way, 164 to 199). A descriptor a parent left
 * non-blocking refuses such reads (EAGAIN): then `process.stdin`, which polls, takes over, nothing
 * having been read. No node:stream here: start-up loads no built-in beyond fs, path and process.
 */
export function standardInput(
  file: NodeJS.ReadableStream = createReadStream("", { fd: 0, highWaterMark: READ_BYTES }),
  fallback: () => NodeJS.ReadableStream = () => process.stdin,
): InputStream {
  const listeners = new Map<string, Set<Listener>>();
  const emit = (event: string, arg?: unknown) => {
    for (const listener of listeners.get(event) ?? []) listener(arg);
  };
  const follow = (stream: NodeJS.ReadableStream, onError: (error: NodeJS.ErrnoException) => void) => {
    stream.on("data", (chunk) => emit("data", chunk));
    stream.on("end", () => emit("end"));
    stream.once("error", onError);
  };
  let reading = false;
  return {
    on(event, listener) {
      const set = listeners.get(event) ?? new Set<Listener>();
      listeners.set(event, set.add(listener as Listener));
      // The stream flows once listened to: what arrives before a reader listens waits in it, not lost.
      if (event === "data" && !reading) {
        reading = true;
        follow(file, (error) => {
          if (error.code === "EAGAIN") follow(fallback(), (later) => emit("error", later));
          else emit("error", error);
        });
      }
      return this;
    },
    off(event, listener) {
      listeners.get(event)?.delete(listener as Listener);
      return this;
    },
  };
}
