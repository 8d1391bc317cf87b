/**
 * `make bench-search`: what search costs at 10,000 generated skills (bench/lib/skills.ts: the corpora's
 * SKILL.md files under new names), two builds side by side in one run so machine load hits both alike:
 * the index build from scratch (spawn → first search_skills answered), the session's peak and settled
 * RSS (bench/index-latency.ts, rounds interleaved, medians), then search_skills p50/p95 over stdio with
 * the eval's queries, calls interleaved (bench/search-latency.ts).
 *   bun bench/search-cost.ts --bin dist/skillhub [--vs OTHER_BIN] [--size 10000] [--rounds 3] [--calls 400]
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { formatLatency, indexLatency, type LatencyFigures } from "./index-latency.ts";
import { medianOf } from "./lib/rpc.ts";
import { generateSkills } from "./lib/skills.ts";

const { values } = parseArgs({
  options: {
    bin: { type: "string", default: "dist/skillhub" },
    vs: { type: "string" },
    size: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    calls: { type: "string", default: "400" },
  },
});
const bins = [values.bin, ...(values.vs ? [values.vs] : [])].map((b) => resolve(b as string));
for (const bin of bins)
  if (!existsSync(bin)) throw new Error(`${bin} does not exist (make build, or give --vs a built binary)`);
const dir = mkdtempSync(join(tmpdir(), "skillhub-search-cost-"));
try {
  generateSkills(dir, Number(values.size));
  const names = readdirSync(dir).filter((d) => existsSync(join(dir, d, "SKILL.md")));
  const rounds = new Map<string, LatencyFigures[]>(bins.map((b) => [b, []]));
  for (let r = 0; r < Number(values.rounds); r++)
    for (const bin of r % 2 === 0 ? bins : [...bins].reverse())
      rounds.get(bin)?.push(await indexLatency(bin, dir, names));
  process.stdout.write(`${names.length} skills, index built from scratch, medians of ${values.rounds} rounds:\n`);
  const medians = bins.map((bin) => medianOf(rounds.get(bin) ?? []));
  bins.forEach((bin, i) => {
    process.stdout.write(`  ${bin}: ${formatLatency(medians[i] as LatencyFigures)}\n`);
  });
  const [a, b] = medians;
  if (a && b)
    process.stdout.write(
      `  A/B: build ${(a.buildMs / b.buildMs).toFixed(2)}, settled RSS ${(a.settledMb - b.settledMb).toFixed(1)} MB, peak RSS ${(a.peakMb - b.peakMb).toFixed(1)} MB\n`,
    );
  const search = Bun.spawnSync(
    [
      process.execPath,
      join(import.meta.dir, "search-latency.ts"),
      "--dir",
      dir,
      "--bin",
      bins[0] as string,
      ...(bins[1] ? ["--vs", bins[1]] : []),
      "--calls",
      values.calls as string,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  process.stdout.write(search.stdout.toString());
  if (search.exitCode !== 0) process.exitCode = search.exitCode ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
