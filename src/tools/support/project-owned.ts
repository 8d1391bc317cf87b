import type { Config } from "../../config/schema.ts";
import { projectRepoLabels } from "../../refresh/repo-targets.ts";
import type { Skill } from "../../skills/skill.ts";

/**
 * A test of whether a skill is the project's own: in the project's folders (a Claude Code plugin installed
 * for the project is one: plugin-sources.ts), or synced from a repository the project's skillhub.yaml
 * names. Security: a repository the user merely opened chooses them, so their server scripts, and commands
 * in their folders, run only with scripts.allow_project.
 */
export function projectOwnership(config: Config): (skill: Pick<Skill, "location" | "source">) => boolean {
  const labels = projectRepoLabels(config);
  return (skill) => skill.location === "project" || (skill.location === "remote" && labels.has(skill.source));
}

/**
 * A refusal's sentence for something of the project's: `what` ("Script 'x' belongs to 'y'"), where it is,
 * and `runs` ("server scripts from the project") do not run without the setting that lets them.
 */
export function projectOwnedRefusal(what: string, runs: string): string {
  return `${what} in this project's own skills (its folders, a Claude Code plugin installed for it, or a repository its skillhub.yaml adds), and ${runs} do not run unless scripts.allow_project is true in ~/.skillhub/config.yaml.`;
}
