import type { RankedHit } from "./engine.ts";

/** Reciprocal rank fusion's constant (Cormack et al. 2009): damps the weight of the very first ranks. */
export const RRF_K = 60;
/** Ranks of each list that take part; deeper ones add almost nothing but noise. */
export const RRF_DEPTH = 100;

/**
 * Reciprocal rank fusion: each skill scores Σ 1/(k + rank) over the lists it
 * appears in, divided by the best possible sum so that 1 means first in
 * every list. Only ranks count, so full-text scores and cosine similarities
 * need no calibration against each other. Terms (for excerpts) come from the
 * first list holding the skill; the words matched and the similarity from whichever list has them.
 */
export function reciprocalRankFusion(
  lists: readonly (readonly RankedHit[])[],
  k = RRF_K,
  depth = RRF_DEPTH,
): RankedHit[] {
  const best = lists.length / (k + 1);
  const fused = new Map<string, RankedHit>();
  for (const list of lists) {
    list.slice(0, depth).forEach((hit, i) => {
      const contribution = 1 / (k + i + 1) / best;
      const current = fused.get(hit.skill.id);
      if (current) {
        current.score += contribution;
        current.matched ??= hit.matched;
        current.similarity ??= hit.similarity;
      } else fused.set(hit.skill.id, { ...hit, score: contribution });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.skill.name.localeCompare(b.skill.name));
}
