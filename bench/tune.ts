import { rank } from "../src/search/engine.ts";
import { SCORING, type Scoring } from "../src/search/scoring.ts";
import { score } from "./eval.ts";
import { loadQueries, type Query, tuneCatalogs } from "./lib/tune-catalogs.ts";

/** A label, scoring overrides, and optionally the engine's coverage power. */
export type Variant = [string, Partial<Scoring>, number?];

const load = loadQueries;
const sets: [string, Query[]][] = [["91", load("queries.json")]];
if (process.argv.includes("--untuned"))
  sets.push(["40", load("queries-new.json")], ["20", load("queries-heldout.json")]);

const sizes = tuneCatalogs();

const file = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? "./tune-variants.ts";
const variants = (await import(file)).default as Variant[];
const fmt = (x: number) => x.toFixed(3);
for (const [label, override, power] of variants) {
  const scoring = { ...SCORING, ...override };
  const cells: string[] = [];
  for (const [name, list] of sets)
    for (const { catalog, index } of sizes) {
      const tuned = index.withScoring(scoring);
      const ranker = (q: string) =>
        rank(tuned, catalog, q, { limit: 10, threshold: 0, coveragePower: power }).map((h) => h.skill.name);
      const s = await score(ranker, list);
      cells.push(`${name}@${catalog.skills.length}: ${fmt(s.r1)} ${fmt(s.r3)} ${fmt(s.mrr)}`);
    }
  process.stdout.write(`${label.padEnd(28)} ${cells.join(" | ")}\n`);
}
