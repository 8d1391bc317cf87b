import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import type { Skill } from "../../skills/skill.ts";
import { errnoCode } from "../../util/errors.ts";
import { isBinaryFile, mimeTypeFor } from "../../util/file-kind.ts";
import { type InsideResult, resolveInside } from "../../util/safe-path.ts";
import type { ErrorCode } from "../results.ts";

/** The folder a node's declared files live in: its resource folder (seed 003 §4.5); an Agent Skill's own folder. */
export function filesBase(skill: Skill): string | undefined {
  return skill.kind === "tree-node" ? skill.tree.resourceDir : skill.dir;
}

/** Where a declared file is, refusing anything outside the owner's real folder. */
export function locateFile(owner: Skill, file: string): InsideResult {
  const base = filesBase(owner);
  if (base === undefined)
    return { ok: false, code: "FILE_NOT_FOUND", reason: `the resource folder ${owner.dir}/ does not exist` };
  return resolveInside(base, file);
}

/** Whether a declared file can be served now: listed by get_skill only then (seed 002: missing files are left out). */
export function isServable(owner: Skill, file: string): boolean {
  const located = locateFile(owner, file);
  return located.ok && (statSync(located.real, { throwIfNoEntry: false })?.isFile() ?? false);
}

export type AssetContent =
  | { ok: true; size: number; text: string; binary: false }
  | { ok: true; size: number; base64: string; mimeType: string; binary: true }
  | { ok: false; code: ErrorCode; message: string; size?: number };

/** The descriptor calls readAsset makes; injectable so tests can change the file between them. */
export interface AssetIo {
  fstat(fd: number): { size: number; isFile(): boolean };
}

const nodeIo: AssetIo = { fstat: (fd) => fstatSync(fd) };

/**
 * Read at most `limit` bytes from an open descriptor, from offset 0, stopping
 * early at end of file. The buffer starts at `expected` + 1 bytes (the size
 * the caller saw; one more to meet end of file without growing) and grows,
 * never past `limit`, whatever the file's size is now.
 */
export function readAtMost(fd: number, limit: number, expected = limit): Buffer {
  let buffer = Buffer.alloc(Math.max(0, Math.min(limit, expected + 1)));
  let filled = 0;
  while (filled < limit) {
    if (filled === buffer.length) {
      const bigger = Buffer.alloc(Math.min(limit, Math.max(buffer.length * 2, 4096)));
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return filled === buffer.length ? buffer : buffer.subarray(0, filled);
}

/**
 * Read a located file for get_asset (seed 003 §7.4): size checked on the
 * opened descriptor, then at most `maxBytes` + 1 bytes read from it, so a file
 * that grew or was swapped after the check is still refused (FILE_TOO_LARGE);
 * binary by extension or NUL bytes in the first KiB → base64 with a MIME
 * type; otherwise UTF-8 text.
 */
export function readAsset(real: string, shownAs: string, maxBytes: number, io: AssetIo = nodeIo): AssetContent {
  let fd: number;
  try {
    // Security: O_NONBLOCK so that a FIFO put in the file's place cannot block the server on open.
    fd = openSync(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (errnoCode(error) === undefined) throw error;
    return { ok: false, code: "FILE_NOT_FOUND", message: `'${shownAs}' cannot be opened (${errnoCode(error)}).` };
  }
  try {
    const stat = io.fstat(fd);
    if (!stat.isFile()) return { ok: false, code: "FILE_NOT_FOUND", message: `'${shownAs}' is not a file.` };
    if (stat.size > maxBytes) return tooLarge(shownAs, stat.size, maxBytes);
    // Security: the size above may be stale; one byte past the limit proves the file is over it.
    const bytes = readAtMost(fd, maxBytes + 1, stat.size);
    if (bytes.length > maxBytes) return tooLarge(shownAs, Math.max(bytes.length, fstatSync(fd).size), maxBytes);
    if (isBinaryFile(shownAs, bytes))
      return {
        ok: true,
        size: bytes.length,
        base64: bytes.toString("base64"),
        mimeType: mimeTypeFor(shownAs),
        binary: true,
      };
    return { ok: true, size: bytes.length, text: new TextDecoder().decode(bytes), binary: false };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(shownAs: string, size: number, maxBytes: number): AssetContent {
  return {
    ok: false,
    code: "FILE_TOO_LARGE",
    message: `'${shownAs}' is ${size} bytes; get_asset serves at most ${maxBytes} bytes (assets.max_size_bytes).`,
    size,
  };
}
