import type { Logger } from "../util/logger.ts";
import { openLibc } from "./libc.ts";

/**
 * Security: children must not read the server's secrets from
 * /proc/<server pid>/environ. That file shows the process's *initial*
 * environment block (the strings the kernel copied onto the stack at exec),
 * which deleting from process.env does not change; a child running as the
 * same user (or as root) may read it. Bun copies the environment into its own
 * map at start, so the server keeps its secrets in memory (process.env) while
 * the original bytes are overwritten in place: libc's getenv returns a pointer
 * into that very block, and bun:ffi writes '*' over each secret value.
 *
 * What it covers: Linux and macOS (whose `ps eww` reads the same block), with
 * glibc or musl. Elsewhere, or when libc cannot be opened, it logs why and
 * does nothing; children still get a scrubbed environment (exec/env.ts).
 * See docs/hardening.md.
 */

export interface EnvironWipe {
  /** Variables whose value was overwritten in the initial block. */
  hidden: string[];
  /** Why nothing was done, when nothing could be. */
  skipped?: string;
}

/**
 * Overwrite, in the process's initial environment block, the values of
 * `names` (what util/secret-env.ts's secretVariables finds). process.env keeps
 * its copies. Call once at start, after the configuration has been read.
 */
export async function hideFromInitialEnviron(names: readonly string[], logger?: Logger): Promise<EnvironWipe> {
  if (names.length === 0) return { hidden: [] };
  const opened = await openLibc({ getenv: { args: ["ptr"], returns: "ptr" } });
  if ("skipped" in opened) return skip(opened.skipped, logger);
  const { lib, ffi } = opened;
  const hidden: string[] = [];
  try {
    for (const name of names) {
      // Read the copy first so that process.env certainly holds it before the original changes.
      if (process.env[name] === undefined) continue;
      const pointer = lib.symbols.getenv(new TextEncoder().encode(`${name}\0`));
      if (typeof pointer !== "number" || pointer === 0) continue;
      const length = Buffer.byteLength(new ffi.CString(pointer as never).toString());
      if (length === 0) continue;
      new Uint8Array(ffi.toArrayBuffer(pointer as never, 0, length)).fill(0x2a);
      hidden.push(name);
    }
  } finally {
    lib.close();
  }
  if (hidden.length > 0)
    logger?.debug(`secrets hidden from the process's initial environment (/proc/self/environ): ${hidden.join(", ")}`);
  return { hidden };
}

function skip(reason: string, logger?: Logger): EnvironWipe {
  logger?.debug(`cannot hide secrets from the initial environment: ${reason}; children still get a scrubbed one.`);
  return { hidden: [], skipped: reason };
}
