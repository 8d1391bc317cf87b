import type { Catalog } from "../catalog/catalog.ts";
import type { Skill } from "../skills/skill.ts";
import { FullTextIndex } from "./fulltext.ts";
import { servedSlots } from "./served-slots.ts";
import { acronyms, normaliseQuery } from "./text.ts";

export interface RankedHit {
  skill: Skill;
  /** 0..1: 1 means the best possible match for every query term. */
  score: number;
  /** Processed query terms to show the hit around (excerpts): those that matched, or the query's. */
  terms: string[];
  /** Processed query terms found in the skill's words; absent when only the meaning of the query found it. */
  matched?: readonly string[];
  /** Cosine similarity of the query's and the skill's embeddings, when vector search found it. */
  similarity?: number;
}

export interface RankOptions {
  /** Results wanted (SEARCH_LIMIT, default 10). */
  limit: number;
  /** Keep hits with score/top >= threshold when there are more than 5 (SEARCH_THRESHOLD, 0.2). */
  threshold: number;
  /** Only skills passing this are considered (server filters, category). */
  accept?: (skill: Skill) => boolean;
  /** Exponent on the share of query terms a skill matches (tuned on bench/eval). */
  coveragePower?: number;
}

/** Exponent on query-term coverage (tuned on bench/eval: 0.5 beat 0, 1 and 2). */
export const COVERAGE_POWER = 0.5;

/** Extra 0..1 signal (the keyword matcher for tree nodes), fused with full text: query → skill → value. */
export type Signal = (queryText: string) => (skill: Skill) => number;

/**
 * Ranking over the full-text index, fused with optional extra signals, then
 * search_skills' rules: `limit*4` candidates, the relative threshold when
 * there are more than 5, the top `limit`.
 */
export function rank(
  index: FullTextIndex,
  catalog: Catalog,
  query: string,
  options: RankOptions,
  signals: readonly Signal[] = [],
): RankedHit[] {
  return cutCandidates(scoreFullText(index, catalog, query, options, signals), options);
}

/**
 * The best full-text hits with their 0..1 scores, best first, before search_skills' cut (hybrid search fuses
 * this list): the first `depth`, exact, by default the `limit × 4` candidates the cut reads, or KEEP_HITS
 * without a limit (hybrid search asks for its fusion depth); a few more where scores tie.
 */
export function scoreFullText(
  index: FullTextIndex,
  catalog: Catalog,
  query: string,
  options: Omit<RankOptions, "limit" | "threshold"> & { limit?: number; depth?: number },
  signals: readonly Signal[] = [],
): RankedHit[] {
  const asked = normaliseQuery(query);
  const expansions = acronyms(asked);
  const text = [asked, ...expansions.map((e) => e.acronym)].join(" ");
  const terms = FullTextIndex.queryTerms(text);
  if (terms.length === 0) return [];
  const units = coverageUnits(terms, expansions);
  const accept = options.accept ?? (() => true);
  // By skill (one object per served skill in a snapshot): no id string to hash per hit.
  const scored = new Map<Skill, RankedHit>();
  // Document frequency of each query term: the skills that matched it (an OR search returns every match).
  const { hits: raw, matched: df } = index.searchWithCounts(text);
  const idf = (t: string) => Math.log(1 + index.size / (1 + (df.get(t) ?? 0)));
  const weight = units.map((unit) => Math.max(...unit.map(idf)));
  const total = weight.reduce((a, b) => a + b, 0) || 1;
  const power = options.coveragePower ?? COVERAGE_POWER;
  // The index returns hits best raw score first, and a final score never exceeds raw / top: once
  // `keep` scores beat the next hit's raw / top, no later hit can enter the list (10,000 skills
  // make thousands of OR hits; scoring them all is most of a search's time).
  let top = 0;
  // The `keep` best final scores so far, smallest first: its root is the score to beat.
  const best = new MinHeap();
  // Exact for what the caller reads: search_skills' limit × 4 candidates, or hybrid search's fused depth
  // (reading 100 where search_skills reads 40 cost 12% of a search's CPU at 10,000 skills).
  // With keyword signals, KEEP_HITS at least: a signal lifts a hit by its full-text score, which the
  // early stop would leave out.
  const read = options.depth ?? (options.limit ? options.limit * 4 : KEEP_HITS);
  const keep = signals.length > 0 ? Math.max(read, KEEP_HITS) : read;
  const coverages = new Map<readonly string[], number>();
  const served = servedSlots(catalog, index, index.slotCount);
  for (const hit of raw) {
    if (top > 0 && best.size >= keep && hit.raw / top <= best.min) break;
    // A persisted index may know skills the catalog no longer has, or shadowed ones; the catalog decides.
    const skill = served.get(hit.slot, hit.id);
    if (!skill || !accept(skill)) continue;
    if (top === 0) top = hit.raw;
    // Coverage weighs rare terms more: matching "ynab" says more than matching "account". Hits that
    // matched the same terms share one queryTerms array (scoring.ts), so it is computed once per set.
    let coverage = coverages.get(hit.queryTerms);
    if (coverage === undefined) {
      let covered = 0;
      units.forEach((unit, i) => {
        if (unit.some((t) => hit.queryTerms.includes(t))) covered += weight[i] ?? 0;
      });
      coverage = (covered / total) ** power;
      coverages.set(hit.queryTerms, coverage);
    }
    // 0..1: only the top raw score matching every query term reaches 1.
    const score = (hit.raw / top) * coverage;
    scored.set(skill, { skill, score, terms: hit.queryTerms, matched: hit.queryTerms });
    best.push(score);
    if (best.size > keep) best.pop();
  }
  if (signals.length > 0) {
    const scorers = signals.map((signal) => signal(asked));
    for (const skill of catalog.skills) {
      for (const scorer of scorers) {
        // The signal first: it is 0 at once for the many skills without keywords; filters cost more.
        const value = scorer(skill);
        if (value <= 0 || !accept(skill)) continue;
        const current = scored.get(skill);
        // Fusion: a strong keyword route lifts a weak full-text score, never the reverse.
        const fused = current ? Math.max(current.score, 0.5 * current.score + 0.5 * value) : 0.5 * value;
        scored.set(skill, current ? { ...current, score: fused } : { skill, score: fused, terms });
      }
    }
  }
  // Only what the caller reads is sorted: below the `read` best scores nothing is (sorting the
  // 230 hits scored was 8 % of a search's ranking at 10,000 skills).
  const floor = signals.length === 0 && best.size >= read ? best.min : Number.NEGATIVE_INFINITY;
  const kept = [...scored.values()].filter((hit) => hit.score >= floor);
  return kept.sort((a, b) => b.score - a.score || a.skill.name.localeCompare(b.skill.name));
}

