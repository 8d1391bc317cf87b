/**
 * `make bench`: SkillHub beside a floor (the smallest SDK server, compiled the same way) measured in the
 * same run, at 1,000, 10,000 and 20,000 skills shaped like the real collections (lib/skills.ts). Every
 * start is timed twice over: cold (nothing kept: a first run, CI, a fresh container) and warm (the catalog
 * snapshot and search index the last run kept, as a client's everyday start), each start interleaved with
 * one of the floor's so that the machine's load weighs on both alike. Prints one table per size with the
 * goals beside the figures; medians of --runs rounds.
 * Sessions (--runs) go on to the first complete search, timed searches, peak and settled RSS; start-ups
 * alone (--starts rounds) end at the first search answer.
 * Usage: bun bench/run.ts [--sizes 1000,10000,20000] [--runs 3] [--starts 5] [--calls 300] [--idle-windows 3 (0: none)]
 *                         [--json FILE] [--bin PATH (another build, e.g. an older one; default dist/skillhub)]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildFloor } from "./lib/floor.ts";
import { INITIALIZE, median, medianOf, percentile, type Spawned, searchComplete, spawnServer } from "./lib/rpc.ts";
import { type PairFigures, pairRounds } from "./lib/skill-pairs.ts";
import { type Corpus, generateCorpus } from "./lib/skills.ts";
import { cpuOver } from "./lib/thread-cpu.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,20000" },
    runs: { type: "string", default: "3" },
    starts: { type: "string", default: "5" },
    calls: { type: "string", default: "300" },
    "idle-windows": { type: "string", default: "3" },
    json: { type: "string" },
    bin: { type: "string" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const startRuns = Number(values.starts);
const calls = Number(values.calls);
const root = resolve(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "skillhub-bench-"));
const say = (text = "") => process.stdout.write(`${text}\n`);
const queries = (await Bun.file(join(import.meta.dir, "eval", "queries.json")).json()).map(
  (q: { query: string }) => q.query,
) as string[];

const skillhub = values.bin ?? join(root, "dist", "skillhub");
say("Compiling the floor (bench/floor/server.ts) with skillhub's flags...");
const floor = await buildFloor(work);

/** How long a session idles before its settled RSS is read: the index save comes 2 s after a change. */
const SETTLE_MS = 4000;

/** One start of a server: when each first answer came (ms from spawn). */
interface Start {
  initMs: number;
  listMs: number;
  /** The first search_skills answer (SkillHub) or tool call (the floor). */
  firstCallMs: number;
  /** Whether the first tools/list said the skills were still being read, and the first search was partial. */
  listPending: boolean;
  searchPartial: boolean;
}

/** A whole session from spawn: its start, then the first complete search, timed calls and memory. */
interface Session extends Start {
  /** The first complete search answer (a first start answers a large catalog early, saying `partial`). */
  completeMs: number;
  /** search_skills (SkillHub) or echo (the floor) once the server is ready: p50 and p95. */
  callP50: number;
  callP95: number;
  peakMb: number;
  settledMb: number;
}

