/**
 * `bun bench/tune-misses.ts`: where the 91 tuned queries (and with --new the 40 untuned) rank their
 * target at 1,018 and 11,018 skills, for the queries not first at both sizes. Never prints the
 * held-out queries.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rank } from "../src/search/engine.ts";
import { FullTextIndex } from "../src/search/fulltext.ts";
import { skillBody } from "../src/skills/agent-skill.ts";
import { corpusDirs, loadCorpora } from "./eval.ts";
import { writeDistractors } from "./lib/distractors.ts";

type Query = { query: string; expected: string[]; corpus: string };
const load = (name: string) => JSON.parse(readFileSync(join(import.meta.dir, "eval", name), "utf8")) as Query[];
const list = [...load("queries.json"), ...(process.argv.includes("--new") ? load("queries-new.json") : [])];
const distractors = process.env.DISTRACTORS ?? join(tmpdir(), "skillhub-tune-distractors");
if (!existsSync(distractors)) writeDistractors(distractors, 10_000, corpusDirs());
const sizes = [corpusDirs(), [...corpusDirs(), distractors]].map((dirs) => {
  const catalog = loadCorpora(dirs);
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
  return { catalog, index };
});
for (const q of list) {
  const rows = sizes.map(({ catalog, index }) => {
    const hits = rank(index, catalog, q.query, { limit: 40, threshold: 0 });
    const at = hits.findIndex((h) => q.expected.includes(h.skill.name));
    return { at, hits };
  });
  if (rows.every((r) => r.at === 0)) continue;
  process.stdout.write(`${q.expected[0]} ← "${q.query}"  ranks ${rows.map((r) => r.at + 1).join(" / ")}\n`);
  for (const { hits } of rows)
    process.stdout.write(
      `    ${hits
        .slice(0, 4)
        .map((h) => `${h.skill.name} ${h.score.toFixed(3)}`)
        .join(", ")}\n`,
    );
}
