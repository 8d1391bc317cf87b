/**
 * `make bench`: SkillHub beside a floor (the smallest SDK server, compiled the same way) measured in the
 * same run, at 1,000, 10,000 and 20,000 skills shaped like the real collections (lib/skills.ts). Every
 * start is timed twice over: cold (nothing kept: a first run, CI, a fresh container) and warm (the catalog
 * snapshot and search index the last run kept, as a client's everyday start), each start interleaved with
 * one of the floor's so that the machine's load weighs on both alike. Prints one table per size with the
 * goals beside the figures; medians of --runs rounds.
 * Usage: bun bench/run.ts [--sizes 1000,10000,20000] [--runs 3] [--calls 300] [--idle-windows 3] [--json FILE]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";
import { INITIALIZE, medianOf, percentile, type Spawned, searchComplete, spawnServer } from "./lib/rpc.ts";
import { type PairFigures, pairRounds } from "./lib/skill-pairs.ts";
import { type Corpus, generateCorpus } from "./lib/skills.ts";
import { cpuOver } from "./lib/thread-cpu.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,20000" },
    runs: { type: "string", default: "3" },
    calls: { type: "string", default: "300" },
    "idle-windows": { type: "string", default: "3" },
    json: { type: "string" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const calls = Number(values.calls);
const root = resolve(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "skillhub-bench-"));
const say = (text = "") => process.stdout.write(`${text}\n`);
const queries = (await Bun.file(join(import.meta.dir, "eval", "queries.json")).json()).map(
  (q: { query: string }) => q.query,
) as string[];

const skillhub = join(root, "dist", "skillhub");
const floor = join(work, "floor");
say("Compiling the floor (bench/floor/server.ts) with skillhub's flags...");
if ((await compile({ entry: "bench/floor/server.ts", outfile: floor }, true)) !== 0)
  throw new Error("floor build failed");

/** How long a session idles before its settled RSS is read: the index save comes 2 s after a change. */
const SETTLE_MS = 4000;

/** One start of a server and its session: when each first answer came (ms from spawn), and its memory. */
interface Start {
  initMs: number;
  listMs: number;
  /** The first search_skills answer (SkillHub) or tool call (the floor). */
  firstCallMs: number;
  /** The first complete search answer (a first start answers a large catalog early, saying `partial`). */
  completeMs: number;
  /** Whether the first tools/list said the skills were still being read, and the first search was partial. */
  listPending: boolean;
  searchPartial: boolean;
  /** search_skills (SkillHub) or echo (the floor) once the server is ready: p50 and p95. */
  callP50: number;
  callP95: number;
  peakMb: number;
  settledMb: number;
}

/** Open a session as a client does: initialize, initialized, tools/list; the times of both answers. */
async function open(s: Spawned): Promise<{ initMs: number; listMs: number; listPending: boolean }> {
  await s.request("initialize", INITIALIZE);
  const initMs = s.since();
  s.notify("notifications/initialized");
  const listed = await s.request("tools/list");
  return {
    initMs,
    listMs: s.since(),
    listPending: JSON.stringify(listed.result ?? {}).includes("still reading the skill folders"),
  };
}

/** Time `count` calls one after the other; each must succeed. */
async function timedCalls(s: Spawned, count: number, call: (i: number) => object): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const reply = await s.request("tools/call", call(i));
    times.push(performance.now() - started);
    if (reply.error || reply.result?.isError) throw new Error(`call failed: ${JSON.stringify(reply).slice(0, 300)}`);
  }
  return times;
}

/** The rest of a session once it is ready: timed calls, peak RSS, then settled RSS after SETTLE_MS. */
async function finish(
  s: Spawned,
  call: (i: number) => object,
  first: Omit<Start, "callP50" | "callP95" | "peakMb" | "settledMb">,
) {
  const times = await timedCalls(s, Math.min(calls, 200), call);
  const peakMb = s.peakRssKb() / 1024;
  await Bun.sleep(SETTLE_MS);
  const figures: Start = {
    ...first,
    callP50: percentile(times, 50),
    callP95: percentile(times, 95),
    peakMb,
    settledMb: s.rssKb() / 1024,
  };
  await s.close();
  return figures;
}

const search = (i: number) => ({ name: "search_skills", arguments: { query: queries[i % queries.length] } });
const echo = () => ({ name: "echo", arguments: { text: "hello" } });

