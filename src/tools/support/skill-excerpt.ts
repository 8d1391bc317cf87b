import { readSkillBodyStart } from "../../catalog/skill-text.ts";
import { EXCERPT_SCAN_CHARS, excerptAround, matchedExcerpt } from "../../search/excerpt.ts";
import type { Skill } from "../../skills/skill.ts";
import { oneLine } from "./skill-catalog.ts";

/**
 * A search hit's excerpt, as search_skills and the web page show it: around the best match in the
 * body's start (the description is already in the hit), else the description's. `showBody` false: no
 * byte of the body may be shown (frozen mode, a skill that differs from the lock).
 */
export function skillExcerpt(skill: Skill, terms: readonly string[], showBody = true): string {
  const body = showBody ? (readSkillBodyStart(skill, EXCERPT_SCAN_CHARS) ?? "") : "";
  return matchedExcerpt(body, terms) ?? excerptAround(oneLine(skill.description), terms);
}
