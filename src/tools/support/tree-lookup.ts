import type { ToolDeps } from "../definition.ts";
import { type Lookup, type LookupWords, lookupSkill, type Runs } from "./skill-lookup.ts";

/** The tree tools: skills by path, browsed with list_skills or routed with get_skill. */
const BY_PATH: LookupWords = {
  missing: (path) => `No skill at '${path}'.`,
  whereToLook: "Use list_skills to browse skill paths, or get_skill to find a skill by task.",
  pickAnother: "Use get_skill or list_skills to find an enabled one.",
};

/**
 * A skill path (or Agent Skill name) → an enabled skill, or SKILL_NOT_FOUND / SKILL_DISABLED worded for the
 * tree tools. `runs`: code of the skill is about to run (lookupSkill).
 */
export function lookupSkillPath(skillPath: string, deps: ToolDeps, options: { runs?: Runs } = {}): Promise<Lookup> {
  return lookupSkill(skillPath, deps, BY_PATH, options);
}
