import type { Logger } from "../util/logger.ts";
import { openLibc } from "./libc.ts";

/**
 * Security: scripts and commands run as the server's user, and Linux lets a process look into another of
 * its user's that is "dumpable" (every process, unless it says otherwise): read its memory through
 * /proc/<pid>/mem, where the server keeps its secrets (GITHUB_TOKEN, the HTTP token) after wiping them
 * from its environment block (exec/initial-environ.ts), and copy its descriptors (pidfd_getfd), among them
 * its stdout, where a forged JSON-RPC answer would reach the client as the server's.
 * PR_SET_DUMPABLE 0 closes the server's memory, descriptors and environment to every process without
 * CAP_SYS_PTRACE (a root one has it); the server still reads its own /proc, and a child is dumpable again
 * once it runs a program, so the server still finds its children's processes. Linux only:
 * elsewhere it does nothing (macOS gives another process's memory to root only).
 */

const PR_SET_DUMPABLE = 4;

/** Make this process undumpable (Linux); false, with the reason logged, where it cannot be. */
export async function makeUndumpable(logger?: Logger): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const opened = await openLibc({ prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" } });
  if ("skipped" in opened) {
    logger?.debug(`cannot close the server's memory to its children: ${opened.skipped}`);
    return false;
  }
  try {
    const done = opened.lib.symbols.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n) === 0;
    if (!done) logger?.warn("cannot close the server's memory to its children: prctl(PR_SET_DUMPABLE) failed");
    return done;
  } finally {
    opened.lib.close();
  }
}
