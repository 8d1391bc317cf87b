import { closeSync, readFileSync, readSync } from "node:fs";
import { openOwnFile } from "../util/own-file.ts";

/**
 * A saved index file mapped into memory (persist.ts), and mapped again to give back the pages queries
 * made resident: they stay in the page cache, but a mapping's touched pages count in the server's
 * resident memory until it is unmapped, most of the 10 MB file at 10,000 skills after 200 searches
 * (docs/performance.md).
 */
export interface MappedFile {
  path: string;
  bytes: Uint8Array;
}

/** Bytes compared to tell the same file from a newer one renamed over it: the header, with its time of saving. */
const HEAD_BYTES = 16 * 1024;

/**
 * The bytes of the file open on `fd` (openOwnFile), mapped privately (nothing written to a view could
 * reach the file): through its descriptor, so that the file mapped is the one checked, not another
 * renamed to its name since. Throws as Bun.mmap does.
 */
export function mapDescriptor(fd: number, path: string): Uint8Array {
  return Bun.mmap(process.platform === "win32" ? path : `/dev/fd/${fd}`, { shared: false });
}

/**
 * A file's bytes, mapped when it can be (mapDescriptor), else read (an empty file, a file system without
 * mmap): only a file openOwnFile accepts (util/own-file.ts: a FIFO planted in a shared cache folder
 * would hold every search on its opening). Throws ENOENT when there is none, else saying why.
 */
export function mapOrRead(path: string): { bytes: Uint8Array; mapped: boolean } {
  const fd = openOwnFile(path);
  try {
    try {
      return { bytes: mapDescriptor(fd, path), mapped: true };
    } catch {
      return { bytes: readFileSync(fd), mapped: false };
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A fresh mapping of `mapped`'s file, or undefined when it cannot be mapped or is no longer the same
 * file (index files are replaced by renaming, never changed in place: the header, with its time of
 * saving, differs then). The header is compared by reading the file, not the new mapping, which a
 * read would make resident: the kernel maps whole folios of the page cache, up to megabytes. Mapped
 * and read through one descriptor (openOwnFile), so both are of the same file.
 */
export function remap(mapped: MappedFile): Uint8Array | undefined {
  const old = mapped.bytes;
  let next: Uint8Array;
  const head = Buffer.alloc(Math.min(HEAD_BYTES, old.byteLength));
  try {
    const fd = openOwnFile(mapped.path);
    try {
      next = mapDescriptor(fd, mapped.path);
      if (readSync(fd, head, 0, head.length, 0) !== head.length) return undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (next.byteLength !== old.byteLength) return undefined;
  for (let i = 0; i < head.length; i++) if (head[i] !== old[i]) return undefined;
  return next;
}

/** `array` made a view of `to` at the same place when it views `from` (a view of the old mapping); else itself. */
export function moved<T extends Uint8Array | Uint16Array | Uint32Array>(
  array: T,
  from: ArrayBufferLike,
  to: ArrayBufferLike,
): T {
  if (array.buffer !== from) return array;
  const Type = array.constructor as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => T;
  return new Type(to, array.byteOffset, array.length);
}
