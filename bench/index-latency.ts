/**
 * Worst tool-call latency while the search index is built from scratch and while it is saved (goal:
 * both < 50 ms), plus peak and settled RSS of that session. A client calls `skill` in a loop from the
 * first `tools/list` until a `search_skills` answer is no longer `partial` (the whole index is built;
 * until then a large catalog answers from names and descriptions), then `skill` and
 * `search_skills` in turn until the saved index file has appeared and 500 ms more (the save, due 2 s
 * after the build). Used by bench/search-cost.ts; standalone:
 *   bun bench/index-latency.ts --bin dist/skillhub --dir SKILLS [--vs OTHER_BIN] [--rounds 3]
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { INITIALIZE, medianOf, percentile, spawnServer } from "./lib/rpc.ts";

export interface LatencyFigures {
  /** Calls timed during the build, and their max / p99 (ms). */
  buildCalls: number;
  buildMaxMs: number;
  buildP99Ms: number;
  /** Spawn → first search answered (the index built). */
  buildMs: number;
  saveCalls: number;
  saveMaxMs: number;
  saveP99Ms: number;
  /** The same for the `skill` calls alone (a search's own time is not the save's doing). */
  saveSkillMaxMs: number;
  saveSkillP99Ms: number;
  /** Peak RSS over the session, and RSS once the save is over and 4 s have passed (MB). */
  peakMb: number;
  settledMb: number;
}

/** One session of `bin` over `dir` with a fresh SKILLHUB_HOME (so the index is built from scratch). */
export async function indexLatency(bin: string, dir: string, names: readonly string[]): Promise<LatencyFigures> {
  const home = mkdtempSync(join(tmpdir(), "skillhub-latency-"));
  const cache = join(home, ".skillhub", "index");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    SKILLHUB_HOME: join(home, ".skillhub"),
    LOG_LEVEL: "ERROR",
  };
  const s = spawnServer([bin, "--skills-dir", dir], { env, cwd: home });
  try {
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await s.request("tools/list");
    let n = 0;
    const skillCall = () => ({ name: "skill", arguments: { name: names[(n++ * 7919) % names.length] as string } });
    const timed = async (params: object, into: number[]) => {
      const started = performance.now();
      const reply = await s.request("tools/call", params);
      into.push(performance.now() - started);
      if (reply.error || reply.result?.isError) throw new Error(`call failed: ${JSON.stringify(reply).slice(0, 300)}`);
    };
    const during: number[] = [];
    let built = false;
    const first = (async () => {
      for (;;) {
        const reply = await s.request("tools/call", {
          name: "search_skills",
          arguments: { query: "analyse single-cell RNA data" },
        });
        if (!reply.result?.structuredContent?.partial) break;
      }
    })().then(() => {
      built = true;
    });
    while (!built) await timed(skillCall(), during);
    await first;
    const buildMs = s.since();
    const saving: number[] = [];
    const savingSkill: number[] = [];
    const saved = () => existsSync(cache) && readdirSync(cache).some((f) => f.startsWith("search-index-"));
    let savedAt = 0;
    const deadline = performance.now() + 30_000;
    let i = 0;
    while (performance.now() < deadline) {
      if (savedAt === 0 && saved()) savedAt = performance.now();
      if (savedAt > 0 && performance.now() - savedAt > 500) break;
      if (i++ % 2 === 0) {
        await timed(skillCall(), savingSkill);
        saving.push(savingSkill.at(-1) as number);
      } else
        await timed({ name: "search_skills", arguments: { query: QUERIES[i % QUERIES.length] as string } }, saving);
    }
    if (savedAt === 0) throw new Error("the index was not saved within 30 s");
    await Bun.sleep(4000);
    return {
      buildCalls: during.length,
      buildMaxMs: Math.max(...during),
      buildP99Ms: percentile(during, 99),
      buildMs,
      saveCalls: saving.length,
      saveMaxMs: Math.max(...saving),
      saveP99Ms: percentile(saving, 99),
      saveSkillMaxMs: Math.max(...savingSkill),
      saveSkillP99Ms: percentile(savingSkill, 99),
      peakMb: s.peakRssKb() / 1024,
      settledMb: s.rssKb() / 1024,
    };
  } finally {
    await s.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The floor's worst call over a stretch as long as SkillHub's build (at most 30 s): its `read` tool (the
 * fair floor for `skill`) called in the same closed loop. What the runtime's own collections cost such a
 * loop on this machine, to read SkillHub's worst call against.
 */
export async function floorWorstCall(
  floor: string,
  dir: string,
  names: readonly string[],
  ms: number,
): Promise<{ calls: number; maxMs: number; p99Ms: number }> {
  const s = spawnServer([floor], { env: { PATH: process.env.PATH ?? "" } });
  try {
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await s.request("tools/list");
    const latencies: number[] = [];
    const until = performance.now() + Math.min(ms, 30_000);
    for (let n = 0; performance.now() < until; n++) {
      const started = performance.now();
      const path = join(dir, names[(n * 7919) % names.length] as string, "SKILL.md");
      const reply = await s.request("tools/call", { name: "read", arguments: { path } });
      latencies.push(performance.now() - started);
      if (reply.error || reply.result?.isError)
        throw new Error(`floor call failed: ${JSON.stringify(reply).slice(0, 300)}`);
    }
    return { calls: latencies.length, maxMs: Math.max(...latencies), p99Ms: percentile(latencies, 99) };
  } finally {
    await s.close();
  }
}

const QUERIES = [
  "extract tables from a PDF",
  "write unit tests first",
  "analyse single-cell RNA data",
  "deploy to the cloud",
  "make a slide deck",
];

export function formatLatency(f: LatencyFigures): string {
  const m = (x: number) => `${x.toFixed(1)} ms`;
  return (
    `calls during the index build (${f.buildCalls}): max ${m(f.buildMaxMs)}, p99 ${m(f.buildP99Ms)} (built in ${m(f.buildMs)}); ` +
    `during the save (${f.saveCalls}): max ${m(f.saveMaxMs)}, p99 ${m(f.saveP99Ms)} (skill alone: max ${m(f.saveSkillMaxMs)}, p99 ${m(f.saveSkillP99Ms)}); peak ${f.peakMb.toFixed(1)} MB, settled ${f.settledMb.toFixed(1)} MB`
  );
}

if (import.meta.main) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({
    options: {
      bin: { type: "string", default: "dist/skillhub" },
      vs: { type: "string" },
      dir: { type: "string" },
      rounds: { type: "string", default: "3" },
    },
  });
  if (!values.dir) throw new Error("--dir SKILLS is required");
  const dir = values.dir;
  const names = readdirSync(dir).filter((d) => existsSync(join(dir, d, "SKILL.md")));
  const bins = [values.bin, ...(values.vs ? [values.vs] : [])].map((b) => resolve(b));
  const all = new Map<string, LatencyFigures[]>(bins.map((b) => [b, []]));
  for (let r = 0; r < Number(values.rounds); r++)
    for (const bin of bins) {
      const f = await indexLatency(bin, dir, names);
      all.get(bin)?.push(f);
      process.stdout.write(`${bin} round ${r + 1}: ${formatLatency(f)}\n`);
    }
  for (const [bin, rows] of all) process.stdout.write(`${bin} medians: ${formatLatency(medianOf(rows))}\n`);
}
