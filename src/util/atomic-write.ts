import { closeSync, fchmodSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Atomic writes: a temporary file beside the target, renamed into place when complete, so a reader
 * never sees half a file and a file another process has mapped (the search index) is never changed
 * in place, only replaced. The temporary file is removed when the write fails. A file replaced keeps
 * its permissions (a config file made private stays private), unless the write names its own.
 */

export interface AtomicWriteOptions {
  /** Permission bits of the file written, whatever the file it replaces had. Default: that file's, else the umask's. */
  mode?: number;
}

let writes = 0;

/** A temporary name beside `path`, its folder made: never the same twice, across threads and processes. */
function tempBeside(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  return `${path}.${process.pid}-${Math.random().toString(36).slice(2, 8)}-${++writes}.tmp`;
}

/** The permission bits of the file at `path`, when there is one. */
function modeOf(path: string): number | undefined {
  const mode = statSync(path, { throwIfNoEntry: false })?.mode;
  return mode === undefined ? undefined : mode & 0o7777;
}

/**
 * Write `pieces` to `path` atomically, off the event loop, one piece at a time: each string is encoded
 * as its turn comes (one Blob of a 20,000-skill catalog snapshot encoded it all at once, a 30–60 ms
 * pause of every call), and no copy of them all is made. An async iterable is read as it is written, so
 * a large file need never be held whole.
 */
export async function writeAtomic(
  path: string,
  pieces: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempBeside(path);
  const mode = options.mode ?? modeOf(path);
  try {
    const file = await open(temp, "w");
    try {
      if (mode !== undefined) await file.chmod(mode);
      for await (const piece of pieces) {
        const bytes = typeof piece === "string" ? Buffer.from(piece) : piece;
        for (let at = 0; at < bytes.byteLength; ) at += (await file.write(bytes, at)).bytesWritten;
      }
    } finally {
      await file.close();
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Write `pieces` to `path` atomically, blocking, piece by piece (never a second copy of them all in memory). */
export function writeAtomicSync(
  path: string,
  pieces: readonly (Uint8Array | string)[],
  options: AtomicWriteOptions = {},
): void {
  const temp = tempBeside(path);
  const mode = options.mode ?? modeOf(path);
  try {
    const fd = openSync(temp, "w");
    try {
      if (mode !== undefined) fchmodSync(fd, mode);
      for (const piece of pieces) {
        const bytes = typeof piece === "string" ? Buffer.from(piece) : piece;
        for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at);
      }
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
