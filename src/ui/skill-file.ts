import { closeSync, constants, fstatSync, openSync } from "node:fs";
import type { Catalog } from "../catalog/catalog.ts";
import { findFileInChain } from "../catalog/tree-chain.ts";
import type { Skill } from "../skills/skill.ts";
import { locateFile, readAtMost } from "../tools/support/asset-read.ts";
import { errnoCode } from "../util/errors.ts";
import { isBinaryFile, mimeTypeFor } from "../util/file-kind.ts";
import { checkRelativePath, type InsideResult, resolveInside } from "../util/safe-path.ts";
import { renderMarkdown } from "./markdown.ts";
import { fileHref } from "./skill-detail.ts";

export type FileView =
  | {
      ok: true;
      path: string;
      sizeBytes: number;
      truncated: boolean;
      binary: boolean;
      mimeType?: string;
      /** Text files: the first `maxBytes` bytes as UTF-8. Binary files are described, not sent. */
      text?: string;
      /** Markdown files: the text rendered by the safe renderer. */
      html?: string;
    }
  | { ok: false; code: "FILE_NOT_FOUND" | "PATH_OUTSIDE_SKILL"; message: string };

/**
 * One file of a skill for the page, through the confinement read_skill_file
 * and get_asset use: a relative path, resolved to its real path, which must
 * stay inside the skill's real folder (a tree node's: the declaring node's
 * resource folder). Opened non-blocking, checked to be a regular file on the
 * descriptor, at most `maxBytes` read (MAX_FILE_BYTES).
 */
export function readFileView(catalog: Catalog, skill: Skill, requested: string, maxBytes: number): FileView {
  const checked = checkRelativePath(requested);
  if (!checked.ok) return { ok: false, code: "PATH_OUTSIDE_SKILL", message: `'${requested}' ${checked.reason}.` };
  let located: InsideResult;
  if (skill.kind === "tree-node") {
    // Security: a tree node's files are only those it (or an ancestor) declares, as get_asset serves them.
    const hit = findFileInChain(catalog, skill, checked.path);
    if (!hit)
      return {
        ok: false,
        code: "FILE_NOT_FOUND",
        message: `'${checked.path}' is not declared by ${skill.name} or the nodes it inherits from.`,
      };
    located = locateFile(hit.owner, checked.path);
  } else {
    located = resolveInside(skill.dir, checked.path);
  }
  if (!located.ok) return { ok: false, code: located.code, message: `${located.reason}.` };
  let fd: number;
  try {
    // Security: O_NONBLOCK so that a FIFO in the file's place cannot hang the request on open.
    fd = openSync(located.real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { ok: false, code: "FILE_NOT_FOUND", message: `'${checked.path}' cannot be opened (${errnoCode(error)}).` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, code: "FILE_NOT_FOUND", message: `'${checked.path}' is not a file.` };
    const bytes = readAtMost(fd, maxBytes, stat.size);
    const truncated = stat.size > bytes.length;
    if (isBinaryFile(located.real, bytes))
      return {
        ok: true,
        path: checked.path,
        sizeBytes: stat.size,
        truncated,
        binary: true,
        mimeType: mimeTypeFor(located.real),
      };
    const text = new TextDecoder().decode(bytes);
    const markdown = /\.(md|markdown)$/i.test(checked.path);
    const dir = checked.path.includes("/") ? checked.path.slice(0, checked.path.lastIndexOf("/") + 1) : "";
    return {
      ok: true,
      path: checked.path,
      sizeBytes: stat.size,
      truncated,
      binary: false,
      text,
      ...(markdown
        ? {
            html: renderMarkdown(text, {
              file: (p) => (skill.kind === "tree-node" ? undefined : fileHref(skill.id, dir + p)),
            }),
          }
        : {}),
    };
  } finally {
    closeSync(fd);
  }
}
