import { readFileSync, statSync } from "node:fs";
import type { Skill } from "../skills/skill.ts";
import { isBinaryFile, mimeTypeFor } from "../util/file-kind.ts";
import { type InsideResult, resolveInside } from "../util/safe-path.ts";
import type { ErrorCode } from "./results.ts";

/** The folder a node's declared files live in: its resource folder (seed 003 §4.5); an Agent Skill's own folder. */
export function filesBase(skill: Skill): string | undefined {
  return skill.kind === "tree-node" ? skill.tree?.resourceDir : skill.dir;
}

/** Where a declared file is, refusing anything outside the owner's real folder. */
export function locateFile(owner: Skill, file: string): InsideResult {
  const base = filesBase(owner);
  if (base === undefined) return { ok: false, code: "FILE_NOT_FOUND", reason: `the resource folder ${owner.dir}/ does not exist` };
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

/**
 * Read a located file for get_asset (seed 003 §7.4): size checked with stat
 * before reading; binary by extension or NUL bytes in the first KiB →
 * base64 with a MIME type; otherwise UTF-8 text.
 */
export function readAsset(real: string, shownAs: string, maxBytes: number): AssetContent {
  const stat = statSync(real, { throwIfNoEntry: false });
  if (!stat?.isFile()) return { ok: false, code: "FILE_NOT_FOUND", message: `'${shownAs}' is not a file.` };
  if (stat.size > maxBytes) {
    return {
      ok: false,
      code: "FILE_TOO_LARGE",
      message: `'${shownAs}' is ${stat.size} bytes; get_asset serves at most ${maxBytes} bytes (assets.max_size_bytes).`,
      size: stat.size,
    };
  }
  const bytes = readFileSync(real);
  if (isBinaryFile(shownAs, bytes)) return { ok: true, size: bytes.length, base64: bytes.toString("base64"), mimeType: mimeTypeFor(shownAs), binary: true };
  return { ok: true, size: bytes.length, text: new TextDecoder().decode(bytes), binary: false };
}
