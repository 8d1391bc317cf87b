import { isEnabled } from "../catalog/filters.ts";
import { readSkillBody } from "../catalog/skill-text.ts";
import { excerptAround, matchedExcerpt } from "../search/excerpt.ts";
import type { Hub } from "../server/hub.ts";
import type { Skill } from "../skills/skill.ts";
import { oneLine } from "../tools/support/skill-catalog.ts";

export interface SearchHitView {
  id: string;
  name: string;
  description: string;
  score: number;
  location: string;
  source: string;
  category?: string;
  tags: string[];
  excerpt: string;
}

/** Most results the page asks for at once. */
export const MAX_SEARCH_RESULTS = 50;

/**
 * The page's search: the same ranking search_skills uses (the hub's search
 * service, SEARCH_THRESHOLD, the server filter) and the same excerpts. Unlike
 * the tool it records no analytics event: people browsing the page are not
 * an agent's demand for skills, and the page changes no file.
 */
export async function searchView(
  hub: Hub,
  query: string,
  limit: number,
): Promise<{ hits: SearchHitView[]; mode: string; fallbackReason?: string }> {
  const outcome = await hub.search.query(query, {
    limit: Math.min(MAX_SEARCH_RESULTS, Math.max(1, limit)),
    threshold: hub.config.search.threshold,
    accept: (s) => isEnabled(s, hub.filter),
  });
  return {
    hits: outcome.hits.map(({ skill, score, terms }) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      score,
      location: skill.location,
      source: skill.source,
      ...(skill.category ? { category: skill.category } : {}),
      tags: skill.tags,
      excerpt: excerptFor(skill, terms),
    })),
    mode: outcome.mode,
    ...(outcome.fallbackReason ? { fallbackReason: outcome.fallbackReason } : {}),
  };
}

/** As search_skills: around the best match in the body, else the description's start. */
function excerptFor(skill: Skill, terms: readonly string[]): string {
  return matchedExcerpt(readSkillBody(skill) ?? "", terms) ?? excerptAround(oneLine(skill.description), terms);
}
