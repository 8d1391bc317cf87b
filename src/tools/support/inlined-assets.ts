import type { FrozenGuard } from "../../lock/frozen.ts";
import type { Skill } from "../../skills/skill.ts";
import { isBinaryExtension } from "../../util/file-kind.ts";
import type { AnswerBound } from "../definition.ts";
import { readAsset } from "./asset-read.ts";

/** A declared asset as get_skill lists it (the declaration's fields, its URI over HTTP). */
export interface ListedAsset {
  file: string;
  content?: string;
  size_bytes?: number;
}

/** Where a listed asset's bytes are: the node that declares it, and its size on disk when it was listed. */
export interface AssetSource {
  owner: Skill;
  size: number;
}

/** One list of get_skill's answer (`assets`, `inherited_assets`) with the source of each entry, in order. */
export interface AssetList<T extends ListedAsset> {
  entries: readonly T[];
  sources: readonly AssetSource[];
}

export interface InlineOptions {
  /** assets.inline_text_max_bytes: larger text assets are never inlined (bytes; 0: none is). */
  maxBytes: number;
  /** Characters the inlined contents may add to the answer's JSON text, all lists together. */
  room: number;
  /** Frozen mode: inlined only when the lock records these very bytes (readAsset). */
  frozen?: FrozenGuard;
  /** The answer's bound over HTTP, told each asset's size before it is read (readAsset). */
  bound?: AnswerBound;
}

/** The text assets left without their content because the room was spent: how many, and their bytes on disk. */
export interface Unsent {
  count: number;
  bytes: number;
}

/** Most assets read to be inlined in one answer, however small, sent or not: each is a file opened and read. */
export const MAX_INLINED_ASSETS = 100;

/** `,"content":` before an inlined text's JSON string. */
const CONTENT_KEY_CHARS = ',"content":'.length;

/**
 * The lists with their small text assets' contents, in order (own assets first), while the contents fit
 * `room`, each counted as the characters its JSON adds to the answer, and at most MAX_INLINED_ASSETS files
 * are read for them (one found binary after all, a NUL byte in a `.txt`, counts too). The first that does not
 * fit ends the inlining: it and every text asset after it that could have been inlined are listed with
 * `size_bytes` instead, and counted in `unsent`. Security: a node may declare thousands of assets (links to
 * one file are allowed), and inlining each held the whole answer, hundreds of MB, in one JSON-RPC line; now
 * at most `room` characters of contents are sent, and at most MAX_INLINED_ASSETS files are read.
 */
export function inlineAssets<T extends ListedAsset>(
  lists: readonly AssetList<T>[],
  options: InlineOptions,
): { lists: T[][]; unsent?: Unsent } {
  let left = options.room;
  let count = 0;
  let full = false;
  const unsent: Unsent = { count: 0, bytes: 0 };
  const inlined = lists.map(({ entries, sources }) =>
    entries.map((entry, i): T => {
      const source = sources[i];
      if (!source || !inlinable(entry.file, source.size, options.maxBytes)) return entry;
      // A text is at least a character per three bytes (UTF-8): one that cannot fit is not read.
      if (!full && (count === MAX_INLINED_ASSETS || Math.ceil(source.size / 3) + CONTENT_KEY_CHARS + 2 > left))
        full = true;
      if (!full) {
        // Counted as read whether or not it is sent: one binary after all is read too.
        count++;
        const text = inlineText(source.owner, entry.file, options);
        if (text === undefined) return entry;
        const chars = CONTENT_KEY_CHARS + JSON.stringify(text).length;
        if (chars <= left) {
          left -= chars;
          return { ...entry, content: text };
        }
        full = true;
      }
      unsent.count++;
      unsent.bytes += source.size;
      return { ...entry, size_bytes: source.size };
    }),
  );
  return unsent.count > 0 ? { lists: inlined, unsent } : { lists: inlined };
}

/** Text by its extension and within assets.inline_text_max_bytes on disk: inlined when there is room. */
function inlinable(file: string, size: number, maxBytes: number): boolean {
  return maxBytes > 0 && size <= maxBytes && !isBinaryExtension(file);
}

/**
 * A declared text asset's content, read through the same bounded, confined reader as get_asset; undefined
 * when it is binary after all (a NUL byte in its first KiB), grew past the limit, or cannot be read now.
 */
function inlineText(owner: Skill, file: string, options: InlineOptions): string | undefined {
  const read = readAsset(owner, file, options.maxBytes, { frozen: options.frozen, bound: options.bound });
  return read.ok && !read.binary ? read.text : undefined;
}
