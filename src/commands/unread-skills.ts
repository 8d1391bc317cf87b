import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { program } from "../util/program-name.ts";

/** How many entries of a folder are looked at: a hint, not a scan. */
const LOOK_AT = 200;

/**
 * The sentence naming a folder among the working directory and its `skills/` that holds skill folders
 * (`<name>/SKILL.md`) none of `catalog`'s sources reads, and how to read it; undefined when there is none.
 * Said beside whatever a command found: skills from elsewhere (a personal ~/.claude/skills) must not hide
 * a clone of a skills repository, or a project's `skills/` folder, that nothing reads.
 */
export function unreadSkillsNote(cwd: string, catalog: Catalog): string | undefined {
  const searched = new Set(catalog.sources.map((s) => s.dir));
  const dir = [join(cwd, "skills"), cwd].find((d) => !searched.has(d) && holdsSkillFolders(d));
  if (dir === undefined) return undefined;
  if (dir === cwd) return `${dir} holds skill folders, but no source reads it: pass --skills-dir .`;
  return `${dir} holds skill folders, but no source reads it: pass --skills-dir ./skills, or run \`${program()} add ./skills\` to add it to this project's skillhub.yaml.`;
}

function holdsSkillFolders(dir: string): boolean {
  try {
    const entries = readdirSync(dir, { withFileTypes: true }).slice(0, LOOK_AT);
    return entries.some((e) => e.isDirectory() && existsSync(join(dir, e.name, "SKILL.md")));
  } catch {
    return false;
  }
}
