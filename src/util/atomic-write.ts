import {
  closeSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { errorMessage } from "./errors.ts";
import type { Logger } from "./logger.ts";

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

/** A name tempBeside gives: `<target>.<pid>-<random>-<count>.tmp`. */
const TEMP_NAME = /\.\d+-[0-9a-z]{0,8}-\d+\.tmp$/;

/**
 * Temporary files older than this (ms) were left by a process that died mid-write: a live write adds to
 * its file at least every few seconds, so one untouched for ten minutes has no writer.
 */
export const STALE_TEMP_MS = 10 * 60_000;

/**
 * Remove the temporary files a process killed mid-write left in `folder` (a client that stops its server
 * while it saves the catalog leaves one of 1–3 MB, and every later start would keep it): those named as
 * tempBeside names them, regular files untouched for STALE_TEMP_MS. Returns how many went; never throws.
 */
export function removeStaleTemporaries(folder: string, logger?: Logger, now = Date.now()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!TEMP_NAME.test(name)) continue;
    const path = join(folder, name);
    try {
      const stat = lstatSync(path);
      if (!stat.isFile() || now - stat.mtimeMs < STALE_TEMP_MS) continue;
      rmSync(path, { force: true });
      removed++;
    } catch (error) {
      logger?.debug(`cannot remove ${path}: ${errorMessage(error)}`);
    }
  }
  if (removed > 0)
    logger?.debug(`removed ${removed} temporary file${removed === 1 ? "" : "s"} left by a stopped write in ${folder}`);
  return removed;
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
