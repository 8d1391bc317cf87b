import type { Skill } from "../../skills/skill.ts";
import { isProjects } from "../../sources/source-list.ts";

/** Where a skill is, as a model is told it; the skill tool's `<location>` values (`project`, `global`, and `hub` over HTTP). */
export const SKILL_LOCATIONS = ["project", "global", "hub"] as const;
export type SkillLocation = (typeof SKILL_LOCATIONS)[number];

/**
 * Where a skill is, the one value every tool tells a model (the skill tool's `<location>`, `location` in
 * search_skills and list_skills): "project" for the project's skills (its project folders, or an explicit
 * folder inside the project root), "global" for every other (your folders, an explicit folder elsewhere, a
 * team repository, a plugin). For a client on another machine (`remote`) that project is the hub's, not the
 * one it works in: "hub". How the folder was named (`--skills-dir`, a repository) is the skill's `source`.
 */
export function skillLocation(skill: Skill, projectDir: string | null, remote = false): SkillLocation {
  if (!isProjects(skill, projectDir)) return "global";
  return remote ? "hub" : "project";
}
