import type { SearchOptions } from "minisearch";
import { queryTerms } from "./text.ts";

/**
 * MiniSearch's reading of a query and of its search options (executeQuery, termToQuerySpec,
 * executeQuerySpec), for FullTextIndex: the same terms, expansions and weights as MiniSearch.
 */

/** BM25+ and expansion weights, MiniSearch's `bm25` and `weights` search options. */
export interface ScoreParams {
  k: number;
  b: number;
  d: number;
  prefixWeight: number;
  fuzzyWeight: number;
}

/** One processed query term, as MiniSearch's termToQuerySpec makes it. */
export interface TermSpec {
  term: string;
  prefix: boolean;
  /** Largest edit distance for fuzzy expansion; 0 = none. */
  maxDistance: number;
}

/** MiniSearch's defaults, where the options leave them out. */
const DEFAULT_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };
const DEFAULT_BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const DEFAULT_MAX_FUZZY = 6;

/** Processed query terms in order, repeats kept (MiniSearch's tokenize + processTerm). */
export function querySequence(query: string): string[] {
  const out: string[] = [];
  for (const word of query.split(/[\n\r\p{Z}\p{P}\p{S}]+/u)) if (word) out.push(...queryTerms(word));
  return out;
}

/** Each term's prefix and fuzzy expansion, as termToQuerySpec and executeQuerySpec decide them. */
export function termSpecs(terms: readonly string[], o: SearchOptions): TermSpec[] {
  return terms.map((term, i) => {
    const fuzzy = typeof o.fuzzy === "function" ? o.fuzzy(term, i, terms as string[]) : (o.fuzzy ?? false);
    const f = fuzzy === true ? 0.2 : fuzzy || 0;
    const maxDistance = f < 1 ? Math.min(o.maxFuzzy ?? DEFAULT_MAX_FUZZY, Math.round(term.length * f)) : f;
    const prefix = typeof o.prefix === "function" ? Boolean(o.prefix(term, i, terms as string[])) : o.prefix === true;
    return { term, prefix, maxDistance };
  });
}

/** BM25+ parameters and expansion weights from the options (MiniSearch's `bm25` and `weights`). */
export function scoreParams(o: SearchOptions): ScoreParams {
  return {
    ...DEFAULT_BM25,
    ...o.bm25,
    prefixWeight: o.weights?.prefix ?? DEFAULT_WEIGHTS.prefix,
    fuzzyWeight: o.weights?.fuzzy ?? DEFAULT_WEIGHTS.fuzzy,
  };
}
