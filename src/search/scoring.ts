/**
 * How a skill's field scores become one full-text score, tuned on the 91 queries of
 * bench/eval at 1,018 and 11,018 skills with whole bodies indexed (bench/tune.ts; figures in
 * docs/search.md). Three findings shape it:
 *
 * - A skill says what it is for at the top of its body; the rest is detail (API listings, long
 *   examples) that matches almost any query word. So the body is two zones: the lead (the first
 *   LEAD_CHARS characters, weighed about like the description) and the rest (weakest).
 *   Whole bodies in one zone scored R@3 0.912 / MRR 0.801; lead and rest 0.978 / 0.896.
 * - No "terms matched" multiplier (MiniSearch multiplies its sum by the number of query terms a
 *   document matches): long bodies and random distractors match many query words weakly, and
 *   the multiplier turned that into rank. Coverage stays in the engine, weighted by rarity.
 * - Each query term's metadata score is compressed (metaPower): a short name or description
 *   matching one query word through several fields must not outweigh a skill that matches
 *   several of the query's words.
 * - Headings and the body zones match whole terms only: prefix expansion over a long text's
 *   vocabulary found mostly other words ("poster" → "posterior", "react" → "reactome",
 *   "check" → "checkout") and cost a walk of it per term. The metadata fields keep prefix (and fuzzy) matching.
 */

/** BM25+ parameters: term-frequency saturation k, length normalisation b (0..1), lower bound d. */
export interface Bm25Params {
  k: number;
  b: number;
  d: number;
}

/** MiniSearch's defaults. */
export const BM25: Bm25Params = { k: 1.2, b: 0.7, d: 0.5 };

/** One text zone's weight and BM25+ parameters. */
export interface Zone extends Bm25Params {
  boost: number;
}

export interface Scoring {
  /** The first LEAD_CHARS characters of the body (the "lead" field). */
  lead: Zone;
  /** The body after the lead (the "body" field). */
  rest: Zone;
  headings: Zone;
  /** Exponent on each query term's summed metadata score (name, description, tags, ...): 1 keeps it linear. */
  metaPower: number;
}

/** Body characters in the lead zone (measured 1,000 / 1,500 / 2,000 / 3,000: R@3 0.956 / 0.978 / 0.967 / 0.945 at 1,018). */
export const LEAD_CHARS = 1500;
/** How far past LEAD_CHARS the lead may run to end on a word (characters). */
export const LEAD_WORD_END = 64;

/**
 * The lead saturates term frequency slowly (k 5) and normalises length fully (b 1): a word the
 * lead repeats is what the skill is about, a word in a long lead proves less. The rest keeps
 * MiniSearch's defaults at a low weight: it still finds a word only the details mention.
 */
export const SCORING: Scoring = {
  lead: { boost: 2, k: 5, b: 1, d: 0.5 },
  rest: { boost: 0.3, ...BM25 },
  headings: { boost: 0.3, ...BM25 },
  metaPower: 0.8,
};
