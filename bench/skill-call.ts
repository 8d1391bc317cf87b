/**
 * `skill` and `load_skill` against the fair floor (a tool that reads and returns the same SKILL.md, in the
 * same form), interleaved call by call in one run so that machine drift hits both alike: p50/p95 of each
 * and the p50 ratio, as `make bench` times them (medians of --rounds rounds of a fresh pair of servers).
 * Usage: bun bench/skill-call.ts [--sizes 1000,10000] [--calls 2000] [--rounds 1] [--bin dist/skillhub] [--corpus DIR]
 * (--corpus: an existing folder of skill folders, each named as its skill, measured once instead of a
 * generated corpus per size; --sizes is then ignored)
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildFloor } from "./lib/floor.ts";
import { medianOf } from "./lib/rpc.ts";
import { LOAD_SKILL_PAIR, pairRounds, SKILL_PAIR } from "./lib/skill-pairs.ts";
import { generateSkills } from "./lib/skills.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    calls: { type: "string", default: "2000" },
    rounds: { type: "string", default: "1" },
    bin: { type: "string", default: join(resolve(import.meta.dir, ".."), "dist", "skillhub") },
    corpus: { type: "string" },
  },
});
const work = mkdtempSync(join(tmpdir(), "skillhub-skill-call-"));
const floor = await buildFloor(work);

const corpus = values.corpus;
const corpusNames = corpus ? readdirSync(corpus) : undefined;
const sizes = corpusNames ? [corpusNames.length] : values.sizes.split(",").map(Number);
for (const size of sizes) {
  const dir = corpus ?? join(work, `skills-${size}`);
  const names = corpusNames ?? generateSkills(dir, size);
  const home = join(work, `home-${size}`);
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  const rounds = await pairRounds({
    hubCmd: [values.bin, "--skills-dir", dir],
    floor,
    dir,
    names,
    env,
    cwd: home,
    calls: Number(values.calls),
    rounds: Number(values.rounds),
  });
  const ms = (n: number) => `${n.toFixed(3)} ms`;
  const what = corpus ? `folders in ${corpus}` : "skills";
  for (const [pair, figures] of [
    [SKILL_PAIR, rounds.skill],
    [LOAD_SKILL_PAIR, rounds.loadSkill],
  ] as const) {
    const f = medianOf(figures);
    process.stdout.write(
      `${size} ${what}, ${values.calls} interleaved calls a round: ${pair.tool} p50 ${ms(f.skillP50)} p95 ${ms(f.skillP95)}; fair floor (${pair.floorTool}) p50 ${ms(f.fairP50)} p95 ${ms(f.fairP95)}; p50 ratio ${f.ratio.toFixed(2)} (by round: ${figures.map((r) => r.ratio.toFixed(2)).join(" ")})\n`,
    );
  }
}
rmSync(work, { recursive: true, force: true });
