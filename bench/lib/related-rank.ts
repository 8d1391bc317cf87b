/**
 * The engine's recipe with related words added to a query, for the meaning variants (bench/tune-meaning.ts,
 * bench/tune-vectors.ts): FullTextIndex field scores with each related word at its weight; score = raw / top
 * × coverage ^ 0.5 over the query's own terms, a related word covering the term it stands for at its weight.
 */
import type { FullTextIndex } from "../../src/search/fulltext.ts";
import type { Skill } from "../../src/skills/skill.ts";

/** Related words for a query: term → its weight and the query term it stands for. */
export type Expansion = Map<string, { weight: number; of: string }>;

export interface RelatedHit {
  skill: Skill;
  score: number;
  /** The terms, the query's and related ones, the skill matched. */
  matched: readonly string[];
}

/** Hits best first; related words that are query terms already are left out. */
export function rankWithRelated(
  index: FullTextIndex,
  byId: ReadonlyMap<string, Skill>,
  terms: readonly string[],
  expansion: Expansion,
): RelatedHit[] {
  for (const t of terms) expansion.delete(t);
  const weights = new Map([...expansion].map(([t, e]) => [t, e.weight]));
  const { hits, matched } = index.searchWithCounts([...terms, ...expansion.keys()].join(" "), {}, weights);
  const idf = (t: string) => Math.log(1 + index.size / (1 + (matched.get(t) ?? 0)));
  const total = terms.reduce((a, t) => a + idf(t), 0) || 1;
  const out: RelatedHit[] = [];
  let top = 0;
  for (const hit of hits) {
    const skill = byId.get(hit.id);
    if (!skill) continue;
    if (top === 0) top = hit.raw;
    let covered = 0;
    for (const t of terms) {
      let share = hit.queryTerms.includes(t) ? 1 : 0;
      for (const [e, x] of expansion) if (x.of === t && hit.queryTerms.includes(e)) share = Math.max(share, x.weight);
      covered += idf(t) * share;
    }
    out.push({ skill, score: (hit.raw / top) * (covered / total) ** 0.5, matched: hit.queryTerms });
  }
  return out.sort((a, b) => b.score - a.score || a.skill.name.localeCompare(b.skill.name));
}
