/**
 * `make eval`: search quality on bench/eval/queries.json over the real corpora
 * (../shared/corpora or SKILLHUB_CORPORA). Prints recall@1, recall@3 and MRR per
 * corpus for SkillHub's ranking, next to a plain BM25 over name + description
 * computed here on the same catalog. With an embedding provider (EMBEDDING_PROVIDER
 * as for the server, or --provider local-hash, a test double) the vector and
 * hybrid modes are printed beside full text. --scale adds 10,000 distractor skills
 * (bench/lib/distractors.ts), so quality at 11,000 can be read against 1,000.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MiniSearch from "minisearch";
import type { Catalog } from "../src/catalog/catalog.ts";
import { Scanner } from "../src/catalog/scanner.ts";
import { rank } from "../src/search/engine.ts";
import { FullTextIndex } from "../src/search/fulltext.ts";
import { skillBody } from "../src/skills/agent-skill.ts";
import { buildSourceList } from "../src/sources/source-list.ts";
import { writeDistractors } from "./lib/distractors.ts";
import { embeddingEval } from "./lib/eval-embeddings.ts";

export interface Query {
  query: string;
  expected: string[];
  corpus: string;
  /** exact name, description paraphrase, body-only detail, typo or two plausible skills. */
  class: string;
}

export type Ranker = (query: string) => string[] | Promise<string[]>;

export interface Scores {
  n: number;
  r1: number;
  r3: number;
  mrr: number;
}

const root = process.env.SKILLHUB_CORPORA ?? join(import.meta.dir, "..", "..", "shared", "corpora");
const queries = JSON.parse(readFileSync(join(import.meta.dir, "eval", "queries.json"), "utf8")) as Query[];
/** 40 queries written before any run against skills the ranking was never tuned on. */
const untuned = JSON.parse(readFileSync(join(import.meta.dir, "eval", "queries-new.json"), "utf8")) as Query[];
/** 20 more, written against untouched skills before the whole-body scoring was tuned (never tuned on). */
const heldOut = JSON.parse(readFileSync(join(import.meta.dir, "eval", "queries-heldout.json"), "utf8")) as Query[];
/**
 * 60 paraphrases over the three largest collections, written before any ranking was run, none of whose words
 * reaches its skill's name or description (test/bench/eval-queries.test.ts checks it): never tuned on.
 */
const blind = JSON.parse(readFileSync(join(import.meta.dir, "eval", "queries-blind.json"), "utf8")) as Query[];
/**
 * 50 requests written by a reviewer before any ranking was run or the other sets were read, avoiding each
 * skill's name and description words by hand (looser than the blind set's check); some are long tasks.
 * Never tuned on.
 */
const review = JSON.parse(readFileSync(join(import.meta.dir, "eval", "queries-review.json"), "utf8")) as Query[];
const existing = [...queries, ...untuned, ...heldOut];

export function corpusDirs(): string[] {
  if (!existsSync(root)) throw new Error(`corpora not found at ${root} (set SKILLHUB_CORPORA)`);
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(root, e.name))
    .sort();
}

export function loadCorpora(dirs = corpusDirs()): Catalog {
  const sources = buildSourceList({
    dirs,
    onlyDirs: true,
    projectDir: null,
    homeDir: "/nonexistent",
    hubHome: "/nonexistent",
  });
  return new Scanner().scan(sources, { maxDepth: 8, maxDirs: 250_000 });
}

/** SkillHub's ranking, as search_skills computes it (no threshold cut, so ranks below the top are visible). */
export function skillhubRanker(catalog: Catalog, index = fullTextIndex(catalog)): Ranker {
  return (q) => rank(index, catalog, q, { limit: 10, threshold: 0 }).map((h) => h.skill.name);
}

export function fullTextIndex(catalog: Catalog): FullTextIndex {
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
  return index;
}

/** The baseline: BM25 over name and description, default tokenizer, no boosts, no prefix or fuzzy matching. */
export function baselineRanker(catalog: Catalog): Ranker {
  const mini = new MiniSearch({ fields: ["name", "description"], idField: "id" });
  mini.addAll(catalog.skills.map((s) => ({ id: s.id, name: s.name, description: s.description })));
  const byId = new Map(catalog.skills.map((s) => [s.id, s.name]));
  return (q) =>
    mini
      .search(q)
      .slice(0, 10)
      .map((r) => byId.get(String(r.id)) ?? "");
}

