import { basename, isAbsolute, normalize, posix, sep } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { findFileInChain } from "../catalog/tree-chain.ts";
import { type CheckedFile, isRefused, type Refused } from "../lock/checked-read.ts";
import type { FrozenGuard } from "../lock/frozen.ts";
import { linkTarget } from "../skills/markdown-links.ts";
import type { Skill } from "../skills/skill.ts";
import { readSkillSourceBytes } from "../skills/skill-read.ts";
import type { ConfinedFailure, ConfinedReadOptions } from "../util/confined-read.ts";
import {
  binaryMimeType,
  isBinaryFile,
  isViewableImage,
  MAX_VIEWABLE_IMAGE_BYTES,
  namesViewableImage,
} from "../util/file-kind.ts";
import { fileText } from "../util/file-text.ts";
import { base64JsonBytes } from "../util/json-bytes.ts";
import { checkRelativePath, isInside, realOr } from "../util/safe-path.ts";
import { shownArg, shownReason } from "../util/shown-arg.ts";
import { type AnswerBound, defineTool, READ_ONLY, withinAnswerBudget } from "./definition.ts";
import { errorResult, imageResult, structuredResult } from "./results.ts";
import { type MissedFileHint, missedFileHint } from "./support/missed-file.ts";
import { partEnd, resultBudget } from "./support/result-budget.ts";
import { readServedFile } from "./support/served-file.ts";
import { lookupSkill, refusalResult } from "./support/skill-lookup.ts";
import { isOwnFileUri, notUnder, relativeOf, skillPlace } from "./support/skill-place.ts";

const INSIDE_ONLY =
  "Only files inside the skill's folder can be read; use a relative path from load_skill's file list.";

/** Why a path that leaves the skill's folder by `..` is refused: the file is not the skill's, whatever links to it. */
const CLIMBS_OUT =
  "climbs out of the skill's folder with '..': the file lies outside the skill, and no file outside a skill's folder is served through it";

/** Whether `path` leads, as written, out of the folder it is relative to (`../x`, `a/../../x`). Pure. */
function climbsOut(path: string): boolean {
  const steps = posix.normalize(path.replace(/\\/g, "/"));
  return steps === ".." || steps.startsWith("../");
}

/** The furthest a read may start: the skills extension's limit for a whole skill. */
const MAX_OFFSET = 16 * 1024 * 1024;

const Input = () =>
  z.object({
    skill_name: z.string().min(1).describe("Skill name (case-insensitive), as given by search_skills or load_skill"),
    file_path: z
      .string()
      .min(1)
      .describe(
        "Path relative to the skill folder, e.g. 'templates/invoice.txt' (from load_skill's files), or its skill:// URI",
      ),
    offset: z
      .number()
      .int()
      .min(0)
      .max(MAX_OFFSET)
      .optional()
      .describe("Byte to start at: the previous part's next_offset. Default 0"),
    length: z.number().int().min(1).optional().describe("Most bytes to return (at most MAX_FILE_BYTES)"),
  });

const Output = () =>
  z.object({
    content: z.string().describe("The text, or base64 for binary files (empty for an image sent as one)"),
    encoding: z.enum(["utf-8", "base64"]),
    truncated: z.boolean().describe("True when the file goes on past what is returned (read on from next_offset)"),
    size_bytes: z.number().describe("Size of the whole file"),
    mime_type: z.string().optional().describe("For binary files"),
    offset: z.number().optional().describe("The byte this part starts at, when it is not the whole file"),
    next_offset: z
      .number()
      .optional()
      .describe("When truncated: the offset to read the rest from (0 for an image's base64)"),
    note: z.string().optional().describe("For an image sent as one: that it was, and when to read its bytes"),
  });

