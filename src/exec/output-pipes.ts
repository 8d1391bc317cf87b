import { closeSync, readlinkSync } from "node:fs";
import { openLibc } from "./libc.ts";

/**
 * Security: a run's stdout and stderr are pipes the server makes before the child starts (Linux), so the
 * name the process table gives each (`pipe:[inode]`, the same for both ends) is known however fast the
 * child ends. A process that left the run's group and cleared its environment is still found while it
 * holds one (exec/process-tree.ts). Bun's own pipes are socket pairs whose child end is seen only in the
 * child, which a short script can leave before the server looks (a loaded machine makes that common).
 */

/** Both ends close-on-exec: no other child inherits them; the child gets its ends as stdout and stderr. */
const O_CLOEXEC = 0o2_000_000;

export interface RunPipe {
  readEnd: number;
  writeEnd: number;
  /** What /proc shows for either end: `pipe:[inode]`. */
  name: string;
}

let pipe2: Promise<((fds: Int32Array) => boolean) | undefined> | undefined;

/** libc's pipe2 on Linux, bound once; undefined elsewhere (no /proc to search) or without bun:ffi. */
function loadPipe2(): Promise<((fds: Int32Array) => boolean) | undefined> {
  pipe2 ??= (async () => {
    if (process.platform !== "linux") return undefined;
    const opened = await openLibc({ pipe2: { args: ["ptr", "i32"], returns: "i32" } });
    if ("skipped" in opened) return undefined;
    const { lib, ffi } = opened;
    return (fds) => lib.symbols.pipe2(ffi.ptr(fds), O_CLOEXEC) === 0;
  })();
  return pipe2;
}

/** A new pipe for a run's output; undefined where none can be made this way (the caller uses Bun's). */
export async function openRunPipe(): Promise<RunPipe | undefined> {
  const make = await loadPipe2();
  const fds = new Int32Array(2);
  if (!make?.(fds)) return undefined;
  const [readEnd = -1, writeEnd = -1] = fds;
  try {
    return { readEnd, writeEnd, name: readlinkSync(`/proc/self/fd/${readEnd}`) };
  } catch {
    closeEnds([readEnd, writeEnd]);
    return undefined;
  }
}

/** Close descriptors this process owns. Each exactly once: a number closed twice may by then name another file. */
export function closeEnds(fds: readonly number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // EBADF: nothing was open there.
    }
  }
}
