import { rank } from "../src/search/engine.ts";
import { loadQueries, tuneCatalogs } from "./lib/tune-catalogs.ts";

const load = loadQueries;
const list = [...load("queries.json"), ...(process.argv.includes("--new") ? load("queries-new.json") : [])];
const sizes = tuneCatalogs();
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
