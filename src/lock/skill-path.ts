import { basename, dirname, isAbsolute, relative, sep } from "node:path";
import type { Skill } from "../skills/skill.ts";

/**
 * A skill's file relative to its source root, with "/" separators: what the
 * lock records instead of a machine path (home folders and project paths
 * differ between teammates; the layout inside a source does not).
 */
export function relativeSkillPath(skill: Pick<Skill, "file" | "root">): string {
  const rel = relative(skill.root, skill.file);
  // Security (no path leaks): a file outside its root (never produced by the walk) keeps only its last two names.
  if (rel.startsWith("..") || isAbsolute(rel)) return `${basename(dirname(skill.file))}/${basename(skill.file)}`;
  return rel.split(sep).join("/");
}
