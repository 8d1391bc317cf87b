import type { Catalog } from "../catalog/catalog.ts";
import { findFileInChain } from "../catalog/tree-chain.ts";
import { isRefused } from "../lock/checked-read.ts";
import type { FrozenGuard } from "../lock/frozen.ts";
import type { Skill } from "../skills/skill.ts";
import { filesBase } from "../tools/support/asset-read.ts";
import { readServedFile } from "../tools/support/served-file.ts";
import { binaryMimeType, hasNulByte, isBinaryFile, mimeTypeFor } from "../util/file-kind.ts";
import { checkRelativePath } from "../util/safe-path.ts";
import type { PageLinks } from "./markdown-links.ts";
import { type FileEntry, MAX_RENDERED_CHARS, pageLinks } from "./skill-detail.ts";

export type FileView =
  | {
      ok: true;
      path: string;
      sizeBytes: number;
      truncated: boolean;
      binary: boolean;
      /** A binary file's type; for a text file, only an SVG's (shown as its source). */
      mimeType?: string;
      /** Text files: the first `maxBytes` bytes as UTF-8. Binary files are described, not sent. */
      text?: string;
      /**
       * Markdown files up to MAX_RENDERED_CHARS: what routes.ts renders off the server's thread
       * (markdown-page.ts); a longer one is shown as text. No links from a tree node's file.
       */
      markdown?: { source: string; links?: PageLinks };
    }
  | { ok: false; code: "FILE_NOT_FOUND" | "PATH_OUTSIDE_SKILL"; message: string };

/**
 * One file of a skill for the page, through the confinement read_skill_file
 * and get_asset use: a relative path, resolved to its real path, which must
 * stay inside the skill's real folder (a tree node's: the declaring node's
 * resource folder). Opened non-blocking, checked to be a regular file on the
 * descriptor, at most `maxBytes` read (MAX_FILE_BYTES). `listed`: the skill's files as its page lists
 * them (skillDetail), where a Markdown file's relative links may lead.
 */
export function readFileView(
  catalog: Catalog,
  skill: Skill,
  requested: string,
  maxBytes: number,
  frozen?: FrozenGuard,
  listed: { files: readonly FileEntry[]; truncated: boolean } = { files: [], truncated: true },
): FileView {
  const checked = checkRelativePath(requested);
  if (!checked.ok) return { ok: false, code: "PATH_OUTSIDE_SKILL", message: `'${requested}' ${checked.reason}.` };
  let owner: Skill = skill;
  if (skill.kind === "tree-node") {
    // Security: a tree node's files are only those it (or an ancestor) declares, as get_asset serves them.
    const hit = findFileInChain(catalog, skill, checked.path);
    if (!hit)
      return {
        ok: false,
        code: "FILE_NOT_FOUND",
        message: `'${checked.path}' is not declared by ${skill.name} or the nodes it inherits from.`,
      };
    owner = hit.owner;
  }
  const base = filesBase(owner);
  if (base === undefined) return { ok: false, code: "FILE_NOT_FOUND", message: `'${checked.path}' does not exist.` };
  // Security: the very read read_skill_file and get_asset make (tools/support/served-file.ts): inside the real
  // folder, never version-control metadata nor a nested skill's file, a regular file opened without
  // blocking, read once, at most maxBytes (a longer file is shown truncated). Frozen: the bytes shown are
  // the start of those hashed and found in the lock (lock/checked-read.ts).
  const read = readServedFile(frozen, owner, checked.path, maxBytes, "truncate", { base });
  if (isRefused(read))
    return { ok: false, code: "PATH_OUTSIDE_SKILL", message: `${read.refused.code}: ${read.refused.message}` };
  if (!read.ok) {
    const code = read.code === "PATH_OUTSIDE_SKILL" ? "PATH_OUTSIDE_SKILL" : "FILE_NOT_FOUND";
    return { ok: false, code, message: read.reason };
  }
  const bytes = read.bytes;
  // An SVG is text: the page shows its source (never draws it, which would run its script on the page's origin).
  const svg = mimeTypeFor(checked.path) === "image/svg+xml" && !hasNulByte(bytes);
  if (!svg && isBinaryFile(checked.path, bytes))
    return {
      ok: true,
      path: checked.path,
      sizeBytes: read.size,
      truncated: read.truncated,
      binary: true,
      mimeType: binaryMimeType(checked.path),
    };
  const text = new TextDecoder().decode(bytes);
  const markdown = /\.(md|markdown)$/i.test(checked.path);
  const dir = checked.path.includes("/") ? checked.path.slice(0, checked.path.lastIndexOf("/") + 1) : "";
  return {
    ok: true,
    path: checked.path,
    sizeBytes: read.size,
    truncated: read.truncated,
    binary: false,
    ...(svg ? { mimeType: "image/svg+xml" } : {}),
    text,
    ...(markdown && text.length <= MAX_RENDERED_CHARS
      ? {
          markdown: {
            source: text,
            ...(skill.kind === "tree-node" ? {} : { links: pageLinks(skill, dir, listed.files, listed.truncated) }),
          },
        }
      : {}),
  };
}
