import { readSync } from "node:fs";
import {
  CHUNK,
  type ConfinedFailure,
  type ConfinedReadOptions,
  fail,
  MAX_INSTRUCTIONS_BYTES,
  withConfinedFile,
} from "./confined-read.ts";

/**
 * The confined reader's streaming form: every check of readConfined (confined-read.ts), then the file
 * in bounded chunks, for readers that must never hold a large file whole (the search index).
 */

/** What readConfinedChunks reports once the file has been read (or `onChunk` asked to stop). */
export interface ConfinedStream {
  ok: true;
  /** Bytes passed to onChunk. */
  read: number;
  size: number;
  /** Stopped before the end of the file (by onChunk, or at maxBytes). */
  truncated: boolean;
  real: string;
}

/**
 * readConfined's checks, then the file in chunks of at most 64 KiB through one reused buffer, so a
 * large file is never held whole (the search index streams bodies this way). `onChunk` gets a view
 * that is overwritten by the next read (copy what you keep) and returns false to stop. At most
 * `maxBytes` are read; a larger file is read up to that and reported truncated (never refused).
 */
export function readConfinedChunks(
  options: Omit<ConfinedReadOptions, "overflow">,
  onChunk: (bytes: Uint8Array) => boolean,
): ConfinedStream | ConfinedFailure {
  const maxBytes = options.maxBytes ?? MAX_INSTRUCTIONS_BYTES;
  return withConfinedFile({ ...options, overflow: "truncate" }, (fd, stat, real) => {
    const now = options.now ?? Date.now;
    const deadline = now() + (options.timeBudgetMs ?? 2000);
    // One buffer for every streamed file (a fresh 64 KiB per SKILL.md was 640 MB of garbage per
    // index build at 10,000 skills); a nested call (onChunk reading another file) gets its own.
    const buffer = spare ?? Buffer.allocUnsafe(CHUNK);
    spare = undefined;
    let read = 0;
    let stopped = false;
    while (read < maxBytes) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, maxBytes - read), read);
      if (n === 0) break;
      options.onRead?.(buffer.subarray(0, n), read);
      read += n;
      if (!onChunk(buffer.subarray(0, n))) {
        stopped = true;
        break;
      }
      if (now() > deadline) return fail("READ_TIMEOUT", `'${options.file}' took too long to read; try again.`);
    }
    spare = buffer;
    return { ok: true, read, size: Math.max(stat.size, read), truncated: stopped || stat.size > read, real };
  });
}

/** The chunk buffer readConfinedChunks reuses (not in use while it is undefined). */
let spare: Buffer | undefined;
