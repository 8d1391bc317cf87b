import { closeSync, openSync, readSync } from "node:fs";

/**
 * Whether a process's initial environment (/proc/<pid>/environ: `NAME=value` entries, each ending in a
 * NUL) holds one entry, read a part at a time. An environment can be megabytes, and a script can leave
 * hundreds of processes with one: read whole, each would be copied into the server's memory, and the
 * search would read on long after the entry was found.
 */

/** Most bytes read at once. */
export const ENVIRON_PART_BYTES = 64 * 1024;

/**
 * Steps of the look for `entry` (`NAME=value`) as a whole entry of the environment file at `path`:
 * yields between two parts read, returns whether it is there; false when the file cannot be read. Only
 * `partBytes` and the entry's length are held at once.
 */
export function* environHolds(
  path: string,
  entry: string,
  partBytes = ENVIRON_PART_BYTES,
): Generator<undefined, boolean> {
  // A whole entry: a NUL before it (the file's start counts as one) and after it (the last entry may lack its own).
  const needle = Buffer.from(`\0${entry}\0`, "latin1");
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  try {
    // What is kept of the part before (a match may begin there), the new part, and room for a closing NUL.
    const buffer = Buffer.alloc(needle.length - 1 + partBytes + 1);
    let kept = 1;
    buffer[0] = 0;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, kept, partBytes, null);
      } catch {
        return false;
      }
      const end = kept + read;
      if (read === 0) {
        buffer[end] = 0;
        return buffer.subarray(0, end + 1).includes(needle);
      }
      if (buffer.subarray(0, end).includes(needle)) return true;
      kept = Math.min(end, needle.length - 1);
      buffer.copyWithin(0, end - kept, end);
      yield;
    }
  } finally {
    closeSync(fd);
  }
}
