import { realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { shownArg } from "./shown-arg.ts";

/**
 * Path checks for files a client names (get_asset, read_skill_file) or a
 * skill declares (tree assets and scripts). Small pure functions first; the
 * one that touches the disk (`resolveInside`) takes its realpath as a parameter.
 */

export type RelativePathCheck = { ok: true; path: string } | { ok: false; reason: string };

/** No file's path is longer (PATH_MAX). */
const MAX_PATH_CHARS = 4096;

/**
 * A relative path inside a folder, normalised to "a/b/c", or why it is refused.
 * Pure: looks at the text only.
 */
export function checkRelativePath(input: string): RelativePathCheck {
  // Security: a NUL byte truncates paths in some system calls, so "a.md\0../../x" could mean two things.
  if (input.includes("\0")) return { ok: false, reason: "contains a NUL byte" };
  const text = input.trim();
  if (text === "") return { ok: false, reason: "is empty" };
  // Security: a longer one names no file, and each folder in it would cost a check.
  if (text.length > MAX_PATH_CHARS) return { ok: false, reason: `is longer than ${MAX_PATH_CHARS} characters` };
  // Security: absolute paths (POSIX "/x", Windows "\x", UNC "\\host") would ignore the base folder.
  if (text.startsWith("/") || text.startsWith("\\"))
    return { ok: false, reason: "is absolute; give a path relative to the skill's folder" };
  // Security: "C:foo" and "C:\foo" name another drive on Windows, whatever the base folder.
  if (/^[A-Za-z]:/.test(text))
    return { ok: false, reason: "starts with a drive letter; give a path relative to the skill's folder" };
  // Backslashes are separators on Windows: treat them as such everywhere, so "..\\x" is caught too.
  const segments = text.split(/[\\/]+/).filter((s) => s !== "" && s !== ".");
  // Security: ".." climbs out of the base folder; refused even when it would climb back in.
  if (segments.includes("..")) return { ok: false, reason: "contains '..'" };
  if (segments.length === 0) return { ok: false, reason: "names the folder itself, not a file" };
  return { ok: true, path: segments.join("/") };
}

/** The real path of `path` (links followed), or `path` itself when it cannot be resolved (missing, a loop). */
export function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether `child` is `parent` or inside it. Both must be absolute and normalised (real paths). Pure. */
export function isInside(parent: string, child: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(base);
}

export type InsideResult =
  | { ok: true; path: string; real: string }
  | { ok: false; code: "PATH_OUTSIDE_SKILL" | "FILE_NOT_FOUND"; reason: string };

/**
 * Resolve `rel` under the folder whose real path is `baseReal` (skill-read.ts realFolder decides it) and make
 * sure the real file stays inside it. `realpath` is injectable for tests; it throws for a missing path.
 */
export function resolveInside(
  baseReal: string,
  rel: string,
  realpath: (path: string) => string = realpathSync,
): InsideResult {
  const checked = checkRelativePath(rel);
  if (!checked.ok) return { ok: false, code: "PATH_OUTSIDE_SKILL", reason: `'${shownArg(rel)}' ${checked.reason}` };
  const path = join(baseReal, checked.path);
  let real: string;
  try {
    real = realpath(path);
  } catch {
    return { ok: false, code: "FILE_NOT_FOUND", reason: `'${shownArg(checked.path)}' does not exist` };
  }
  // Security: a symlink inside the folder may point anywhere (/etc/passwd, ~/.ssh); only its target counts.
  if (!isInside(baseReal, real))
    return {
      ok: false,
      code: "PATH_OUTSIDE_SKILL",
      reason: `'${shownArg(checked.path)}' resolves outside the skill's folder`,
    };
  return { ok: true, path, real };
}
