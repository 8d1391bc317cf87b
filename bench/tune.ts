/**
 * `bun bench/tune.ts [variants.ts] [--untuned]`: how scoring variants (src/search/scoring.ts) rank.
 * Builds the whole-body index over the real corpora (1,018 skills) and over the corpora plus the
 * eval's 10,000 distractors (11,018) once, then scores each variant on the 91 tuned queries at
 * both sizes (R@1 R@3 MRR). The 40 untuned and 20 held-out queries are printed only with
 * --untuned: they are the check, never the thing to pick a variant by.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rank } from "../src/search/engine.ts";
import { FullTextIndex } from "../src/search/fulltext.ts";
import { SCORING, type Scoring } from "../src/search/scoring.ts";
import { skillBody } from "../src/skills/agent-skill.ts";
import { corpusDirs, loadCorpora, score } from "./eval.ts";
import { writeDistractors } from "./lib/distractors.ts";

type Query = { query: string; expected: string[]; corpus: string };
/** A label, scoring overrides, and optionally the engine's coverage power. */
export type Variant = [string, Partial<Scoring>, number?];

const load = (name: string) => JSON.parse(readFileSync(join(import.meta.dir, "eval", name), "utf8")) as Query[];
const sets: [string, Query[]][] = [["91", load("queries.json")]];
if (process.argv.includes("--untuned"))
  sets.push(["40", load("queries-new.json")], ["20", load("queries-heldout.json")]);

// The same distractors as `make eval-scale` (fixed seed), kept between runs.
const distractors = join(tmpdir(), "skillhub-tune-distractors");
if (!existsSync(distractors)) writeDistractors(distractors, 10_000, corpusDirs());

const sizes = [corpusDirs(), [...corpusDirs(), distractors]].map((dirs) => {
  const catalog = loadCorpora(dirs);
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
  return { catalog, index };
});

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