/**
 * search_skills' rules on hits ordered best first, whichever path scored
 * them: `limit*4` candidates; with more than 5, keep `score / top >= threshold`;
 * return the top `limit`, scores rounded to 3 decimals.
 */
export function cutCandidates(
  ordered: readonly RankedHit[],
  options: Pick<RankOptions, "limit" | "threshold">,
): RankedHit[] {
  let candidates = ordered.slice(0, options.limit * 4);
  const best = candidates[0]?.score ?? 0;
  if (candidates.length > 5 && best > 0) candidates = candidates.filter((c) => c.score / best >= options.threshold);
  return candidates.slice(0, options.limit).map((c) => ({ ...c, score: round(c.score) }));
}

/**
 * What coverage counts: each query term on its own, except that a
 * capitalised phrase and its acronym count once ("You Need A Budget" = "ynab").
 */
function coverageUnits(
  terms: readonly string[],
  expansions: readonly { acronym: string; words: string[] }[],
): string[][] {
  const grouped = new Set<string>();
  const units: string[][] = [];
  for (const { acronym, words } of expansions) {
    const unit = [acronym, ...FullTextIndex.queryTerms(words.join(" "))];
    for (const t of unit) grouped.add(t);
    units.push(unit);
  }
  for (const t of terms) if (!grouped.has(t)) units.push([t]);
  return units;
}

/**
 * Full-text hits scored exactly per query when the caller gives no limit, and whenever keyword
 * signals take part (see scoreFullText). Without the terms-matched multiplier raw scores
 * are flatter, so the early stop comes later; 200 made the engine score 2,118 hits a query at 11,018
 * skills, against 947 before.
 */
const KEEP_HITS = 100;

/**
 * A binary min-heap of numbers: the KEEP_HITS best scores in O(log k) per hit (sorting
 * every score seen every 32 hits cost 2.2 ms of a search at 10,000 skills).
 */
class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  get min(): number {
    return this.items[0] ?? 0;
  }

  push(value: number): void {
    const a = this.items;
    a.push(value);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((a[parent] as number) <= value) break;
      a[i] = a[parent] as number;
      i = parent;
    }
    a[i] = value;
  }

  pop(): void {
    const a = this.items;
    const last = a.pop() as number;
    if (a.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= a.length) break;
      const right = left + 1;
      const child = right < a.length && (a[right] as number) < (a[left] as number) ? right : left;
      if ((a[child] as number) >= last) break;
      a[i] = a[child] as number;
      i = child;
    }
    a[i] = last;
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
