/**
 * A tar archive (POSIX ustar, with a pax header for a name ustar cannot hold) of folders and regular files,
 * as GNU tar and bsdtar (the `tar` of macOS and Windows 10+) extract it. Pure: bytes in, bytes out; the caller
 * streams a file's header, its bytes in chunks, then its padding, so neither an archive nor a file is whole
 * in memory.
 */

const BLOCK = 512;
const encoder = new TextEncoder();

/** One file of an archive: its `/`-separated relative path, its bytes, and whether it runs. */
export interface TarFile {
  path: string;
  bytes: Uint8Array;
  executable: boolean;
  /** Modification time, seconds since the epoch (a fraction is dropped; before 1970, 1970). */
  mtime: number;
}

/** A file's blocks, in parts: its header (after a pax header when its name needs one), its bytes, padding. */
export function tarEntry(file: TarFile): Uint8Array[] {
  const end = tarPadding(file.bytes.length);
  return [...tarHeader({ ...file, size: file.bytes.length }), file.bytes, ...(end ? [end] : [])];
}

/**
 * The blocks before a file's `size` bytes (a pax header when its name needs one, then its header), for a
 * caller that sends the bytes in chunks of its own and then tarPadding(size).
 */
export function tarHeader(file: Omit<TarFile, "bytes"> & { size: number }): Uint8Array[] {
  return entry(file.path, { mode: file.executable ? 0o755 : 0o644, size: file.size, mtime: file.mtime, type: "0" });
}

/** A folder's entry (mode 0755): unpacked, the folder is there even when nothing in the archive is in it. */
export function tarFolder(path: string, mtime: number): Uint8Array[] {
  return entry(`${path}/`, { mode: 0o755, size: 0, mtime, type: "5" });
}

/** An entry's header blocks: a pax header first when ustar cannot hold `path`. */
function entry(path: string, fields: Omit<Header, "name" | "prefix">): Uint8Array[] {
  const name = encoder.encode(path);
  const split = ustarName(path, name);
  const pax = split ? undefined : paxRecords({ path });
  const head = header({ ...fields, name: split?.name ?? name.subarray(0, 100), prefix: split?.prefix });
  const paxHead =
    pax && header({ name: encoder.encode("PaxHeader"), mode: 0o644, size: pax.length, mtime: fields.mtime, type: "x" });
  return [...(pax && paxHead ? [paxHead, ...padded(pax)] : []), head];
}

/** The zeros that end the last block of a file of `size` bytes, or undefined when it ends one exactly. */
export function tarPadding(size: number): Uint8Array | undefined {
  const rest = size % BLOCK;
  return rest === 0 ? undefined : new Uint8Array(BLOCK - rest);
}

/** The end of an archive: two empty blocks. */
export const TAR_END = new Uint8Array(2 * BLOCK);

/** `path` as ustar's name and prefix fields hold it (ASCII, at most 100 + 155 bytes split at a `/`), or undefined. */
function ustarName(path: string, bytes: Uint8Array): { name: Uint8Array; prefix?: Uint8Array } | undefined {
  // Names that are not ASCII go in a pax header, which says they are UTF-8.
  if (!/^[\x20-\x7e]*$/.test(path)) return undefined;
  if (bytes.length <= 100) return { name: bytes };
  for (let cut = path.indexOf("/"); cut >= 0; cut = path.indexOf("/", cut + 1)) {
    if (cut <= 155 && bytes.length - cut - 1 <= 100)
      return { prefix: bytes.subarray(0, cut), name: bytes.subarray(cut + 1) };
  }
  return undefined;
}

/** pax extended header records: `<length> <key>=<value>\n`, the length counting itself. */
function paxRecords(values: Record<string, string>): Uint8Array {
  let text = "";
  for (const [key, value] of Object.entries(values)) {
    const rest = ` ${key}=${value}\n`;
    const restBytes = encoder.encode(rest).length;
    let length = restBytes + 1;
    while (String(length).length + restBytes !== length) length = String(length).length + restBytes;
    text += `${length}${rest}`;
  }
  return encoder.encode(text);
}

interface Header {
  name: Uint8Array;
  prefix?: Uint8Array;
  mode: number;
  size: number;
  mtime: number;
  type: "0" | "5" | "x";
}

/** Most seconds an mtime field holds (11 octal digits, the year 2242): a time outside 0..this is clamped. */
const MAX_MTIME = 0o77777777777;

function header(h: Header): Uint8Array {
  const block = new Uint8Array(BLOCK);
  block.set(h.name, 0);
  octal(block, 100, 8, h.mode);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, h.size);
  octal(block, 136, 12, Math.min(Math.max(0, Math.floor(h.mtime)), MAX_MTIME));
  block.fill(0x20, 148, 156);
  block[156] = h.type.charCodeAt(0);
  block.set(encoder.encode("ustar\u000000"), 257);
  if (h.prefix) block.set(h.prefix, 345);
  let sum = 0;
  for (const byte of block) sum += byte;
  octal(block, 148, 7, sum);
  return block;
}

/** `value` in octal, zero-padded to `width - 1` digits and a NUL. */
function octal(block: Uint8Array, at: number, width: number, value: number): void {
  block.set(encoder.encode(`${value.toString(8).padStart(width - 1, "0")}\u0000`), at);
}

/** `bytes`, then the zeros that end its last block. */
function padded(bytes: Uint8Array): Uint8Array[] {
  const end = tarPadding(bytes.length);
  return end ? [bytes, end] : [bytes];
}
