import type { FFIFunction, Library } from "bun:ffi";

/** libc's names by platform: glibc, then musl; macOS's libSystem. */
const LIBC_NAMES: Record<string, string[]> = {
  linux: ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"],
  darwin: ["libSystem.B.dylib", "/usr/lib/libSystem.B.dylib"],
};

/** libc with `symbols` bound (types by name: "ptr", "i32"), and bun:ffi; or why it cannot be opened here. */
export async function openLibc<Fns extends Record<string, FFIFunction>>(
  symbols: Fns,
): Promise<{ lib: Library<Fns>; ffi: typeof import("bun:ffi") } | { skipped: string }> {
  const candidates = LIBC_NAMES[process.platform];
  if (!candidates) return { skipped: `not supported on ${process.platform}` };
  let ffi: typeof import("bun:ffi");
  try {
    ffi = await import("bun:ffi");
  } catch (error) {
    return { skipped: `bun:ffi unavailable (${String(error)})` };
  }
  for (const name of candidates) {
    try {
      return { lib: ffi.dlopen(name, symbols), ffi };
    } catch {
      // Try the next name (glibc, then musl).
    }
  }
  return { skipped: "libc could not be opened" };
}
