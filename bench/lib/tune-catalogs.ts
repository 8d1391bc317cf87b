/**
 * What bench/tune.ts and bench/tune-misses.ts rank over: the real corpora (1,018 skills) and the corpora
 * plus the eval's 10,000 distractors (11,018; the same fixed seed as `make eval-scale`, kept between runs
 * in DISTRACTORS or a temporary folder), each with its whole-body index.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Catalog } from "../../src/catalog/catalog.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { corpusDirs, loadCorpora, type Query } from "../eval.ts";
import { writeDistractors } from "./distractors.ts";

export type { Query };

/** One of bench/eval's query files. */
export const loadQueries = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dir, "..", "eval", name), "utf8")) as Query[];

/** The 151 queries the ranking was tuned or checked on (tuned, untuned and held out). */
export const existingQueries = (): Query[] => [
  ...loadQueries("queries.json"),
  ...loadQueries("queries-new.json"),
  ...loadQueries("queries-heldout.json"),
];
/** The 60 paraphrases never tuned on. */
export const blindQueries = (): Query[] => loadQueries("queries-blind.json");

export function tuneCatalogs(): { catalog: Catalog; index: FullTextIndex }[] {
  const distractors = process.env.DISTRACTORS ?? join(tmpdir(), "skillhub-tune-distractors");
  if (!existsSync(distractors)) writeDistractors(distractors, 10_000, corpusDirs());
  return [corpusDirs(), [...corpusDirs(), distractors]].map((dirs) => {
    const catalog = loadCorpora(dirs);
    const index = FullTextIndex.empty();
    index.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
    return { catalog, index };
  });
}
