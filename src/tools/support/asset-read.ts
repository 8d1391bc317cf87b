import { isRefused } from "../../lock/checked-read.ts";
import type { FrozenGuard } from "../../lock/frozen.ts";
import type { Skill } from "../../skills/skill.ts";
import { realFolder } from "../../skills/skill-read.ts";
import type { ConfinedReadOptions } from "../../util/confined-read.ts";
import {
  binaryMimeType,
  hasNulByte,
  isBinaryExtension,
  isBinaryFile,
  isViewableImage,
  SNIFF_BYTES,
} from "../../util/file-kind.ts";
import { fileText } from "../../util/file-text.ts";
import { base64JsonBytes, escapeBytes } from "../../util/json-bytes.ts";
import { type InsideResult, resolveInside } from "../../util/safe-path.ts";
import { shownArg, shownReason } from "../../util/shown-arg.ts";
import { statOf } from "../../util/stat.ts";
import type { AnswerBound } from "../definition.ts";
import type { ErrorCode } from "../results.ts";
import { readServedFile } from "./served-file.ts";

/** The folder a node's declared files live in: its resource folder; an Agent Skill's own folder. */
export function filesBase(skill: Skill): string | undefined {
  return skill.kind === "tree-node" ? skill.tree.resourceDir : skill.dir;
}

/**
 * Where a declared file is, refusing anything outside the owner's real folder, as every read decides it
 * (skill-read.ts realFolder: a tree node's resource folder that is a link out of the folder of its node's
 * file serves nothing, nor does a repository's or plugin's folder that links out of it).
 * `folder`: the folder itself is refused or gone, whatever the file.
 */
export function locateFile(
  owner: Skill,
  file: string,
): InsideResult | (Extract<InsideResult, { ok: false }> & { folder: true }) {
  const base = filesBase(owner);
  if (base === undefined)
    return { ok: false, code: "FILE_NOT_FOUND", reason: `the resource folder of '${owner.name}' does not exist` };
  const folder = realFolder(base, owner);
  if (!folder.ok)
    return {
      ok: false,
      code: folder.code === "PATH_OUTSIDE_SKILL" ? "PATH_OUTSIDE_SKILL" : "FILE_NOT_FOUND",
      reason: folder.reason.replace(/\.$/, ""),
      folder: true,
    };
  return resolveInside(folder.root, file);
}

/** Whether a declared file can be served now: listed by get_skill only then (missing files are left out). */
export function isServable(owner: Skill, file: string): boolean {
  return servableSizes(owner)(file) !== undefined;
}

/**
 * For many files of one owner, each one's size on disk (bytes) when it can be served now (isServable), else
 * undefined; the owner's real folder found once (locateFile finds it for each file, with several realpaths,
 * and a node may declare hundreds of files).
 */
export function servableSizes(owner: Skill): (file: string) => number | undefined {
  const base = filesBase(owner);
  const folder = base === undefined ? undefined : realFolder(base, owner);
  return (file) => {
    if (!folder?.ok) return undefined;
    const located = resolveInside(folder.root, file);
    const stat = located.ok ? statOf(located.real) : undefined;
    return stat?.isFile() ? stat.size : undefined;
  };
}

export type AssetContent =
  | { ok: true; size: number; text: string; binary: false }
  | {
      ok: true;
      size: number;
      base64: string;
      mimeType: string;
      binary: true;
      /** Whether a model can be shown it as an image (file-kind.ts isViewableImage). */
      image: boolean;
    }
  | { ok: false; code: ErrorCode; message: string; size?: number };

/**
 * Read a declared file for get_asset through the confined
 * reader: inside the owner's real folder (the opened file, not only the name),
 * a regular file opened without blocking, at most `maxBytes` read once
 * (FILE_TOO_LARGE otherwise, even for a file that grows after the check);
 * binary by the opened file's extension or NUL bytes in the first KiB → base64
 * with a MIME type (and whether it is an image a model can view); otherwise UTF-8 text.
 * `bound` is told the least bytes the content takes in an answer as it is read (ToolContext.bounded,
 * countedRead); it may throw to stop the read.
 */
export function readAsset(
  owner: Skill,
  rel: string,
  maxBytes: number,
  options: { frozen?: FrozenGuard; bound?: AnswerBound } & Pick<ConfinedReadOptions, "now"> = {},
): AssetContent {
  const base = filesBase(owner);
  if (base === undefined) return { ok: false, code: "FILE_NOT_FOUND", message: `'${shownArg(rel)}' does not exist.` };
  const counted = options.bound && countedRead(options.bound);
  // Frozen: served only when the lock records the digest of these very bytes (served-file.ts).
  const read = readServedFile(options.frozen, owner, rel, maxBytes, "refuse", { base, now: options.now, ...counted });
  if (isRefused(read)) return { ok: false, code: read.refused.code, message: read.refused.message };
  if (!read.ok) {
    if (read.code === "FILE_TOO_LARGE") return tooLarge(rel, read.size ?? maxBytes + 1, maxBytes);
    return { ok: false, code: read.code, message: shownReason(read.reason, rel) };
  }
  const bytes = read.bytes;
  // The file read, not the name asked for: a link (`diagram` → `diagram.png`) is what it leads to, as in read_skill_file.
  if (isBinaryFile(read.real, bytes))
    return {
      ok: true,
      size: bytes.length,
      base64: bytes.toString("base64"),
      mimeType: binaryMimeType(read.real),
      binary: true,
      image: isViewableImage(read.real, bytes),
    };
  return { ok: true, size: bytes.length, text: fileText.decode(bytes), binary: false };
}

/**
 * A declared file's content counted in its answer as it is read: before any byte, its size on disk, as base64
 * when its extension makes it binary; then, while it is text (no NUL in its first KiB, as isBinaryFile
 * judges), what JSON's escapes add to each chunk read (a control character takes six bytes), so that a file
 * of control characters is stopped at the chunk its answer passes the budget at, not refused once read whole.
 * Never more than the content takes: text is never shorter in JSON than its bytes (a byte not UTF-8 becomes
 * a three-byte U+FFFD), nor base64 than its bytes.
 */
function countedRead(bound: AnswerBound): Pick<ConfinedReadOptions, "beforeRead" | "onRead"> {
  let text = true;
  return {
    beforeRead: (size, real) => {
      text = !isBinaryExtension(real);
      bound(text ? size : base64JsonBytes(size));
    },
    onRead: (bytes, at) => {
      if (text && at < SNIFF_BYTES && hasNulByte(bytes, SNIFF_BYTES - at)) text = false;
      if (text) bound(escapeBytes(bytes));
    },
  };
}

function tooLarge(shownAs: string, size: number, maxBytes: number): AssetContent {
  return {
    ok: false,
    code: "FILE_TOO_LARGE",
    message: `'${shownAs}' is ${size} bytes; get_asset serves at most ${maxBytes} bytes (assets.max_size_bytes).`,
    size,
  };
}
