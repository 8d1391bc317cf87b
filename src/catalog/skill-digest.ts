import { sha256Hex } from "../util/sha256.ts";

/**
 * What the scanner needs of a SKILL.md without turning the whole file into
 * a string: the frontmatter and the body's heading and fence lines as text,
 * the body's line count, and a hash of the bytes. At 10,000 skills this keeps
 * tens of megabytes of transient strings (and the peak RSS they cause) away.
 */
export interface SkillDigest {
  /** Frontmatter (with its fences) followed by the body's heading and fence lines only. */
  text: string;
  bodyLines: number;
  /**
   * sha256 of the bytes, hex: what skillhub.lock records for this file, so a frozen server knows,
   * without reading it again, whether the name and description it lists are the reviewed ones.
   */
  hash: string;
}

const NL = 0x0a;
const CR = 0x0d;
const decoder = new TextDecoder("utf-8");

/** Pure part: see SkillDigest. */
export function digestBytes(bytes: Uint8Array): SkillDigest {
  const hash = sha256Hex(bytes);
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const headEnd = frontmatterEnd(bytes, start);
  // No (closed) frontmatter: the parser reports it; give it everything.
  if (headEnd < 0) return { text: decoder.decode(bytes.subarray(start)), bodyLines: 0, hash };
  let at = headEnd;
  while (at < bytes.length && (bytes[at] === NL || bytes[at] === CR)) at++;
  const kept: string[] = [decoder.decode(bytes.subarray(start, headEnd))];
  let lines = 0;
  while (at < bytes.length) {
    const end = indexOf(bytes, NL, at);
    const stop = end < 0 ? bytes.length : end;
    lines++;
    const c = bytes[at];
    if (
      c === 0x23 /* # */ ||
      ((c === 0x60 || c === 0x7e) && bytes[at + 1] === c && bytes[at + 2] === c) /* ``` ~~~ */
    ) {
      kept.push(decoder.decode(bytes.subarray(at, stop > at && bytes[stop - 1] === CR ? stop - 1 : stop)));
    }
    if (end < 0) break;
    at = end + 1;
    if (at === bytes.length) lines++;
  }
  return { text: kept.join("\n"), bodyLines: lines, hash };
}

/** Offset just past the first closing `---` line, or -1 when there is no frontmatter. */
function frontmatterEnd(bytes: Uint8Array, start: number): number {
  let at = start;
  let first = true;
  while (at < bytes.length) {
    const end = indexOf(bytes, NL, at);
    const stop = end < 0 ? bytes.length : end;
    if (isFence(bytes, at, stop)) {
      if (!first) return end < 0 ? bytes.length : end + 1;
    } else if (first) return -1;
    first = false;
    if (end < 0) return -1;
    at = end + 1;
  }
  return -1;
}

/** A `---` line, trailing spaces and CR allowed. */
function isFence(bytes: Uint8Array, from: number, to: number): boolean {
  if (to - from < 3 || bytes[from] !== 0x2d || bytes[from + 1] !== 0x2d || bytes[from + 2] !== 0x2d) return false;
  for (let i = from + 3; i < to; i++) if (bytes[i] !== 0x20 && bytes[i] !== 0x09 && bytes[i] !== CR) return false;
  return true;
}

function indexOf(bytes: Uint8Array, byte: number, from: number): number {
  return bytes.indexOf(byte, from);
}
