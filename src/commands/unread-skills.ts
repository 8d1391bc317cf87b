import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";

/** How many entries of a folder are looked at: a hint, not a scan. */
const LOOK_AT = 200;

/**
 * The folder among the working directory and its `skills/` that holds skill folders (`<name>/SKILL.md`)
 * no source reads: a clone of a skills repository, where `skillhub list` would otherwise only say
 * "no skills found". Undefined when there is none, or when it is searched already.
 */
export function unreadSkillsFolder(cwd: string, searched: readonly string[]): string | undefined {
  for (const dir of [join(cwd, "skills"), cwd]) {
    if (searched.includes(dir)) continue;
    if (holdsSkillFolders(dir)) return dir;
  }
  return undefined;
}

function holdsSkillFolders(dir: string): boolean {
  try {
    const entries = readdirSync(dir, { withFileTypes: true }).slice(0, LOOK_AT);
    return entries.some((e) => e.isDirectory() && existsSync(join(dir, e.name, "SKILL.md")));
  } catch {
    return false;
  }
}

/** The sentence that names such a folder and how to read it, relative to the working directory. */
export function unreadSkillsHint(cwd: string, dir: string): string {
  if (dir === cwd) return `${dir} holds skill folders, but no source reads it: pass --skills-dir .`;
  return `${dir} holds skill folders, but no source reads it: pass --skills-dir ./skills, or run \`skillhub add ./skills\` to add it to this project's skillhub.yaml.`;
}

/**
 * The hint for `catalog`'s sources, or undefined: said beside whatever a command found, since skills from
 * elsewhere (a personal ~/.claude/skills) must not hide a project's `skills/` folder that nothing reads.
 */
export function unreadSkillsNote(cwd: string, catalog: Catalog): string | undefined {
  const unread = unreadSkillsFolder(
    cwd,
    catalog.sources.map((s) => s.dir),
  );
  return unread && unreadSkillsHint(cwd, unread);
}
