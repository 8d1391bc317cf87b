import type { Logger } from "../util/logger.ts";

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

const LIBC_NAMES: Record<string, string[]> = {
  linux: ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"],
  darwin: ["libSystem.B.dylib", "/usr/lib/libSystem.B.dylib"],
};

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
  const candidates = LIBC_NAMES[process.platform];
  if (!candidates) return skip(`not supported on ${process.platform}`, logger);
  let ffi: typeof import("bun:ffi");
  try {
    ffi = await import("bun:ffi");
  } catch (error) {
    return skip(`bun:ffi unavailable (${String(error)})`, logger);
  }
  let lib: { symbols: { getenv: (name: Uint8Array) => unknown }; close(): void } | undefined;
  for (const name of candidates) {
    try {
      lib = ffi.dlopen(name, { getenv: { args: [ffi.FFIType.ptr], returns: ffi.FFIType.ptr } }) as typeof lib;
      break;
    } catch {
      // Try the next name (glibc, then musl).
    }
  }
  if (!lib) return skip("libc could not be opened", logger);
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