/** A SkillHub session from spawn: the start's answers, searches until complete, then timed searches. */
async function hubStart(cmd: string[], env: Record<string, string>, cwd: string): Promise<Start> {
  const s = spawnServer(cmd, { env, cwd });
  const opened = await open(s);
  const { first, completeMs } = await searchComplete(s, queries[0] as string);
  return finish(s, search, { ...opened, firstCallMs: first.atMs, searchPartial: first.partial, completeMs });
}

/** The floor's session from spawn, the same steps with its echo tool. */
async function floorStart(env: Record<string, string>, cwd: string): Promise<Start> {
  const s = spawnServer([floor], { env, cwd });
  const opened = await open(s);
  await s.request("tools/call", echo());
  const firstCallMs = s.since();
  return finish(s, echo, { ...opened, firstCallMs, completeMs: firstCallMs, searchPartial: false });
}

/**
 * Idle CPU beside the floor in the same windows (each longer than the 30 s rescan timer), after both
 * have settled: start-up's collections go on for 40-60 s in either runtime. With --no-watch beside them,
 * each window also holds one 30 s check of every skill folder (what the watcher spares).
 */
const IDLE_SETTLE_MS = 60_000;
const IDLE_WINDOW_MS = 31_000;

async function idleCpu(dir: string, env: Record<string, string>, cwd: string) {
  const servers = [
    spawnServer([skillhub, "--skills-dir", dir], { env, cwd }),
    spawnServer([skillhub, "--skills-dir", dir, "--no-watch"], { env, cwd }),
    spawnServer([floor], { env, cwd }),
  ];
  for (const s of servers) await open(s);
  for (const s of servers.slice(0, 2)) await searchComplete(s, "warm up");
  await Bun.sleep(IDLE_SETTLE_MS);
  const windows: number[][] = servers.map(() => []);
  for (let w = 0; w < Number(values["idle-windows"]); w++) {
    const used = await cpuOver(
      servers.map((s) => s.proc.pid),
      IDLE_WINDOW_MS,
    );
    for (const [i, u] of used.entries()) windows[i]?.push(u.ms);
  }
  for (const s of servers) await s.close();
  const [watched, unwatched, bare] = windows as [number[], number[], number[]];
  return { watched, unwatched, floor: bare };
}

/** Generate the skills or stop the benchmark with the reason: figures over a partial corpus would mislead. */
function corpus(dir: string, size: number): Corpus {
  try {
    const made = generateCorpus(dir, size);
    if (made.names.length !== size) throw new Error(`${made.names.length} of ${size} skills were written`);
    return made;
  } catch (error) {
    process.stderr.write(`bench: cannot generate ${size} skills in ${dir}: ${(error as Error).message}\n`);
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  }
}

