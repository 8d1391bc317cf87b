import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { elfSection, fileIdOf, fileOffsets, mappedRanges } from "../../src/util/binary-maps.ts";
import { filePageRuns, releaseEmbeddedPages } from "../../src/util/embedded-pages.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** A minimal ELF64 little-endian file: a null section, `.shstrtab`, and `.bun` at `bunAt` of `bunSize` bytes. */
function elfFile(bunAt: number, bunSize: number): Buffer {
  const names = Buffer.from("\0.shstrtab\0.bun\0", "latin1");
  const tableAt = 64 + names.length + 8;
  const file = Buffer.alloc(tableAt + 3 * 64);
  file.writeUInt32BE(0x7f454c46, 0);
  file[4] = 2; // 64-bit
  file[5] = 1; // little-endian
  file.writeBigUInt64LE(BigInt(tableAt), 0x28);
  file.writeUInt16LE(64, 0x3a);
  file.writeUInt16LE(3, 0x3c);
  file.writeUInt16LE(1, 0x3e);
  names.copy(file, 64);
  const section = (i: number, name: number, offset: number, size: number) => {
    file.writeUInt32LE(name, tableAt + i * 64);
    file.writeBigUInt64LE(BigInt(offset), tableAt + i * 64 + 0x18);
    file.writeBigUInt64LE(BigInt(size), tableAt + i * 64 + 0x20);
  };
  section(1, 1, 64, names.length);
  section(2, 11, bunAt, bunSize);
  return file;
}

describe("the binary's embedded modules (embedded-pages.ts)", () => {
  test("elfSection finds a section by name in the section table, and nothing in a file that is not ELF", () => {
    const dir = tempDir("skillhub-elf-");
    writeFileSync(join(dir, "bin"), elfFile(0x5a28000, 0xcff646));
    expect(elfSection(join(dir, "bin"), ".bun")).toEqual({ offset: 0x5a28000, size: 0xcff646 });
    expect(elfSection(join(dir, "bin"), ".text")).toBeUndefined();
    writeFileSync(
      join(dir, "script"),
      "#!/bin/sh\necho not an executable of ours, long enough to hold a header\n".repeat(2),
    );
    expect(elfSection(join(dir, "script"), ".bun")).toBeUndefined();
  });

  test("mappedRanges turns the section's file range into the addresses that map that file, whole pages only", () => {
    const maps = [
      "00200000-02266000 r--p 00000000 fd:01 42 /opt/skill hub/skillhub (deleted)",
      "05cc8000-06b88000 rw-p 05868000 fd:01 42 /opt/skill hub/skillhub (deleted)",
      "06b88000-06c00000 rw-p 00000000 00:00 0 ",
      "7f0000000000-7f0000100000 r--p 05a28000 fd:01 43 /opt/other",
      "7f0000200000-7f0000300000 r--p 05a28000 fe:01 42 /mnt/same-inode-elsewhere",
    ].join("\n");
    const exe = { major: 0xfd, minor: 1, inode: 42 };
    const start = 0x05cc8000 + (0x5a28000 - 0x5868000);
    // At file offset 0x5a28000 + 0x10 (not page-aligned), 0x3000 bytes: with 4 KiB pages, pages 1 and 2 only.
    expect(mappedRanges(maps, exe, 0x5a28010, 0x3000, 0x1000)).toEqual([[start + 0x1000, start + 0x3000]]);
    // With 16 KiB pages that range holds no whole page; a larger one is rounded to 16 KiB at both ends.
    expect(mappedRanges(maps, exe, 0x5a28010, 0x3000, 0x4000)).toEqual([]);
    expect(mappedRanges(maps, exe, 0x5a28010, 0x10000, 0x4000)).toEqual([[start + 0x4000, start + 0x10000]]);
    // A section running past the mapping's end stops where the mapping does.
    expect(mappedRanges(maps, exe, 0x5a28000, 0x10000000, 0x1000)).toEqual([[start, 0x06b88000]]);
    expect(mappedRanges(maps, exe, 0x9000000, 0x1000, 0x1000)).toEqual([]);
    // Only mappings with the access asked for: the section's range is in the rw-p one.
    expect(mappedRanges(maps, exe, 0x5a28000, 0x1000, 0x1000, "rw")).toEqual([[start, start + 0x1000]]);
    expect(mappedRanges(maps, exe, 0x5a28000, 0x1000, 0x1000, "x")).toEqual([]);
    expect(mappedRanges(maps, exe, 0, 0x2000, 0x1000)).toEqual([[0x200000, 0x202000]]);
    expect(mappedRanges(maps, exe, 0, 0x2000, 0x1000, "rw")).toEqual([]);
    // Back from an address to the file's offset: only where this file is mapped.
    const offsetOf = fileOffsets(maps, exe);
    expect(offsetOf(0x00200000 + 0x21a289)).toBe(0x21a289);
    expect(offsetOf(start + 0x10)).toBe(0x5a28010);
    expect(offsetOf(0x06b88000)).toBeUndefined();
    expect(offsetOf(0x7f0000000010)).toBeUndefined();
  });

  test("fileIdOf names a file as this process's maps do", () => {
    const maps = readFileSync("/proc/self/maps", "latin1");
    const size = statSync(process.execPath).size;
    expect(mappedRanges(maps, fileIdOf(process.execPath), 0, size, 4096).length).toBeGreaterThan(0);
    expect(mappedRanges(maps, { ...fileIdOf(process.execPath), inode: 1 }, 0, size, 4096)).toEqual([]);
  });

  test("filePageRuns keeps resident file pages and skips absent ones and private copies", () => {
    const present = 1n << 63n;
    const file = 1n << 61n;
    const flags = [present | file, present | file, present, 0n, present | file, file, present | file];
    const pagemap = Buffer.alloc(flags.length * 8);
    for (const [i, f] of flags.entries()) pagemap.writeBigUInt64LE(f, i * 8);
    // The last run ends on the last page.
    expect(filePageRuns(pagemap, 0x10000, 0x1000)).toEqual([
      [0x10000, 0x12000],
      [0x14000, 0x15000],
      [0x16000, 0x17000],
    ]);
    expect(filePageRuns(pagemap, 0x100000, 0x4000)[2]).toEqual([0x118000, 0x11c000]);
  });

  test("run from source (not a compiled binary) it hands back nothing", async () => {
    expect(await releaseEmbeddedPages()).toBe(0);
  });
});