export async function score(ranker: Ranker, list: readonly Query[]): Promise<Scores> {
  let r1 = 0;
  let r3 = 0;
  let mrr = 0;
  for (const q of list) {
    const ranked = await ranker(q.query);
    const position = ranked.findIndex((name) => q.expected.includes(name));
    if (position === 0) r1++;
    if (position >= 0 && position < 3) r3++;
    if (position >= 0) mrr += 1 / (position + 1);
  }
  const n = list.length || 1;
  return { n: list.length, r1: r1 / n, r3: r3 / n, mrr: mrr / n };
}

export async function misses(ranker: Ranker, list: readonly Query[]): Promise<string[]> {
  const ranked = await Promise.all(list.map(async (q) => ({ q, ranked: await ranker(q.query) })));
  return ranked
    .filter(({ q, ranked }) => ranked.findIndex((n) => q.expected.includes(n)) !== 0)
    .map(({ q, ranked }) => `  ${q.expected[0]} ← "${q.query}"\n      got: ${ranked.slice(0, 3).join(", ")}`);
}

if (import.meta.main) {
  const started = performance.now();
  const scale = process.argv.includes("--scale");
  const distractors = scale ? mkdtempSync(join(tmpdir(), "skillhub-distractors-")) : undefined;
  if (distractors) writeDistractors(distractors, 10_000, corpusDirs());
  const dirs = distractors ? [...corpusDirs(), distractors] : corpusDirs();
  const catalog = loadCorpora(dirs);
  const index = fullTextIndex(catalog);
  const embeddings = await embeddingEval(catalog, index, dirs, process.argv).catch((error: Error) => {
    // A bad EMBEDDING_* setting or --provider value: say it as the server would, exit 2.
    process.stderr.write(`eval: ${error.message}\n`);
    process.exit(2);
  });
  const rankers: [string, Ranker][] = embeddings.rankers
    ? [
        ["skillhub fts", skillhubRanker(catalog, index)],
        ["vector", embeddings.rankers.vector],
        ["hybrid", embeddings.rankers.hybrid],
        ["bm25 name+desc", baselineRanker(catalog)],
      ]
    : [
        ["skillhub", skillhubRanker(catalog, index)],
        ["bm25 name+desc", baselineRanker(catalog)],
      ];
  const corpora = [...new Set(queries.map((q) => q.corpus))].sort();
  const fmt = (n: number) => n.toFixed(3);
  const out: string[] = [];
  out.push(`Search evaluation: ${queries.length} queries over ${catalog.skills.length} skills (${root})`, "");
  out.push(
    `${"corpus".padEnd(26)} ${"n".padStart(3)}  ${rankers.map(([name]) => `${name.padEnd(16)}R@1    R@3    MRR  `).join(" ")}`,
  );
  const sets: Record<string, Query[]> = {
    ALL: queries,
    "UNTUNED (40 new)": untuned,
    "HELD-OUT (20)": heldOut,
    "EXISTING (151)": existing,
    "BLIND (60)": blind,
    "REVIEW (50)": review,
  };
  for (const corpus of [...corpora, ...Object.keys(sets)]) {
    const list = sets[corpus] ?? queries.filter((q) => q.corpus === corpus);
    const cells: string[] = [];
    for (const [, ranker] of rankers) {
      const s = await score(ranker, list);
      cells.push(`${"".padEnd(16)}${fmt(s.r1)}  ${fmt(s.r3)}  ${fmt(s.mrr)}`);
    }
    out.push(`${corpus.padEnd(26)} ${String(list.length).padStart(3)}  ${cells.join(" ")}`);
  }
  out.push("", `By query class, ${rankers[0]?.[0]}:`);
  for (const [set, list] of [
    ["existing", existing],
    ["blind", blind],
    ["review", review],
  ] as const)
    for (const kind of [...new Set(list.map((q) => q.class))].sort()) {
      const of = list.filter((q) => q.class === kind);
      const s = await score(rankers[0]?.[1] as Ranker, of);
      out.push(
        `  ${set.padEnd(9)} ${kind.padEnd(23)} ${String(of.length).padStart(3)}  ${fmt(s.r1)}  ${fmt(s.r3)}  ${fmt(s.mrr)}`,
      );
    }
  out.push("", embeddings.label);
  if (process.argv.includes("--misses")) {
    for (const [name, ranker] of rankers.slice(0, -1))
      out.push("", `${name} misses at rank 1:`, ...(await misses(ranker, [...existing, ...blind, ...review])));
  }
  embeddings.close();
  if (distractors) rmSync(distractors, { recursive: true, force: true });
  out.push("", `(${((performance.now() - started) / 1000).toFixed(1)} s)`);
  process.stdout.write(`${out.join("\n")}\n`);
}
