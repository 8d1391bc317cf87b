import { readSkillBodyStart } from "../../catalog/skill-text.ts";
import { checkedBody } from "../../lock/checked-read.ts";
import type { FrozenGuard } from "../../lock/frozen.ts";
import { EXCERPT_SCAN_CHARS, excerptAround, matchedExcerpt } from "../../search/excerpt.ts";
import type { Skill } from "../../skills/skill.ts";
import { oneLine } from "./skill-catalog.ts";

/**
 * A search hit's excerpt, as search_skills and the web page show it: around the best match in the
 * body's start (the description is already in the hit), else the description's. Frozen, the body is
 * shown only from a whole read whose digest the lock records (lock/checked-read.ts). `asText`: what the
 * body's start becomes before the excerpt is cut from it (the web page drops Markdown's markup; a model
 * reads the Markdown as it is).
 */
export function skillExcerpt(
  skill: Skill,
  terms: readonly string[],
  frozen?: FrozenGuard,
  asText: (body: string) => string = (body) => body,
): string {
  const body = frozen
    ? (checkedBody(frozen, skill)?.slice(0, EXCERPT_SCAN_CHARS) ?? "")
    : (readSkillBodyStart(skill, EXCERPT_SCAN_CHARS) ?? "");
  return matchedExcerpt(asText(body), terms) ?? excerptAround(oneLine(skill.description), terms);
}