/** `read_skill_file`: one file of a skill, never anything outside it. */
export const readSkillFileTool = defineTool({
  name: "read_skill_file",
  title: "Read Skill File",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Read a file of a skill (template, reference, example, script) by its path relative to its folder. " +
    "Text comes as UTF-8, binary files as base64 with a MIME type, a whole PNG, JPEG, GIF or WebP as an image; " +
    "a large file in parts (read on from next_offset).",
  handler: async ({ skill_name, file_path: asked, offset: from, length }, ctx) => {
    const offset = from ?? 0;
    const { deps } = ctx;
    const { skill, error } = await lookupSkill(skill_name, deps);
    if (error) return error;
    // A tree node's own file by its URI (the one a long node's first part names), read as load_skill reads it.
    const own = isOwnFileUri(skill, asked, ctx);
    const relative = own ? basename(skill.file) : relativeOf(skill, asked, ctx);
    if (relative === undefined) return notUnder(skill, asked, ctx, "file_path");
    const inFolder = serverPathIn(skill, relative);
    if (inFolder !== undefined) {
      // Not quoted back: over HTTP, a path of the server is shown as its URI, which would read as refused too.
      const place = skillPlace(skill, ctx);
      return errorResult(
        "PATH_OUTSIDE_SKILL",
        `file_path was an absolute path of ${place.remote ? "the server's disk" : "the skill's folder"}; read_skill_file takes the path relative to the skill's folder: pass '${inFolder}'${place.remote ? ` (or the file's URI ${place.uri(inFolder)})` : ""}.`,
        { skill: skill.name, file_path: shownArg(relative), suggestions: [inFolder] },
      );
    }
    const max = Math.min(length ?? deps.config.files.max_file_bytes, deps.config.files.max_file_bytes);
    // An offset or a length, even offset 0, asks for parts: a binary file too large for one answer comes in parts.
    const explicit = from !== undefined || length !== undefined;
    // A whole image asked for without either goes to the model as an image, up to assets.max_size_bytes (and
    // the most a model's API takes): its bytes are not repeated as base64, so they take none of the answer's
    // budget. A file named as one is read that far, and cut back to `max` when it turns out not to be one.
    const imageCap = Math.min(deps.config.assets.max_size_bytes, MAX_VIEWABLE_IMAGE_BYTES);
    const readAt = (path: string, bound?: AnswerBound): Attempt => {
      const checked = checkRelativePath(path);
      if (!checked.ok) return { reason: checked.reason };
      if (own) return { path: checked.path, read: readNodeFile(deps.frozen, skill, offset + max) };
      // A tree node's declared files, inherited ones too, are read where the node declaring them has them.
      const owner =
        (skill.kind === "tree-node" && findFileInChain(deps.store.catalog, skill, checked.path)?.owner) || skill;
      const upTo = (bytes: number, counted?: ImageCount) =>
        readServedFile(deps.frozen, owner, checked.path, offset + bytes, "truncate", counted);
      // Security: over HTTP, an image read whole counts against the answers held at once before it is read.
      const asImage = bound && imageCount(bound, imageCap);
      const named = !explicit && namesViewableImage(checked.path);
      const read = named ? upTo(Math.max(max, imageCap), asImage) : upTo(max);
      // A link is judged by the file it leads to, as the image check below judges it (`diagram` → `diagram.png`):
      // one whose own name is not an image's is read again, as far, when that file may be one. The same
      // confined read, so it serves nothing outside the skill.
      const mayBeImage = !named && !explicit && read.ok && read.truncated && read.size <= imageCap;
      return {
        path: checked.path,
        read: mayBeImage && namesViewableImage(read.real) ? upTo(imageCap, asImage) : read,
      };
    };
    const built = await withinAnswerBudget(ctx, (bound) => {
      let file_path = relative;
      let attempt = readAt(file_path, bound);
      // A Markdown link's target copied whole (`references/api.md#auth`, `my%20notes.md`) names the file it
      // links to, when no file has the name as written.
      const linked = own ? file_path : linkTarget(file_path);
      if (linked !== file_path && !found(attempt)) {
        const again = readAt(linked, bound);
        if (found(again)) [file_path, attempt] = [linked, again];
      }
      return { file_path, attempt };
    });
    if ("refused" in built) return built.refused;
    const { file_path, attempt } = built.value;
    if (!("read" in attempt)) {
      const hint = missedFileHint(skill, file_path, ctx);
      const why = climbsOut(file_path) ? CLIMBS_OUT : attempt.reason;
      return errorResult(
        "PATH_OUTSIDE_SKILL",
        `'${shownArg(file_path)}' ${why}.${hint?.sentence ?? ""} ${INSIDE_ONLY}`,
        { skill: skill.name, file_path: shownArg(file_path), ...suggested(hint) },
      );
    }
    const { read } = attempt;
    if (isRefused(read)) return refusalResult(skill, read.refused);
    if (!read.ok) {
      const hint = read.code === "FILE_NOT_FOUND" && !own ? missedFileHint(skill, file_path, ctx) : undefined;
      const advice =
        read.code === "PATH_OUTSIDE_SKILL" ? INSIDE_ONLY : `load_skill('${skill.name}') lists the skill's files.`;
      return errorResult(
        read.code,
        `${shownReason(read.reason, attempt.path).replace(/\.$/, "")}.${hint?.sentence ?? ""} ${advice}`,
        { skill: skill.name, file_path: shownArg(file_path), ...suggested(hint) },
      );
    }
    if (offset > 0 && offset >= read.size)
      return errorResult(
        "INVALID_ARGUMENT",
        `offset ${offset} is past the end of '${file_path}' (${read.size} bytes). Read from an offset below its size.`,
        { skill: skill.name, file_path, size_bytes: read.size },
      );
    const image = !explicit && !read.truncated && read.size <= imageCap && isViewableImage(read.real, read.bytes);
    const served = image ? read : upTo(read, offset + max);
    deps.track(
      "asset_served",
      {
        tool: "read_skill_file",
        skill_path: skill.name,
        file: file_path,
        size_bytes: served.size,
        truncated: !image && (served.truncated || offset > 0),
      },
      ctx.session.address,
    );
    if (image) return imageAnswer(file_path, served);
    const binary = isBinaryFile(served.real, served.bytes);
    if (binary && served.truncated && !explicit)
      return errorResult(
        "FILE_TOO_LARGE",
        `'${file_path}' is a ${served.size}-byte binary file; this server returns at most ${max} bytes (MAX_FILE_BYTES) at once, and a cut binary file is useless by itself. Read it in parts with offset and length, then join them.`,
        { skill: skill.name, file_path, size_bytes: served.size, max_bytes: max },
      );
    const part = filePart(served.bytes, offset, served.size, binary, resultBudget(ctx));
    return structuredResult({
      ...(binary
        ? { content: Buffer.from(part.bytes).toString("base64"), encoding: "base64" as const }
        : { content: part.text, encoding: "utf-8" as const }),
      truncated: part.next !== undefined,
      size_bytes: served.size,
      ...(binary ? { mime_type: binaryMimeType(served.real) } : {}),
      ...(part.start > 0 || part.next !== undefined ? { offset: part.start } : {}),
      ...(part.next !== undefined ? { next_offset: part.next } : {}),
    });
  },
});

/**
 * A whole image, shown to the model as an image block. Its structured content holds none of its bytes (base64
 * there would fill the answer a client hands its model, and repeat the image): it says the file goes on from
 * offset 0, where a client that wants the bytes (to save the file) reads them as base64 parts.
 */
function imageAnswer(file_path: string, read: CheckedFile): CallToolResult {
  const mimeType = binaryMimeType(read.real);
  // Clients that hand their model the structured content (Claude Code) drop the text: the note says it there
  // too, so that a model does not read the image again as base64 parts it cannot look at.
  const note = `${file_path}: ${mimeType}, ${read.size} bytes, sent as an image; read it from offset 0 only to save the file (its bytes as base64).`;
  return imageResult(
    {
      content: "",
      encoding: "base64",
      truncated: true,
      size_bytes: read.size,
      mime_type: mimeType,
      offset: 0,
      next_offset: 0,
      note,
    },
    { base64: read.bytes.toString("base64"), mimeType },
    note,
  );
}

/** How a read that may send a whole image is counted in its answer (imageCount). */
type ImageCount = Pick<ConfinedReadOptions, "beforeRead">;

/**
 * A file read to be sent whole as an image counted before its bytes are read (ToolContext.bounded): one the
 * answer may send so (a viewable image's name on the file opened, at most `cap` bytes) takes its base64 there.
 * One whose bytes then prove it no image is sent in a part instead; its bound is given back once it is read.
 */
function imageCount(bound: AnswerBound, cap: number): ImageCount {
  return {
    beforeRead: (size, real) => {
      if (size <= cap && namesViewableImage(real)) bound(base64JsonBytes(size));
    },
  };
}

/** A read cut back to its first `maxBytes` (a file named as an image is read further, to send it whole). */
function upTo(read: CheckedFile, maxBytes: number): CheckedFile {
  return read.bytes.length <= maxBytes ? read : { ...read, bytes: read.bytes.subarray(0, maxBytes), truncated: true };
}

/**
 * A tree node's own file, its first `maxBytes`: one confined read of all of it (a node's file is read whole to
 * serve it), checked, frozen, as the lock records the node's file.
 */
function readNodeFile(
  frozen: FrozenGuard | undefined,
  skill: Skill,
  maxBytes: number,
): CheckedFile | ConfinedFailure | Refused {
  const read = readSkillSourceBytes(skill);
  if (!read.ok) return read;
  const refused = frozen?.checkRead(skill, null, read.sha256);
  if (refused) return { ok: false, refused };
  return {
    ok: true,
    bytes: read.bytes.subarray(0, maxBytes),
    size: read.size,
    truncated: read.size > maxBytes,
    real: read.real,
  };
}

/**
 * The relative path of a file of `skill`'s folder that `asked` names by its absolute path on this machine
 * (a model that saw one, in a script's output or a local answer, sends it back); undefined for any other.
 */
function serverPathIn(skill: Skill, asked: string): string | undefined {
  if (!isAbsolute(asked) || asked.includes("\0")) return undefined;
  const path = normalize(asked);
  for (const base of new Set([skill.dir, realOr(skill.dir)])) {
    if (path !== base && isInside(base, path))
      return path
        .slice(base.length + 1)
        .split(sep)
        .join("/");
  }
  return undefined;
}

/** A path a client sent: refused as it is written (the reason), or read (the path checked, and the read). */
type Attempt = { reason: string } | { path: string; read: CheckedFile | ConfinedFailure | Refused };

/** Whether a read found a file (served, or refused by the lock), rather than a bad path or none at all. */
function found(attempt: Attempt): boolean {
  return "read" in attempt && (isRefused(attempt.read) || attempt.read.ok);
}

/** A miss's suggested paths as an answer's details, when there are any. */
function suggested(hint: MissedFileHint | undefined): { suggestions?: string[] } {
  return hint && hint.suggestions.length > 0 ? { suggestions: hint.suggestions } : {};
}

/** Characters of an answer besides its content (field names, indentation, sizes, offsets, a MIME type). */
const ANSWER_OVERHEAD = 300;

interface FilePart {
  start: number;
  bytes: Uint8Array;
  text: string;
  next?: number;
}

/**
 * The part of a file to return: `prefix` holds its bytes up to at most
 * offset + the read's limit. Text starts on a character (an offset inside
 * one moves to the next), ends on a whole character, and, when the file goes
 * on, on a line end if one is near; its JSON (the text the client shows) must
 * fit `budget` characters. Binary parts are base64 (4 characters per 3 bytes).
 */
function filePart(prefix: Uint8Array, offset: number, size: number, binary: boolean, budget: number): FilePart {
  const room = Math.max(1024, budget - ANSWER_OVERHEAD);
  let start = offset;
  if (!binary) while (start < prefix.length && ((prefix[start] ?? 0) & 0xc0) === 0x80) start++;
  const fileGoesOn = (end: number) => end < size;
  if (binary) {
    const end = Math.min(prefix.length, start + Math.floor((room * 3) / 4));
    return { start, bytes: prefix.subarray(start, end), text: "", ...(fileGoesOn(end) ? { next: end } : {}) };
  }
  let text = decodeUtf8Prefix(prefix.subarray(start), fileGoesOn(prefix.length));
  for (;;) {
    const over = JSON.stringify(text).length - room;
    if (over <= 0) break;
    text = text.slice(0, partEnd(text, text.length - over));
  }
  const end = start + Buffer.byteLength(text, "utf8");
  return { start, bytes: prefix.subarray(start, end), text, ...(fileGoesOn(end) ? { next: end } : {}) };
}

/** UTF-8 text of a byte prefix; a character cut in half at the end is dropped, not turned into garbage. */
function decodeUtf8Prefix(bytes: Uint8Array, cut: boolean): string {
  let end = bytes.length;
  if (cut) {
    // Step back over continuation bytes (10xxxxxx) to the start of the last character, and drop it if incomplete.
    let start = end - 1;
    while (start > 0 && start > end - 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
    const lead = bytes[start] ?? 0;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - start < need) end = start;
  }
  return fileText.decode(bytes.subarray(0, end));
}