const n0 = (n: number) => Math.round(n).toLocaleString("en-US");
const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n0(n)} ms`;
const mb = (n: number) => `${n.toFixed(0)} MB`;
const ratio = (a: number, b: number) => `×${(a / b).toFixed(2)}`;
const mark = (ok: boolean) => (ok ? "met" : "NOT MET");

/** One table row: what, cold, warm, floor, goal (and whether it is met where it applies at this size). */
function row(what: string, cold: string, warm: string, base: string, goal = "") {
  say(`${what.padEnd(30)} ${cold.padEnd(28)} ${warm.padEnd(24)} ${base.padEnd(18)} ${goal}`);
}

const results: Record<string, unknown> = { date: new Date().toISOString(), runs, calls, sizes: {} };
for (const size of sizes) {
  const dir = join(work, `skills-${size}`);
  const made = corpus(dir, size);
  const home = join(work, `home-${size}`);
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  const cmd = [skillhub, "--skills-dir", dir];
  // Cold: nothing kept, each round; the last round leaves the snapshot and index the warm rounds start from.
  const cold: Start[] = [];
  const coldFloor: Start[] = [];
  for (let r = 0; r < runs; r++) {
    rmSync(env.SKILLHUB_HOME, { recursive: true, force: true });
    coldFloor.push(await floorStart(env, home));
    cold.push(await hubStart(cmd, env, home));
  }
  const warm: Start[] = [];
  const warmFloor: Start[] = [];
  for (let r = 0; r < runs; r++) {
    warmFloor.push(await floorStart(env, home));
    warm.push(await hubStart(cmd, env, home));
  }
  const pairs = await pairRounds({ hubCmd: cmd, floor, dir, names: made.names, env, cwd: home, calls, rounds: runs });
  const [c0, w0, f0, g0] = [cold, warm, coldFloor, warmFloor].map((rounds) => medianOf(rounds)) as [
    Start,
    Start,
    Start,
    Start,
  ];
  const [skillPair, loadPair] = [pairs.skill, pairs.loadSkill].map((p) => medianOf(p)) as PairFigures[];
  const idle = size === 10_000 ? await idleCpu(dir, env, home) : undefined;
  rmSync(dir, { recursive: true, force: true });
  (results.sizes as Record<string, unknown>)[size] = {
    corpus: { ...made, names: undefined },
    cold,
    warm,
    coldFloor,
    warmFloor,
    pairs,
    idle,
  };
  const at = (sizesWithGoal: number[], text: string, ok: boolean) =>
    sizesWithGoal.includes(size) ? `${text} ${mark(ok)}` : "";
  say(
    `\n== ${n0(size)} skills: ${n0(made.folders)} folders, ${n0(made.files)} files, ${(made.bytes / 1e6).toFixed(0)} MB (medians of ${runs})`,
  );
  row("", "cold (nothing kept)", "warm (snapshot + index)", "floor cold / warm", "goal");
  row(
    "spawn → initialize",
    `${ms(c0.initMs)} ${ratio(c0.initMs, f0.initMs)}`,
    `${ms(w0.initMs)} ${ratio(w0.initMs, g0.initMs)}`,
    `${ms(f0.initMs)} / ${ms(g0.initMs)}`,
    at(
      [1000, 10_000],
      "≤ ×1.3 the floor",
      c0.initMs <= 1.3 * f0.initMs && (size !== 10_000 || w0.initMs <= 1.3 * g0.initMs),
    ),
  );
  row(
    "spawn → first tools/list",
    `${ms(c0.listMs)}${cold.some((s) => s.listPending) ? " (still reading)" : ""}`,
    ms(w0.listMs),
    `${ms(f0.listMs)} / ${ms(g0.listMs)}`,
    at([10_000], "cold ≤ 1,500 ms", c0.listMs <= 1500),
  );
  row(
    "spawn → first search answer",
    `${ms(c0.firstCallMs)}${cold.some((s) => s.searchPartial) ? " (partial)" : ""}`,
    ms(w0.firstCallMs),
    `${ms(f0.firstCallMs)} / ${ms(g0.firstCallMs)}`,
    at([10_000], "cold ≤ 5,000 ms", c0.firstCallMs <= 5000),
  );
  row("spawn → complete search", ms(c0.completeMs), ms(w0.completeMs), "(first call)");
  row(
    "peak RSS",
    `${mb(c0.peakMb)} (+${mb(c0.peakMb - f0.peakMb)})`,
    `${mb(w0.peakMb)} (+${mb(w0.peakMb - g0.peakMb)})`,
    `${mb(f0.peakMb)} / ${mb(g0.peakMb)}`,
    at([10_000], "≤ floor + 120 MB", Math.max(c0.peakMb - f0.peakMb, w0.peakMb - g0.peakMb) <= 120),
  );
  row(
    "settled RSS",
    `${mb(c0.settledMb)} (+${mb(c0.settledMb - f0.settledMb)})`,
    `${mb(w0.settledMb)} (+${mb(w0.settledMb - g0.settledMb)})`,
    `${mb(f0.settledMb)} / ${mb(g0.settledMb)}`,
    at([10_000], "≤ floor + 60 MB", Math.max(c0.settledMb - f0.settledMb, w0.settledMb - g0.settledMb) <= 60),
  );
  row(
    "search_skills p50 / p95",
    `${ms(c0.callP50)} / ${ms(c0.callP95)}`,
    `${ms(w0.callP50)} / ${ms(w0.callP95)}`,
    `echo ${ms(g0.callP50)}`,
    at(sizes, "p50 < 5 ms", Math.max(c0.callP50, w0.callP50) < 5),
  );
  for (const [label, pair] of [
    ["skill vs the fair floor", skillPair],
    ["load_skill vs the fair floor", loadPair],
  ] as const) {
    const p = pair as PairFigures;
    row(
      label,
      "",
      `${ms(p.skillP50)} ${ratio(p.skillP50, p.fairP50)}`,
      `read ${ms(p.fairP50)}`,
      at(sizes, "p50 ≤ ×1.2 the fair floor", p.ratio <= 1.2),
    );
  }
  if (idle) {
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const each = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" ");
    row(
      "idle CPU per 31 s",
      "",
      `${ms(mean(idle.watched))} (${each(idle.watched)})`,
      `${ms(mean(idle.floor))} (${each(idle.floor)})`,
      at([10_000], "≤ 10 ms", mean(idle.watched) <= 10),
    );
    row("  with --no-watch", "", `${ms(mean(idle.unwatched))} (${each(idle.unwatched)})`, "");
  }
}

if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2));
rmSync(work, { recursive: true, force: true });
