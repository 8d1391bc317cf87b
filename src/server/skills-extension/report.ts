import { isEnabled } from "../../catalog/filters.ts";
import type { Hub } from "../hub.ts";
import { publication } from "./publication.ts";
import { uriConflicts } from "./uri-conflicts.ts";

/**
 * Lines for `doctor`: how many skills the skills extension (skills/list,
 * skill:// resources) publishes, and why each other Agent Skill is served by
 * the tools only (a lenient repair, a name outside the Agent Skills rules, the
 * extension's size limits).
 */
export async function publicationReport(
  hub: Hub,
  shorten: (lines: string[], what: string) => string[] = (lines) => lines,
): Promise<string[]> {
  const pub = await publication(hub.catalog, { enabled: (skill) => isEnabled(skill, hub.filter), frozen: hub.frozen });
  const skipped = pub.unpublished.filter((u) => u.skill.kind === "agent-skill");
  const lines = [
    "",
    `Skills extension (skills/list, skill:// resources): ${pub.skills.length} published, ${skipped.length} served by the tools only`,
  ];
  lines.push(
    ...shorten(
      skipped.map(({ skill, reason }) => `  ${skill.id}  ${skill.file}: ${reason}`),
      "skills",
    ),
  );
  const conflicts = uriConflicts(hub.catalog, (skill) => isEnabled(skill, hub.filter));
  if (conflicts.length > 0) lines.push(`URIs two skills would share (rename one to give each its own):`);
  for (const { uri, served, other } of conflicts) lines.push(`  ${uri} is ${served}, not ${other}`);
  return lines;
}
