import { isEnabled } from "../catalog/filters.ts";
import type { Hub } from "../server/hub.ts";
import { skillExcerpt } from "../tools/support/skill-excerpt.ts";
import { plainMarkdown } from "./plain-excerpt.ts";

export interface SearchHitView {
  id: string;
  name: string;
  description: string;
  score: number;
  location: string;
  source: string;
  category?: string;
  tags: readonly string[];
  excerpt: string;
}

/** Most results the page asks for at once. */
export const MAX_SEARCH_RESULTS = 50;

/**
 * The page's search: the same ranking search_skills uses (the hub's search
 * service, SEARCH_THRESHOLD, the server filter) and the same excerpts. Unlike
 * the tool it records no analytics event: people browsing the page are not
 * an agent's demand for skills, and the page changes no file. Frozen mode: a skill
 * that differs from its lock shows its description, never its body.
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
      // Shown as text: Markdown's markup (`## Usage`, `**bold**`, `[a](b)`) would be noise there. It goes
      // before the excerpt is cut, while the body still has its lines (an excerpt is one line).
      excerpt: skillExcerpt(skill, terms, hub.frozen, plainMarkdown),
    })),
    mode: outcome.mode,
    ...(outcome.fallbackReason ? { fallbackReason: outcome.fallbackReason } : {}),
  };
}
