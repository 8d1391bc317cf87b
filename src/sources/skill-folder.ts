import { join } from "node:path";
import { statOf } from "../util/stat.ts";

/** A plain folder-like name: letters, digits, dot, underscore, hyphen; no leading dot. */
const SAFE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/**
 * Whether `<dir>/<name>/SKILL.md` exists. Security: only a
 * single plain segment is ever joined (no separators, no "..", no NUL), and
 * only to stat it; the skill itself is still found through the rebuilt catalog.
 */
export function hasSkillFolder(dir: string, name: string): boolean {
  if (!SAFE_SEGMENT.test(name) || name.includes("..")) return false;
  return statOf(join(dir, name, "SKILL.md"))?.isFile() ?? false;
}
