/**
 * `skill` against the fair floor (a tool that reads and returns the same SKILL.md), interleaved call by
 * call in one run so that machine drift hits both alike: p50/p95 of each and the p50 ratio.
 * Usage: bun bench/skill-call.ts [--sizes 1000,10000] [--calls 2000] [--bin dist/skillhub] [--corpus DIR]
 * (--corpus: an existing folder of skill folders, each named as its skill, measured once instead of a
 * generated corpus per size; --sizes is then ignored)
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";
import { INITIALIZE, percentile, spawnServer } from "./lib/rpc.ts";
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
  const hub = spawnServer([values.bin, "--skills-dir", dir], { env, cwd: home });
  const fair = spawnServer([floor], { env, cwd: home });
  for (const s of [hub, fair]) {
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await s.request("tools/list");
  }
  // Steady state: the background search index is built (a search waits for it) before calls are timed.
  await hub.request("tools/call", { name: "search_skills", arguments: { query: "warm up" } });
  const skill: number[] = [];
  const read: number[] = [];
  const calls = Number(values.calls);
  for (let i = 0; i < calls + 200; i++) {
    const name = names[(i * 7919) % names.length] as string;
    const order = i % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) {
      const started = performance.now();
      const reply =
        which === 0
          ? await hub.request("tools/call", { name: "skill", arguments: { name } })
          : await fair.request("tools/call", { name: "read", arguments: { path: join(dir, name, "SKILL.md") } });
      const took = performance.now() - started;
      if (reply.error || reply.result?.isError) throw new Error(`call failed: ${JSON.stringify(reply).slice(0, 200)}`);
      // The first 200 rounds warm both up (JIT, caches) and are not counted.
      if (i >= 200) (which === 0 ? skill : read).push(took);
    }
  }
  await hub.close();
  await fair.close();
  const ms = (n: number) => `${n.toFixed(3)} ms`;
  process.stdout.write(
    `${size} ${corpus ? `folders in ${corpus}` : "skills"}, ${calls} interleaved calls: skill p50 ${ms(percentile(skill, 50))} p95 ${ms(percentile(skill, 95))}; fair floor p50 ${ms(percentile(read, 50))} p95 ${ms(percentile(read, 95))}; p50 ratio ${(percentile(skill, 50) / percentile(read, 50)).toFixed(2)}\n`,
  );
}
rmSync(work, { recursive: true, force: true });
