import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { elfSection, fileIdOf, mappedRanges } from "./binary-maps.ts";
import { COMPILED } from "./compiled.ts";

/**
 * Handing back the resident pages of the compiled binary's embedded modules. `bun build --compile` puts
 * our modules' sources and bytecode (13 MB) in the executable's `.bun` section, which the kernel maps
 * from the file; loading them at start-up makes nearly all of it resident, and it stays so: at 10,000
 * skills, 9 of the 14 MB that SkillHub's file-backed memory has over the floor's (issue 16). Those pages
 * are clean copies of the file, so dropping them from this process loses nothing: a module or function
 * that needs its bytes again faults them back in from the page cache. Linux only (elsewhere, or when
 * anything here is refused, it does nothing).
 */

const MADV_DONTNEED = 4;
/** /proc/self/pagemap: the page is present, and is a file page (not a private copy the process wrote). */
const PRESENT = 1n << 63n;
const FILE_PAGE = 1n << 61n;

/** Runs of `page`-byte pages from `low` that are resident and still the file's own (per /proc/self/pagemap). */
export function filePageRuns(pagemap: Buffer, low: number, page: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let runStart = -1;
  const pages = pagemap.length / 8;
  for (let i = 0; i <= pages; i++) {
    const flags = i < pages ? pagemap.readBigUInt64LE(i * 8) : 0n;
    const clean = (flags & PRESENT) !== 0n && (flags & FILE_PAGE) !== 0n;
    if (clean && runStart < 0) runStart = i;
    if (!clean && runStart >= 0) {
      runs.push([low + runStart * page, low + i * page]);
      runStart = -1;
    }
  }
  return runs;
}

interface Libc {
  madvise(address: number, length: number, advice: number): number;
  /** Bytes in a page: 4 KiB on x64, 4, 16 or 64 KiB on arm64 kernels. */
  page: number;
}

/** What each release goes over, found at the first (the binary's mappings do not move); null: nothing. */
let target: { libc: Libc; ranges: Array<[number, number]> } | null | undefined;

/** The `.bun` section's page ranges in this process, and libc to drop them with; null off Linux or when refused. */
async function findTarget(): Promise<typeof target> {
  if (process.platform !== "linux" || !COMPILED) return null;
  // The running binary itself, through its /proc link: still right after an upgrade replaced the file.
  const section = elfSection("/proc/self/exe", ".bun");
  const libc = section && (await loadLibc());
  if (!section || !libc) return null;
  const maps = readFileSync("/proc/self/maps", "latin1");
  return { libc, ranges: mappedRanges(maps, fileIdOf("/proc/self/exe"), section.offset, section.size, libc.page) };
}

/** glibc's, then musl's (x64, arm64); null when none loads. */
async function loadLibc(): Promise<Libc | null> {
  const { dlopen } = await import("bun:ffi");
  for (const name of ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]) {
    try {
      const { symbols } = dlopen(name, {
        madvise: { args: ["ptr", "usize", "i32"], returns: "i32" },
        getpagesize: { args: [], returns: "i32" },
      });
      return {
        madvise: (address, length, advice) => symbols.madvise(address as never, length, advice),
        page: symbols.getpagesize(),
      };
    } catch {
      // Not this libc.
    }
  }
  return null;
}

/**
 * Drop this process's resident, unmodified pages of the binary's `.bun` section; returns the bytes
 * dropped (0 from source, off Linux, or when refused).
 */
export async function releaseEmbeddedPages(): Promise<number> {
  try {
    if (target === undefined) target = await findTarget().catch(() => null);
    if (!target) return 0;
    const { libc, ranges } = target;
    const { page } = libc;
    const pagemapFd = openSync("/proc/self/pagemap", "r");
    let dropped = 0;
    try {
      for (const [low, high] of ranges) {
        const entries = Buffer.alloc(((high - low) / page) * 8);
        readSync(pagemapFd, entries, 0, entries.length, (low / page) * 8);
        // A page is dropped only if it is still the file's (never one the process wrote), so it comes back
        // the same. Bun writes nothing into the section after loading a module; should a thread ever do so
        // between this read and madvise, that page would be the one exception.
        for (const [from, to] of filePageRuns(entries, low, page))
          if (libc.madvise(from, to - from, MADV_DONTNEED) === 0) dropped += to - from;
      }
    } finally {
      closeSync(pagemapFd);
    }
    return dropped;
  } catch {
    return 0;
  }
}