/** Open a session as a client does: initialize, initialized, tools/list; the times of both answers. */
async function open(s: Spawned): Promise<Omit<Start, "firstCallMs" | "searchPartial">> {
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

const search = (i: number) => ({ name: "search_skills", arguments: { query: queries[i % queries.length] } });
const echo = () => ({ name: "echo", arguments: { text: "hello" } });

/** Where a server runs: its environment (its home is also its working directory) and the skills it serves. */
interface Place {
  env: { PATH: string; HOME: string; SKILLHUB_HOME: string; LOG_LEVEL: string };
  dir: string;
}

/** A server from spawn to its first answers; with `session`, on to timed calls, peak and settled RSS. */
async function run(which: "hub" | "floor", at: Place): Promise<Start>;
async function run(which: "hub" | "floor", at: Place, session: true): Promise<Session>;
async function run(which: "hub" | "floor", at: Place, session = false) {
  // Started in the home: a working directory elsewhere would become the project root, and other sources.
  const cmd = which === "hub" ? [skillhub, "--skills-dir", at.dir] : [floor];
  const s = spawnServer(cmd, { env: at.env, cwd: at.env.HOME });
  const opened = await open(s);
  let first: { partial: boolean; atMs: number };
  let completeMs: number;
  if (which === "hub") ({ first, completeMs } = await searchComplete(s, queries[0] as string, !session));
  else {
    await s.request("tools/call", echo());
    first = { partial: false, atMs: s.since() };
    completeMs = first.atMs;
  }
  const start: Start = { ...opened, firstCallMs: first.atMs, searchPartial: first.partial };
  if (!session) {
    await s.close();
    return start;
  }
  const times = await timedCalls(s, Math.min(calls, 200), which === "hub" ? search : echo);
  const peakMb = s.peakRssKb() / 1024;
  // Settled: the background build and its saves are over; what a client lives with.
  await Bun.sleep(SETTLE_MS);
  const figures: Session = {
    ...start,
    completeMs,
    callP50: percentile(times, 50),
    callP95: percentile(times, 95),
    peakMb,
    settledMb: s.rssKb() / 1024,
  };
  await s.close();
  return figures;
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
  // Two homes: one wiped before each cold start, one that keeps what the last run kept (warm starts).
  const place = (home: string): Place => {
    mkdirSync(home, { recursive: true });
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      SKILLHUB_HOME: join(home, ".skillhub"),
      LOG_LEVEL: "ERROR",
    };
    return { env, dir };
  };
  const coldAt = place(join(work, `cold-${size}`));
  const warmAt = place(join(work, `warm-${size}`));
  const wipe = (at: Place) => rmSync(at.env.SKILLHUB_HOME, { recursive: true, force: true });
  // Whole sessions, each round: the floor, a cold SkillHub, the floor, a warm SkillHub (the first warm
  // session starts from what a cold one left: its home is the warm home, wiped first).
  const sessions = {
    cold: [] as Session[],
    coldFloor: [] as Session[],
    warm: [] as Session[],
    warmFloor: [] as Session[],
  };
  for (let r = 0; r < runs; r++) {
    if (r === 0) wipe(warmAt);
    wipe(coldAt);
    sessions.coldFloor.push(await run("floor", coldAt, true));
    const first = r === 0 ? warmAt : coldAt;
    sessions.cold.push(await run("hub", first, true));
    sessions.warmFloor.push(await run("floor", warmAt, true));
    sessions.warm.push(await run("hub", warmAt, true));
  }
  // Start-ups alone, more rounds (each ends at its first search answer), interleaved the same way.
  const starts = { cold: [] as Start[], coldFloor: [] as Start[], warm: [] as Start[], warmFloor: [] as Start[] };
  for (let r = 0; r < startRuns; r++) {
    wipe(coldAt);
    starts.coldFloor.push(await run("floor", coldAt));
    starts.cold.push(await run("hub", coldAt));
    starts.warmFloor.push(await run("floor", warmAt));
    starts.warm.push(await run("hub", warmAt));
  }
  const pairs = await pairRounds({
    hubCmd: [skillhub, "--skills-dir", dir],
    floor,
    dir,
    names: made.names,
    env: warmAt.env,
    cwd: warmAt.env.HOME,
    calls,
    rounds: runs,
  });
  const [c0, f0, w0, g0] = [starts.cold, starts.coldFloor, starts.warm, starts.warmFloor].map((r) => medianOf(r)) as [
    Start,
    Start,
    Start,
    Start,
  ];
  const [c1, f1, w1, g1] = [sessions.cold, sessions.coldFloor, sessions.warm, sessions.warmFloor].map((r) =>
    medianOf(r),
  ) as [Session, Session, Session, Session];
  const [skillPair, loadPair] = [pairs.skill, pairs.loadSkill].map((p) => medianOf(p)) as PairFigures[];
  const idle =
    size === 10_000 && Number(values["idle-windows"]) > 0 ? await idleCpu(dir, warmAt.env, warmAt.env.HOME) : undefined;
  rmSync(dir, { recursive: true, force: true });
  (results.sizes as Record<string, unknown>)[size] = {
    corpus: { ...made, names: undefined },
    starts,
    sessions,
    pairs,
    idle,
  };
  const at = (sizesWithGoal: number[], text: string, ok: boolean) =>
    sizesWithGoal.includes(size) ? `${text} ${mark(ok)}` : "";
  say(
    `\n== ${n0(size)} skills: ${n0(made.folders)} folders, ${n0(made.files)} files, ${(made.bytes / 1e6).toFixed(0)} MB (medians of ${startRuns} starts, ${runs} sessions)`,
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
    `${ms(c0.listMs)}${starts.cold.some((s) => s.listPending) ? " (still reading)" : ""}`,
    ms(w0.listMs),
    `${ms(f0.listMs)} / ${ms(g0.listMs)}`,
    at([10_000], "cold ≤ 1,500 ms", c0.listMs <= 1500),
  );
  row(
    "spawn → first search answer",
    `${ms(c0.firstCallMs)}${starts.cold.some((s) => s.searchPartial) ? " (partial)" : ""}`,
    ms(w0.firstCallMs),
    `${ms(f0.firstCallMs)} / ${ms(g0.firstCallMs)}`,
    at([10_000], "cold ≤ 5,000 ms", c0.firstCallMs <= 5000),
  );
  row("spawn → complete search", ms(c1.completeMs), ms(w1.completeMs), "");
  for (const [label, key, over] of [
    ["peak RSS", "peakMb", 120],
    ["settled RSS", "settledMb", 60],
  ] as const)
    row(
      label,
      `${mb(c1[key])} (+${mb(c1[key] - f1[key])})`,
      `${mb(w1[key])} (+${mb(w1[key] - g1[key])})`,
      `${mb(f1[key])} / ${mb(g1[key])}`,
      at([10_000], `≤ floor + ${over} MB`, Math.max(c1[key] - f1[key], w1[key] - g1[key]) <= over),
    );
  row(
    "search_skills p50 / p95",
    `${ms(c1.callP50)} / ${ms(c1.callP95)}`,
    `${ms(w1.callP50)} / ${ms(w1.callP95)}`,
    `echo ${ms(g1.callP50)}`,
    at(sizes, "p50 < 5 ms", Math.max(c1.callP50, w1.callP50) < 5),
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
    // The median of the windows, as every figure here; each window is shown, since one of them may hold
    // the runtime's own full collection after two minutes of quiet (the floor's too).
    const each = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" ");
    row(
      "idle CPU per 31 s",
      "",
      `${ms(median(idle.watched))} (${each(idle.watched)})`,
      `${ms(median(idle.floor))} (${each(idle.floor)})`,
      at([10_000], "≤ 10 ms", median(idle.watched) <= 10),
    );
    row("  with --no-watch", "", `${ms(median(idle.unwatched))} (${each(idle.unwatched)})`, "");
  }
}

if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2));
rmSync(work, { recursive: true, force: true });
