/**
 * Read a child's stdout or stderr while it runs, keeping at most `maxBytes`.
 * Everything after the cap is read and dropped, so a chatty child never
 * blocks on a full pipe and the server never holds more than the cap.
 */

export interface Captured {
  /** The first `maxBytes` bytes, decoded as UTF-8 (a character cut by the cap is dropped whole). */
  text: string;
  /** Whether bytes were dropped. */
  truncated: boolean;
  /** Bytes the child wrote, kept or not. */
  totalBytes: number;
}

export interface Capture {
  /** Resolves when the stream ends (every writer closed it) or `stop()` is called. */
  done: Promise<Captured>;
  /** Stop reading now (a writer outlived the process group); returns what was kept. */
  stop(): void;
}

/** Start reading `stream` at once; keeps at most `maxBytes` bytes. */
export function captureStream(stream: ReadableStream<Uint8Array> | null | undefined, maxBytes: number): Capture {
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let totalBytes = 0;
  let truncated = false;
  const reader = stream?.getReader();
  const finish = (): Captured => ({ text: decodeUtf8Prefix(concat(kept, keptBytes)), truncated, totalBytes });
  if (!reader) return { done: Promise.resolve(finish()), stop: () => {} };
  const done = (async () => {
    try {
      for (;;) {
        const { done: ended, value } = await reader.read();
        if (ended) break;
        if (!value) continue;
        totalBytes += value.byteLength;
        const room = maxBytes - keptBytes;
        if (room <= 0) {
          truncated = true;
          continue;
        }
        // Security: keep a copy of at most `room` bytes; the rest of the chunk is dropped here, not buffered.
        const slice = value.byteLength > room ? value.slice(0, room) : value;
        if (value.byteLength > room) truncated = true;
        kept.push(slice);
        keptBytes += slice.byteLength;
      }
    } catch {
      // A cancelled or broken pipe ends the capture; what was read is kept.
    }
    return finish();
  })();
  return {
    done,
    stop: () => {
      reader.cancel().catch(() => {});
    },
  };
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * UTF-8 text of `bytes`, without a trailing partial character (a cap can fall
 * inside one). Invalid sequences elsewhere become U+FFFD. Pure.
 */
export function decodeUtf8Prefix(bytes: Uint8Array): string {
  let end = bytes.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last character.
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && ((bytes[end - back - 1] as number) & 0xc0) === 0x80) back++;
  const leadAt = end - back - 1;
  if (leadAt >= 0) {
    const lead = bytes[leadAt] as number;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (need > back + 1) end = leadAt;
  }
  return new TextDecoder().decode(bytes.subarray(0, end));
}
