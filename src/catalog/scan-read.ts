import type { Source } from "../sources/source-list.ts";
import type { WalkLimits } from "../sources/walk.ts";
import { type ConfinedFailure, MAX_INSTRUCTIONS_BYTES } from "../util/confined-read.ts";
import { diagnostic } from "../util/diagnostic.ts";
import { errnoCode, errorMessage } from "../util/errors.ts";

/** How the scanner reads: which walk limits a source gets, and the diagnostics of files it cannot read. */

/** Synced repositories keep their links inside themselves (DESIGN §3, issue 13); local folders follow links. */
export function walkLimits(limits: WalkLimits, source: Source): WalkLimits {
  return source.location === "remote" ? { ...limits, confineLinks: true } : limits;
}

/** A test's injected reader, as a confined read's result. */
export function readInjected(
  readText: (file: string) => string,
  file: string,
): { ok: true; text: string } | ConfinedFailure {
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
