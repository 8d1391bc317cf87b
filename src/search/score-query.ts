import type { SearchOptions } from "minisearch";
import type { FieldPostings } from "./field-postings.ts";
import { META_FIELDS } from "./fields.ts";
import { scoreParams, termSpecs } from "./query-spec.ts";
import { Scores } from "./scores.ts";
import type { Scoring } from "./scoring.ts";
import type { SlotStrings } from "./slot-strings.ts";

export interface FullTextHit {
  id: string;
  /** The document's slot in its index (a slot always holds the same id: served-slots.ts). */
  slot: number;
  /** The summed field scores (scoring.ts; unbounded). */
  raw: number;
  /** Query terms (processed) that matched this document. */
  queryTerms: string[];
}

/**
 * One query over a FullTextIndex's fields, combined as scoring.ts says: per processed query term,
 * its metadata score (MiniSearch's single-term search over the five metadata fields: boosts, prefix
 * and fuzzy expansion) raised to metaPower; plus each text zone's BM25+ for the term itself, with
 * the zone's own parameters.
 * Returns every matching document, best first (produced as they are read), and how many documents
 * matched each term.
 * `live` is the number of documents in the index (BM25's N); `terms` are distinct; `weights` scales a
 * term's every field score (a related word found for the query counts less than the query's own; 1 if absent).
 */
export function scoreQuery(
  parts: { ids: SlotStrings; fields: ReadonlyMap<string, FieldPostings> },
  live: number,
  terms: readonly string[],
  options: SearchOptions,
  scoring: Scoring,
  weights?: ReadonlyMap<string, number>,
): { hits: Iterable<FullTextHit>; matched: Map<string, number> } {
  const { ids, fields } = parts;
  const params = scoreParams(options);
  const scores = new Scores(ids.length, terms);
  const specs = termSpecs(terms, options);
  const boosts = options.boost ?? {};
  const { lead, rest, headings, metaPower } = scoring;
  // Each term's metadata score is compressed on its own: summed over the fields first, then the power.
  const weight = (term: string) => weights?.get(term) ?? 1;
  for (const spec of specs) {
    scores.hold();
    const w = weight(spec.term);
    for (const f of META_FIELDS) fields.get(f)?.score(spec, (boosts[f] || 1) * w, params, ids, live, scores);
    scores.compress(metaPower);
  }
  // Headings and the body's zones: whole terms only (no prefix, no fuzzy expansion; scoring.ts), each
  // with its own BM25+ parameters.
  for (const [f, zone] of [
    ["lead", lead],
    ["body", rest],
    ["headings", headings],
  ] as const) {
    const zoneParams = { ...params, k: zone.k, b: zone.b, d: zone.d };
    for (const spec of specs)
      fields
        .get(f)
        ?.score(
          { ...spec, prefix: false, maxDistance: 0 },
          zone.boost * weight(spec.term),
          zoneParams,
          ids,
          live,
          scores,
        );
  }
  // No "× query terms matched" as MiniSearch has (scoring.ts): coverage is the engine's, weighted by rarity.
  // Best first as the caller reads (the engine stops after a few hundred of thousands of hits).
  const matched = scores.matched();
  function* hits(): Generator<FullTextHit> {
    try {
      const order = scores.order();
      for (let slot = order.next(); slot !== -1; slot = order.next())
        yield { id: ids.at(slot), slot, raw: scores.raw(slot), queryTerms: scores.group(slot) };
    } finally {
      // Read to the end or left early (the engine's break): the arrays serve the next query.
      scores.release();
    }
  }
  return { hits: hits(), matched };
}
