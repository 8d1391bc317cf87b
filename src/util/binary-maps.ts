import { closeSync, openSync, readSync, statSync } from "node:fs";

/**
 * The running binary as this process sees it: where an ELF section lies in the file, and where the
 * process maps which bytes of it (/proc/PID/maps). Used to hand back the embedded modules' pages
 * (embedded-pages.ts) and to find the allocator's options (allocator-purge.ts). Linux only.
 */

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

/** A file as /proc/PID/maps names it: device major and minor, and inode (a path may have been replaced). */
export interface FileId {
  major: number;
  minor: number;
  inode: number;
}

/** The FileId of the file `path` leads to (/proc/self/exe: the running binary, even once replaced on disk). */
export function fileIdOf(path: string): FileId {
  const { dev, ino } = statSync(path);
  return { major: (dev >>> 8) & 0xfff, minor: (dev & 0xff) | ((dev >>> 12) & 0xfff00), inode: ino };
}

type Five = [number, number, number, number, number];

interface Mapping {
  start: number;
  end: number;
  /** The file offset mapped at `start`. */
  fileAt: number;
  /** Permissions as maps shows them: `rw-p`, `r--p`, … */
  access: string;
}

/** Where this process maps parts of `file`: address range [start, end) holds the file's bytes from `fileAt`. */
function mappingsOf(maps: string, file: FileId): Mapping[] {
  const found: Mapping[] = [];
  for (const line of maps.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) ([0-9a-f]+):([0-9a-f]+) (\d+)/.exec(line);
    if (!m) continue;
    const [start, end, fileAt, major, minor] = [m[1], m[2], m[4], m[5], m[6]].map((hex) =>
      Number.parseInt(hex ?? "", 16),
    ) as Five;
    if (major === file.major && minor === file.minor && Number(m[7]) === file.inode)
      found.push({ start, end, fileAt, access: m[3] ?? "" });
  }
  return found;
}

/**
 * Address ranges where this process maps bytes [offset, offset + size) of file `file`, rounded inwards
 * to whole pages of `page` bytes; only mappings that allow `access` ("rw": read and write) when given.
 */
export function mappedRanges(
  maps: string,
  file: FileId,
  offset: number,
  size: number,
  page: number,
  access = "",
): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const { start, end, fileAt, access: allowed } of mappingsOf(maps, file)) {
    if ([...access].some((right) => !allowed.includes(right))) continue;
    const from = Math.max(offset, fileAt);
    const to = Math.min(offset + size, fileAt + (end - start));
    const low = Math.ceil((start + from - fileAt) / page) * page;
    const high = Math.floor((start + to - fileAt) / page) * page;
    if (high > low) ranges.push([low, high]);
  }
  return ranges;
}

/** Address → the offset in `file` of the byte this process maps there (undefined where it maps none of `file`). */
export function fileOffsets(maps: string, file: FileId): (address: number) => number | undefined {
  const mappings = mappingsOf(maps, file);
  return (address) => {
    const m = mappings.find(({ start, end }) => address >= start && address < end);
    return m && m.fileAt + address - m.start;
  };
}
