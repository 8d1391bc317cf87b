import { type ParseResult, parseAgentSkill } from "../skills/agent-skill.ts";
import { readSkillSource, readSkillSourceBytes } from "../skills/skill-read.ts";
import { parseTreeNode, type TreeParse } from "../skills/tree-node.ts";
import { linksConfined, type Source } from "../sources/source-list.ts";
import { fileStamp } from "../sources/stamp.ts";
import type { FileEntry, FolderBudget, SkillDirEntry, WalkLimits } from "../sources/walk.ts";
import { type ConfinedFailure, MAX_INSTRUCTIONS_BYTES } from "../util/confined-read.ts";
import { diagnostic } from "../util/diagnostic.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";
import { digestBytes } from "./skill-digest.ts";

/**
 * How the scanner reads: which walk limits a source gets, how a SKILL.md or a
 * loose `.md` file becomes a parse, and the diagnostics of files it cannot read.
 */

/** A SKILL.md larger than this is not parsed (it would flood any context it is loaded into). */
export const MAX_SKILL_FILE_BYTES = MAX_INSTRUCTIONS_BYTES;

/** `readText` replaces the confined reader (tests that fake file-system failures). */
export type ReadText = (file: string) => string;

/**
 * Synced repositories and plugins keep their links inside themselves, the project's folders inside the
 * project, and these share `project`, the folders the project's folders may read together; the user's own
 * folders follow links. Only a synced repository's walk may enter the repository copies (`limits.copies`).
 */
export function walkLimits(limits: WalkLimits, source: Source, project?: FolderBudget): WalkLimits {
  if (source.within !== undefined) return { ...limits, within: source.within, ...(project ? { shared: project } : {}) };
  if (source.location === "remote") {
    // A synced repository's source is its copy, checked before it is listed as a source.
    const { copies: _, ...own } = limits;
    return { ...own, confineLinks: true };
  }
  return linksConfined(source) ? { ...limits, confineLinks: true } : limits;
}

/**
 * What the project's folders may read together in one scan: as many folders as one source may. Security: a
 * project names up to MAX_PROJECT_DIRS folders in its skillhub.yaml, each of which could otherwise cost a
 * whole source's walk (nested ones walk the same tree again).
 */
export function projectBudget(limits: WalkLimits): FolderBudget {
  return { max: limits.maxDirs, left: limits.maxDirs };
}

/** A test's injected reader, as a confined read's result. */
export function readInjected(readText: ReadText, file: string): { ok: true; text: string } | ConfinedFailure {
  try {
    return { ok: true, text: readText(file) };
  } catch (error) {
    const code = errnoCode(error);
    return {
      ok: false,
      code: code === "EACCES" || code === "EPERM" ? "PERMISSION_DENIED" : "FILE_NOT_FOUND",
      reason: `cannot read (${code ?? errorMessage(error)})`,
    };
  }
}

export function unreadable(file: string, failure: ConfinedFailure, severity: "warning" | "error", then: string) {
  const reason = failure.reason.replace(/\.$/, "");
  return diagnostic("unreadable", severity, file, `cannot read (${failure.code}: ${reason}); ${then}.`);
}

export function tooLarge(file: string, size: number) {
  return diagnostic(
    "file-too-large",
    "error",
    file,
    `SKILL.md is ${size} bytes; the limit is ${MAX_INSTRUCTIONS_BYTES}. Move detail into separate files. Skill not served.`,
  );
}

/** A SKILL.md, read (confined) and parsed. */
export function parseSkillEntry(entry: SkillDirEntry, source: Source, readText?: ReadText): ParseResult {
  if (entry.size > MAX_SKILL_FILE_BYTES) {
    return {
      diagnostics: [
        diagnostic(
          "file-too-large",
          "error",
          entry.file,
          `SKILL.md is ${entry.size} bytes; the limit is ${MAX_SKILL_FILE_BYTES}. Move detail into separate files. Skill not served.`,
        ),
      ],
    };
  }
  const base = { file: entry.file, dir: entry.dir, ...fileStamp(entry) };
  if (readText) {
    const read = readInjected(readText, entry.file);
    if (!read.ok) return { diagnostics: [unreadable(entry.file, read, "error", "Skill not served")] };
    return parseAgentSkill({ ...base, text: read.text });
  }
  // Security: the one confined reader (inside the skill's real folder, regular file, at most 1 MiB, never blocks).
  const read = readSkillSourceBytes({
    kind: "agent-skill",
    dir: entry.dir,
    file: entry.file,
    root: source.dir,
    location: source.location,
    source: source.label,
  });
  if (!read.ok) {
    if (read.code === "FILE_TOO_LARGE") return { diagnostics: [tooLarge(entry.file, read.size ?? entry.size)] };
    return { diagnostics: [unreadable(entry.file, read, "error", "Skill not served")] };
  }
  // What was read is what is parsed and hashed: its size and stamp, not the walk's, describe it.
  const { mtimeMs, ctimeMs, ino } = read;
  return parseAgentSkill({ ...base, size: read.bytes.length, mtimeMs, ctimeMs, ino, ...digestBytes(read.bytes) });
}

/** Confined-read refusals for what a file is, not for a state a stat cannot see. */
const REFUSED_FOR_WHAT_IT_IS = new Set(["PATH_OUTSIDE_SKILL", "NOT_A_REGULAR_FILE", "FILE_TOO_LARGE"]);

/**
 * A loose `.md` file (a candidate tree node), read (confined) and parsed. `cache` false when it could not
 * be read for a reason a stat does not show (permissions, a race); a refusal for what the file is (a link
 * out of the source, not a regular file) is kept: a change there changes the file's stamp or where its
 * link leads, which the walk records.
 */
export function parseTreeEntry(
  entry: FileEntry,
  source: Source,
  readText?: ReadText,
): { parse: TreeParse; cache: boolean } {
  if (entry.size > MAX_SKILL_FILE_BYTES) {
    const message = `${entry.size} bytes; Markdown files over ${MAX_SKILL_FILE_BYTES} bytes are not read as tree nodes.`;
    return {
      parse: { kind: "other", diagnostics: [diagnostic("file-too-large", "warning", entry.file, message)] },
      cache: true,
    };
  }
  const read: { ok: true; text: string; sha256?: string } | ConfinedFailure = readText
    ? readInjected(readText, entry.file)
    : readSkillSource({
        kind: "tree-node",
        dir: entry.file,
        file: entry.file,
        root: source.dir,
        location: source.location,
        source: source.label,
      });
  if (!read.ok)
    return {
      parse: { kind: "other", diagnostics: [unreadable(entry.file, read, "warning", "skipped")] },
      cache: REFUSED_FOR_WHAT_IT_IS.has(read.code),
    };
  // The hash is that of the bytes read (a BOM included), as skillhub.lock records them.
  return { parse: parseTreeNode(entry.file, read.text, read.sha256), cache: true };
}
