/**
 * `bun bench/tune-grid.ts`: a grid over the ranking's weights (metadata compression, coverage power, the
 * lead's and the rest's weights, the name's and description's boosts), scored on the 151 existing eval
 * queries at 1,018 and 11,018 skills, best mean MRR first. A variant replaces today's weights only if it is
 * no worse on any figure (R@1, R@3, MRR) at either size and better on mean MRR: a gain of one query on
 * one figure must not be paid with another. Only the chosen one and today's are then scored on the 60
 * blind queries, so the blind set judges the choice without making it. --all-blind prints every
 * variant's blind figures too (to read the grid's shape, not to choose).
 */
import { rank } from "../src/search/engine.ts";
import { BOOSTS } from "../src/search/fields.ts";
import { SEARCH_OPTIONS } from "../src/search/index-settings.ts";
import { SCORING, type Scoring } from "../src/search/scoring.ts";
import { type Query, type Scores, score } from "./eval.ts";
import { blindQueries, existingQueries, tuneCatalogs } from "./lib/tune-catalogs.ts";

interface Point {
  metaPower: number;
  coverage: number;
  lead: number;
  rest: number;
  meta: number;
}

const TODAY: Point = {
  metaPower: SCORING.metaPower,
  coverage: 0.5,
  lead: SCORING.lead.boost,
  rest: SCORING.rest.boost,
  meta: BOOSTS.name,
};
const GRID = {
  metaPower: [0.6, 0.7, 0.8],
  coverage: [0.5, 0.75, 1],
  lead: [2, 3],
  rest: [0.3, 0.6],
  meta: [3, 4],
};

const existing = existingQueries();
const blind = blindQueries();
const sizes = tuneCatalogs();

function points(): Point[] {
  const out: Point[] = [];
  for (const metaPower of GRID.metaPower)
    for (const coverage of GRID.coverage)
      for (const lead of GRID.lead)
        for (const rest of GRID.rest) for (const meta of GRID.meta) out.push({ metaPower, coverage, lead, rest, meta });
  return out;
}

async function scores(p: Point, list: readonly Query[]): Promise<Scores[]> {
  const scoring: Scoring = {
    ...SCORING,
    metaPower: p.metaPower,
    lead: { ...SCORING.lead, boost: p.lead },
    rest: { ...SCORING.rest, boost: p.rest },
  };
  const search = { ...SEARCH_OPTIONS, boost: { ...BOOSTS, name: p.meta, description: p.meta } };
  const out: Scores[] = [];
  for (const { catalog, index } of sizes) {
    const tuned = index.withScoring(scoring, search);
    const ranker = (q: string) =>
      rank(tuned, catalog, q, { limit: 10, threshold: 0, coveragePower: p.coverage }).map((h) => h.skill.name);
    out.push(await score(ranker, list));
  }
  return out;
}

const moved = (p: Point) => (Object.keys(TODAY) as (keyof Point)[]).filter((k) => p[k] !== TODAY[k]).length;
const mean = (s: Scores[], k: keyof Scores) => s.reduce((a, x) => a + x[k], 0) / s.length;
const cells = (s: Scores[]) => s.map((x) => `${x.r1.toFixed(3)} ${x.r3.toFixed(3)} ${x.mrr.toFixed(3)}`).join(" | ");
const label = (p: Point) =>
  `metaPower ${p.metaPower} coverage ${p.coverage} lead ${p.lead} rest ${p.rest} name+desc ${p.meta}`;

const rows: { p: Point; s: Scores[] }[] = [];
for (const p of points()) rows.push({ p, s: await scores(p, existing) });
rows.sort(
  (a, b) => mean(b.s, "mrr") - mean(a.s, "mrr") || mean(b.s, "r1") - mean(a.s, "r1") || moved(a.p) - moved(b.p),
);
const sizesLabel = sizes.map((s) => s.catalog.skills.length).join(" | ");
process.stdout.write(`existing 151 (R@1 R@3 MRR at ${sizesLabel}), best first:\n`);
for (const { p, s } of rows) {
  const b = process.argv.includes("--all-blind") ? `   blind ${cells(await scores(p, blind))}` : "";
  process.stdout.write(`  ${label(p).padEnd(70)} ${cells(s)}${b}\n`);
}
const today = rows.find((r) => moved(r.p) === 0)?.s ?? [];
const noWorse = (s: Scores[]) =>
  s.every((x, i) => (["r1", "r3", "mrr"] as const).every((k) => x[k] >= (today[i]?.[k] ?? 0)));
const chosen = rows.find((r) => noWorse(r.s) && mean(r.s, "mrr") > mean(today, "mrr"))?.p ?? TODAY;
process.stdout.write(`\nchosen: ${label(chosen)}\n`);
for (const [name, p] of [
  ["today", TODAY],
  ["chosen", chosen],
] as const)
  process.stdout.write(
    `  ${name.padEnd(7)} existing ${cells(await scores(p, existing))}   blind ${cells(await scores(p, blind))}\n`,
  );
