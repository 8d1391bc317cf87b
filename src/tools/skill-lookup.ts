import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeFilter, isEnabled } from "../catalog/filters.ts";
import { closeNames } from "../catalog/suggest.ts";
import type { Skill } from "../skills/skill.ts";
import type { ToolDeps } from "./definition.ts";
import { errorResult } from "./results.ts";

export type Lookup = { skill: Skill; error?: undefined } | { skill?: undefined; error: CallToolResult };

/**
 * A name → an enabled skill of the current catalog, or the error result a
 * model can act on: SKILL_NOT_FOUND with close names, or SKILL_DISABLED.
 */
export async function lookupSkill(name: string, deps: ToolDeps): Promise<Lookup> {
  const skill = await deps.findSkill(name);
  if (!skill) return { error: notFound(name, deps) };
  if (!isEnabled(skill, deps.filter)) {
    return {
      error: errorResult(
        "SKILL_DISABLED",
        `Skill '${skill.name}' exists but is disabled on this server (${describeFilter(deps.filter)}). Pick an enabled skill with search_skills.`,
        { skill: skill.name },
      ),
    };
  }
  return { skill };
}

export function notFound(name: string, deps: ToolDeps): CallToolResult {
  const enabled = deps.store.catalog.skills.filter((s) => isEnabled(s, deps.filter)).map((s) => s.name);
  const suggestions = closeNames(name, enabled);
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `'${s}'`).join(", ")}?` : "";
  return errorResult("SKILL_NOT_FOUND", `No skill named '${name}'.${hint} Use search_skills to find skills by topic.`, { suggestions });
}
