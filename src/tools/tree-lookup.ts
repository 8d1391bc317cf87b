import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeFilter, isEnabled } from "../catalog/filters.ts";
import { closeNames } from "../catalog/suggest.ts";
import type { Skill } from "../skills/skill.ts";
import type { ToolDeps } from "./definition.ts";
import { errorResult } from "./results.ts";

export type TreeLookup = { skill: Skill; error?: undefined } | { skill?: undefined; error: CallToolResult };

/**
 * A skill path (or Agent Skill name) → an enabled skill of the current
 * catalog, or SKILL_NOT_FOUND with close paths / SKILL_DISABLED. Lookup is
 * through the catalog's maps only: the path is never joined to a folder.
 */
export async function lookupSkillPath(skillPath: string, deps: ToolDeps): Promise<TreeLookup> {
  const skill = await deps.findSkill(skillPath);
  if (!skill) {
    const enabled = deps.store.catalog.skills.filter((s) => isEnabled(s, deps.filter)).map((s) => s.name);
    const suggestions = closeNames(skillPath, enabled);
    const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `'${s}'`).join(", ")}?` : "";
    return {
      error: errorResult(
        "SKILL_NOT_FOUND",
        `No skill at '${skillPath}'.${hint} Use list_skills to browse skill paths, or get_skill to find a skill by task.`,
        { suggestions },
      ),
    };
  }
  if (!isEnabled(skill, deps.filter)) {
    return {
      error: errorResult(
        "SKILL_DISABLED",
        `Skill '${skill.name}' exists but is disabled on this server (${describeFilter(deps.filter)}). Use get_skill or list_skills to find an enabled one.`,
        { skill: skill.name },
      ),
    };
  }
  return { skill };
}
