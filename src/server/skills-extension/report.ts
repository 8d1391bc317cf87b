import { isEnabled } from "../../catalog/filters.ts";
import type { Hub } from "../hub.ts";
import { publication } from "./publication.ts";

/**
 * Lines for `doctor`: how many skills the skills extension (skills/list,
 * skill:// resources) publishes, and why each other Agent Skill is served by
 * the tools only (a lenient repair, a name outside the Agent Skills rules, the
 * extension's size limits).
 */
export async function publicationReport(hub: Hub): Promise<string[]> {
  const pub = await publication(hub.catalog, { enabled: (skill) => isEnabled(skill, hub.filter), frozen: hub.frozen });
  const skipped = pub.unpublished.filter((u) => u.skill.kind === "agent-skill");
  const lines = [
    "",
    `Skills extension (skills/list, skill:// resources): ${pub.skills.length} published, ${skipped.length} served by the tools only`,
  ];
  for (const { skill, reason } of skipped) lines.push(`  ${skill.id}  ${skill.file}: ${reason}`);
  return lines;
}
