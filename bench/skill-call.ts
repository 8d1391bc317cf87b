/**
 * `skill` and `load_skill` against the fair floor (a tool that reads and returns the same SKILL.md, in the
 * same form), interleaved call by call in one run so that machine drift hits both alike: p50/p95 of each
 * and the p50 ratio.
 * Usage: bun bench/skill-call.ts [--sizes 1000,10000] [--calls 2000] [--bin dist/skillhub] [--corpus DIR]
 * (--corpus: an existing folder of skill folders, each named as its skill, measured once instead of a
 * generated corpus per size; --sizes is then ignored)
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";
import { spawnServer } from "./lib/rpc.ts";
import { besideFair, LOAD_SKILL_PAIR, opened, SKILL_PAIR } from "./lib/skill-pairs.ts";
import { generateSkills } from "./lib/skills.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    calls: { type: "string", default: "2000" },
    bin: { type: "string", default: join(resolve(import.meta.dir, ".."), "dist", "skillhub") },
    corpus: { type: "string" },
  },
});
const work = mkdtempSync(join(tmpdir(), "skillhub-skill-call-"));
const floor = join(work, "floor");
if ((await compile({ entry: "bench/floor/server.ts", outfile: floor }, true)) !== 0)
  throw new Error("floor build failed");

const corpus = values.corpus;
const corpusNames = corpus ? readdirSync(corpus) : undefined;
const sizes = corpusNames ? [corpusNames.length] : values.sizes.split(",").map(Number);
for (const size of sizes) {
  const dir = corpus ?? join(work, `skills-${size}`);
  const names = corpusNames ?? generateSkills(dir, size);
  const home = join(work, `home-${size}`);
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  const hub = await opened(spawnServer([values.bin, "--skills-dir", dir], { env, cwd: home }));
  const fair = await opened(spawnServer([floor, "--structured"], { env, cwd: home }));
  // Steady state: the background search index is built (a search waits for it) before calls are timed.
  await hub.request("tools/call", { name: "search_skills", arguments: { query: "warm up" } });
  const calls = Number(values.calls);
  const ms = (n: number) => `${n.toFixed(3)} ms`;
  for (const pair of [SKILL_PAIR, LOAD_SKILL_PAIR]) {
    const f = await besideFair(hub, fair, dir, names, calls, pair);
    process.stdout.write(
      `${size} ${corpus ? `folders in ${corpus}` : "skills"}, ${calls} interleaved calls: ${pair.tool} p50 ${ms(f.skillP50)} p95 ${ms(f.skillP95)}; fair floor (${pair.floorTool}) p50 ${ms(f.fairP50)} p95 ${ms(f.fairP95)}; p50 ratio ${f.ratio.toFixed(2)}\n`,
    );
  }
  await hub.close();
  await fair.close();
}
rmSync(work, { recursive: true, force: true });
