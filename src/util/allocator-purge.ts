import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { elfSection, fileIdOf, fileOffsets, mappedRanges } from "./binary-maps.ts";
import { COMPILED } from "./compiled.ts";

/**
 * Freed memory back to the system when it is freed. Bun's allocator (mimalloc) returns a freed page
 * 100 ms later (Bun 1.4.5; 1 s in 1.3.14), but only when the thread that freed it calls the allocator
 * again, which an idle server thread never does: at 10,000 skills a settled server kept 8–10 MB it no
 * longer used (issue 16; docs/performance.md, Memory, eighth and eleventh sessions).
 * `MIMALLOC_PURGE_DELAY=0` fixes it, but mimalloc reads its environment only as the process starts and
 * Bun exports none of its functions, so the server sets the option itself: it finds mimalloc's option
 * table in the binary's `.data` section in memory (descriptors numbered 0, 1, 2, … in a row), checks
 * that the entry's name, read from the binary file, is `purge_delay`, and writes 0 over its value.
 * mimalloc reads the value at each free. Linux, compiled binary only; a table or name that does not
 * match changes nothing, and a `MIMALLOC_PURGE_DELAY` the user set is left as it is.
 */

/** mimalloc's mi_option_desc_t: { long value; int init; int option; const char* name; const char* legacy_name }. */
const DESCRIPTOR_BYTES = 32;
/** Descriptors numbered 0, 1, 2, … in a row that make the table (Bun 1.3.14's mimalloc has 46 options). */
const LEAST_OPTIONS = 20;
/** mi_init_t: DEFAULTED (the environment did not set it) and INITIALIZED (read from MIMALLOC_<NAME>). */
const DEFAULTED = 1;
const FROM_ENVIRONMENT = 2;

export interface AllocatorOption {
  /** Byte offset of its descriptor in the view searched. */
  at: number;
  value: number;
  /** Set through the environment (MIMALLOC_<NAME>). */
  fromEnvironment: boolean;
}

/**
 * Option `name` of the mimalloc option table in `data` (a view of memory starting at an 8-byte boundary);
 * `nameAt` reads the string at a descriptor's name pointer. Undefined when `data` holds no such table,
 * or the table no such option.
 */
export function findAllocatorOption(
  data: DataView,
  name: string,
  nameAt: (pointer: number) => string | undefined,
): AllocatorOption | undefined {
  // A first look through 32-bit words (a scan of every offset through the DataView took 4.7 ms cold).
  const words = new Int32Array(data.buffer, data.byteOffset, data.byteLength >> 2);
  const last = (data.byteLength - LEAST_OPTIONS * DESCRIPTOR_BYTES) >> 2;
  for (let word = 0; word <= last; word += 2) {
    // Descriptors 0, 1 and 2 numbered so (each one's `option` is at its byte 12).
    if (words[word + 3] !== 0 || words[word + 11] !== 1 || words[word + 19] !== 2) continue;
    const table = word * 4;
    let count = 0;
    while (table + (count + 1) * DESCRIPTOR_BYTES <= data.byteLength && isDescriptor(data, table, count)) count++;
    if (count < LEAST_OPTIONS) continue;
    for (let i = 0; i < count; i++) {
      const at = table + i * DESCRIPTOR_BYTES;
      if (nameAt(Number(data.getBigUint64(at + 16, true))) !== name) continue;
      const fromEnvironment = data.getInt32(at + 8, true) === FROM_ENVIRONMENT;
      return { at, value: Number(data.getBigInt64(at, true)), fromEnvironment };
    }
    return undefined;
  }
  return undefined;
}

/** Descriptor `option` of a table at `table`: numbered `option`, initialised, named. */
function isDescriptor(data: DataView, table: number, option: number): boolean {
  const at = table + option * DESCRIPTOR_BYTES;
  const init = data.getInt32(at + 8, true);
  return (
    data.getInt32(at + 12, true) === option &&
    (init === DEFAULTED || init === FROM_ENVIRONMENT) &&
    data.getBigUint64(at + 16, true) !== 0n
  );
}

/**
 * The NUL-terminated string (up to 63 bytes) a pointer leads to, read from the binary open as `fd` at
 * the file offset `offsetOf` gives (fileOffsets): no page of the mapping becomes resident.
 */
export function stringsInFile(
  fd: number,
  offsetOf: (address: number) => number | undefined,
): (pointer: number) => string | undefined {
  return (pointer) => {
    const offset = offsetOf(pointer);
    if (offset === undefined) return undefined;
    const bytes = Buffer.alloc(64);
    const read = readSync(fd, bytes, 0, bytes.length, offset);
    const end = bytes.indexOf(0);
    return end >= 0 && end < read ? bytes.toString("latin1", 0, end) : undefined;
  };
}

/**
 * Set this process's mimalloc `purge_delay` to 0 (a freed page goes back at once). What happened, for
 * the log; undefined off Linux, from source, or when the binary's `.data` cannot be read.
 */
export async function purgeFreedPagesAtOnce(): Promise<string | undefined> {
  if (process.platform !== "linux" || !COMPILED) return undefined;
  try {
    // The running binary itself, through its /proc link: still right after an upgrade replaced the file.
    const exe = "/proc/self/exe";
    const section = elfSection(exe, ".data");
    if (!section) return undefined;
    const { toArrayBuffer } = await import("bun:ffi");
    const maps = readFileSync("/proc/self/maps", "latin1");
    const file = fileIdOf(exe);
    const fd = openSync(exe, "r");
    try {
      const nameAt = stringsInFile(fd, fileOffsets(maps, file));
      // Only what the process maps readable and writable: mimalloc's table is written at start.
      for (const [low, high] of mappedRanges(maps, file, section.offset, section.size, 8, "rw")) {
        const memory = toArrayBuffer(low as never, 0, high - low);
        const option = findAllocatorOption(new DataView(memory), "purge_delay", nameAt);
        if (!option) continue;
        if (option.fromEnvironment) return `the allocator's purge delay is MIMALLOC_PURGE_DELAY's ${option.value} ms`;
        // One aligned 8-byte store: another thread reads either value, never a mix.
        Atomics.store(new BigInt64Array(memory, option.at, 1), 0, 0n);
        return `the allocator now gives freed pages back at once (purge delay ${option.value} → 0 ms)`;
      }
      return "the allocator's option table was not found; freed pages go back when the runtime's allocator decides";
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
