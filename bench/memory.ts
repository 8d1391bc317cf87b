/**
 * Peak and settled RSS of one or more builds beside the floor, at one catalog size, interleaved round by
 * round (the sequence `make bench` uses: a warm start that leaves the snapshot and index, then a measured
 * session: initialize, tools/list, a search that waits for the index, calls, SETTLE_MS idle).
 * Usage: bun bench/memory.ts [--size 10000] [--runs 3] [--bins "dist/skillhub other/skillhub"] [--corpus DIR]
 *   [--tools skill] [--build] (--build: remove the saved search index before each session, as on a first start)
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildFloor } from "./lib/floor.ts";
import { INITIALIZE, median, searchComplete, spawnServer } from "./lib/rpc.ts";
import { generateSkills } from "./lib/skills.ts";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "10000" },
    runs: { type: "string", default: "3" },
    bins: { type: "string", default: join(resolve(import.meta.dir, ".."), "dist", "skillhub") },
    corpus: { type: "string" },
    tools: { type: "string" },
    build: { type: "boolean" },
  },
});
const SETTLE_MS = 4000;
const work = mkdtempSync(join(tmpdir(), "skillhub-memory-"));
const floor = await buildFloor(work);
const dir = values.corpus ?? join(work, "skills");
if (!values.corpus) generateSkills(dir, Number(values.size));
const bins = values.bins.split(/\s+/).filter(Boolean);

async function session(cmd: string[], home: string, search: boolean): Promise<{ peak: number; settled: number }> {
  mkdirSync(home, { recursive: true });
  if (values.build) rmSync(join(home, ".skillhub", "index"), { recursive: true, force: true });
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  const s = spawnServer(cmd, { env, cwd: home });
  await s.request("initialize", INITIALIZE);
  s.notify("notifications/initialized");
  await s.request("tools/list");
  if (search) await searchComplete(s, "data analysis");
  for (let i = 0; i < 50; i++)
    await s.request(
      "tools/call",
      search
        ? { name: "search_skills", arguments: { query: `data analysis ${i}` } }
        : { name: cmd.length > 1 ? "skill" : "ping", arguments: cmd.length > 1 ? { name: "skill-00001" } : {} },
    );
  await Bun.sleep(SETTLE_MS);
  const figures = { peak: s.peakRssKb() / 1024, settled: s.rssKb() / 1024 };
  await s.close();
  return figures;
}

const rows = new Map<string, { peak: number[]; settled: number[] }>();
const record = (key: string, f: { peak: number; settled: number }) => {
  const row = rows.get(key) ?? { peak: [], settled: [] };
  row.peak.push(f.peak);
  row.settled.push(f.settled);
  rows.set(key, row);
};
const extra = values.tools ? ["--tools", values.tools] : [];
const search = !values.tools || values.tools.includes("search");
for (const [i, bin] of bins.entries())
  await session([bin, "--skills-dir", dir, ...extra], join(work, `home-${i}`), search);
for (let r = 0; r < Number(values.runs); r++) {
  record("floor", await session([floor], join(work, "home-floor"), false));
  for (const [i, bin] of bins.entries())
    record(bin, await session([bin, "--skills-dir", dir, ...extra], join(work, `home-${i}`), search));
}
const base = rows.get("floor") as { peak: number[]; settled: number[] };
for (const [key, row] of rows) {
  const over = (a: number[], b: number[]) => (key === "floor" ? "" : ` (+${(median(a) - median(b)).toFixed(0)})`);
  process.stdout.write(
    `${key}: peak ${median(row.peak).toFixed(0)} MB${over(row.peak, base.peak)}, settled ${median(row.settled).toFixed(0)} MB${over(row.settled, base.settled)}\n`,
  );
}
rmSync(work, { recursive: true, force: true });
