import { closeSync, openSync, readFileSync, readSync, realpathSync } from "node:fs";

/**
 * Handing back the resident pages of the compiled binary's embedded modules. `bun build --compile` puts
 * our modules' sources and bytecode (13 MB) in the executable's `.bun` section, which the kernel maps
 * from the file; loading them at start-up makes nearly all of it resident, and it stays so: at 10,000
 * skills, 9 of the 14 MB that SkillHub's file-backed memory has over the floor's (issue 16). Those pages
 * are clean copies of the file, so dropping them from this process loses nothing: a module or function
 * that needs its bytes again faults them back in from the page cache. Linux only (elsewhere, or when
 * anything here is refused, it does nothing).
 */

const PAGE = 4096;
const MADV_DONTNEED = 4;
/** /proc/self/pagemap: the page is present, and is a file page (not a private copy the process wrote). */
const PRESENT = 1n << 63n;
const FILE_PAGE = 1n << 61n;

/** File offset and size of ELF section `name` in the file at `path`, or undefined. */
export function elfSection(path: string, name: string): { offset: number; size: number } | undefined {
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(64);
    readSync(fd, header, 0, 64, 0);
    // ELF, 64-bit, little-endian: the only layout Bun's Linux builds have.
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
    const tableAt = Number(header.readBigUInt64LE(0x28));
    const entry = header.readUInt16LE(0x3a);
    const count = header.readUInt16LE(0x3c);
    const table = Buffer.alloc(entry * count);
    readSync(fd, table, 0, table.length, tableAt);
    const field = (i: number, at: number) => Number(table.readBigUInt64LE(i * entry + at));
    const names = header.readUInt16LE(0x3e);
    const strings = Buffer.alloc(field(names, 0x20));
    readSync(fd, strings, 0, strings.length, field(names, 0x18));
    for (let i = 0; i < count; i++) {
      const at = table.readUInt32LE(i * entry);
      if (strings.toString("latin1", at, strings.indexOf(0, at)) === name)
        return { offset: field(i, 0x18), size: field(i, 0x20) };
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Address ranges where this process maps bytes [offset, offset + size) of the file at `path`, page-aligned inwards. */
export function mappedRanges(maps: string, path: string, offset: number, size: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const line of maps.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ ([0-9a-f]+) \S+ \S+\s+(.*)$/.exec(line);
    if (!m || m[4] !== path) continue;
    const [start, end, fileAt] = [m[1], m[2], m[3]].map((hex) => Number.parseInt(hex ?? "", 16)) as [
      number,
      number,
      number,
    ];
    const from = Math.max(offset, fileAt);
    const to = Math.min(offset + size, fileAt + (end - start));
    const low = Math.ceil((start + from - fileAt) / PAGE) * PAGE;
    const high = Math.floor((start + to - fileAt) / PAGE) * PAGE;
    if (high > low) ranges.push([low, high]);
  }
  return ranges;
}

/** Runs of pages in [low, high) that are resident and still the file's own (per /proc/self/pagemap). */
export function filePageRuns(pagemap: Buffer, low: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let runStart = -1;
  const pages = pagemap.length / 8;
  for (let i = 0; i <= pages; i++) {
    const flags = i < pages ? pagemap.readBigUInt64LE(i * 8) : 0n;
    const clean = (flags & PRESENT) !== 0n && (flags & FILE_PAGE) !== 0n;
    if (clean && runStart < 0) runStart = i;
    if (!clean && runStart >= 0) {
      runs.push([low + runStart * PAGE, low + i * PAGE]);
      runStart = -1;
    }
  }
  return runs;
}

type Madvise = (address: number, length: number, advice: number) => number;
let madvise: Madvise | null | undefined;

async function loadMadvise(): Promise<Madvise | null> {
  try {
    const { dlopen } = await import("bun:ffi");
    const libc = dlopen("libc.so.6", { madvise: { args: ["ptr", "usize", "i32"], returns: "i32" } });
    return (address, length, advice) => libc.symbols.madvise(address as never, length, advice);
  } catch {
    return null;
  }
}

/**
 * Drop this process's resident, unmodified pages of the binary's `.bun` section; returns the bytes
 * dropped (0 from source, off Linux, or when refused).
 */
export async function releaseEmbeddedPages(): Promise<number> {
  if (process.platform !== "linux" || !import.meta.url.includes("$bunfs")) return 0;
  try {
    const exe = realpathSync("/proc/self/exe");
    const section = elfSection(exe, ".bun");
    if (!section) return 0;
    madvise ??= await loadMadvise();
    if (!madvise) return 0;
    const ranges = mappedRanges(readFileSync("/proc/self/maps", "latin1"), exe, section.offset, section.size);
    const pagemapFd = openSync("/proc/self/pagemap", "r");
    let dropped = 0;
    try {
      for (const [low, high] of ranges) {
        const entries = Buffer.alloc(((high - low) / PAGE) * 8);
        readSync(pagemapFd, entries, 0, entries.length, (low / PAGE) * 8);
        for (const [from, to] of filePageRuns(entries, low))
          if (madvise(from, to - from, MADV_DONTNEED) === 0) dropped += to - from;
      }
    } finally {
      closeSync(pagemapFd);
    }
    return dropped;
  } catch {
    return 0;
  }
}
