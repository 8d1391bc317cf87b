/**
 * `make bench`: SkillHub against a floor (the smallest SDK server, compiled the
 * same way), measured in the same run, at 0, 1,000, 10,000 and 20,000 skills.
 * Usage: bun bench/run.ts [--sizes 0,1000,10000,20000] [--runs 5] [--calls 300] [--json FILE] [--skip-http]
 *                         [--sequential-startup]
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";
import { floorWorstCall, formatLatency, indexLatency, type LatencyFigures } from "./index-latency.ts";
import { inProcessFigures } from "./lib/in-process.ts";
import { INITIALIZE, median, medianOf, percentile, spawnServer } from "./lib/rpc.ts";
import { pairRounds } from "./lib/skill-pairs.ts";
import { generateSkills } from "./lib/skills.ts";
import { cpuOver } from "./lib/thread-cpu.ts";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "0,1000,10000,20000" },
    runs: { type: "string", default: "5" },
    calls: { type: "string", default: "300" },
    json: { type: "string" },
    "skip-http": { type: "boolean" },
    // The definition before start-ups were interleaved (all the floor's starts, then all SkillHub's).
    "sequential-startup": { type: "boolean" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const calls = Number(values.calls);
const root = resolve(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "skillhub-bench-"));
const say = (text = "") => process.stdout.write(`${text}\n`);
const ms = (n: number) => `${n.toFixed(1)} ms`;
const queries = (await Bun.file(join(import.meta.dir, "eval", "queries.json")).json()).map(
  (q: { query: string }) => q.query,
) as string[];

const skillhub = join(root, "dist", "skillhub");
const floor = join(work, "floor");
say("Compiling the floor (bench/floor/server.ts) with skillhub's flags...");
if ((await compile({ entry: "bench/floor/server.ts", outfile: floor }, true)) !== 0)
  throw new Error("floor build failed");

interface Figures {
  initMs: number;
  listMs: number;
  listBytes: number;
  callP50: number;
  callP95: number;
  /** Peak RSS (VmHWM) over the whole session. */
  rssMb: number;
  /** RSS once the index is built, saved and the server idle (SETTLE_MS after the last call). */
  settledMb: number;
  searchP50?: number;
  searchP95?: number;
  /** The next block of searches, once the runtime has compiled the search code (docs/performance.md). */
  warmSearchP50?: number;
  warmSearchP95?: number;
  firstSearchMs?: number;
}

type Call = () => { name: string; arguments: object };

/** Start-up figures of one command: medians of spawn → initialize answered and → first tools/list. */
type Starts = Pick<Figures, "initMs" | "listMs" | "listBytes">;

/**
 * Spawn → initialize and → first tools/list for each command, `runs` rounds of one start per command
 * (interleaved), so that the machine's load at any moment weighs on every command alike: timed one
 * command after the other, a busy spell during one command's starts moved the ratio by 20-30 %.
 * The timed starts are second starts, as a user's client sees every day: a first one per command that
 * lasts until a call is answered (after the first scan) leaves the catalog snapshot behind.
 */
async function startups(commands: { cmd: string[]; call: Call }[], env: Record<string, string>, cwd: string) {
  for (const { cmd, call } of commands) {
    const warm = spawnServer(cmd, { env, cwd });
    await warm.request("initialize", INITIALIZE);
    warm.notify("notifications/initialized");
    await warm.request("tools/call", call());
    await warm.close();
  }
  const init: number[][] = commands.map(() => []);
  const list: number[][] = commands.map(() => []);
  const bytes = commands.map(() => 0);
  // One start per command each round; --sequential-startup: each command's starts one after the other.
  const order = values["sequential-startup"]
    ? commands.flatMap((_, i) => Array<number>(runs).fill(i))
    : Array.from({ length: runs }, () => [...commands.keys()]).flat();
  for (const i of order) {
    const s = spawnServer(commands[i]?.cmd as string[], { env, cwd });
    await s.request("initialize", INITIALIZE);
    init[i]?.push(s.since());
    s.notify("notifications/initialized");
    const listed = await s.request("tools/list");
    list[i]?.push(s.since());
    bytes[i] = listed.bytes;
    await s.close();
  }
  return commands.map(
    (_, i): Starts => ({
      initMs: median(init[i] as number[]),
      listMs: median(list[i] as number[]),
      listBytes: bytes[i] as number,
    }),
  );
}

/**
 * Start-up figures (those given, else measured alone), then call latency and peak RSS in one process.
 */
async function measure(
  cmd: string[],
  env: Record<string, string>,
  cwd: string,
  call: Call,
  search: boolean,
  starts?: Starts,
): Promise<Figures> {
  const { initMs, listMs, listBytes } = starts ?? ((await startups([{ cmd, call }], env, cwd))[0] as Starts);
  const s = spawnServer(cmd, { env, cwd });
  await s.request("initialize", INITIALIZE);
  s.notify("notifications/initialized");
  await s.request("tools/list");
  let firstSearchMs: number | undefined;
  if (search) {
    // Steady state: the background index is ready before calls are timed.
    const started = performance.now();
    await s.request("tools/call", { name: "search_skills", arguments: { query: queries[0] } });
    firstSearchMs = performance.now() - started;
  }
  const latencies: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const reply = await s.request("tools/call", call());
    latencies.push(performance.now() - started);
    if (reply.error || reply.result?.isError) throw new Error(`call failed: ${JSON.stringify(reply).slice(0, 300)}`);
  }
  const figures: Figures = {
    initMs,
    listMs,
    listBytes,
    callP50: percentile(latencies, 50),
    callP95: percentile(latencies, 95),
    rssMb: 0,
    settledMb: 0,
    firstSearchMs,
  };
  if (search) {
    const searches: number[] = [];
    const count = Math.min(calls, SEARCHES);
    let peakKb = 0;
    for (let i = 0; i < 2 * count; i++) {
      // Peak RSS as before the second block was added: over the session up to the first block's end.
      if (i === count) peakKb = s.peakRssKb();
      const started = performance.now();
      const reply = await s.request("tools/call", {
        name: "search_skills",
        arguments: { query: queries[i % queries.length] },
      });
      searches.push(performance.now() - started);
      if (reply.error || reply.result?.isError)
        throw new Error(`search failed: ${JSON.stringify(reply).slice(0, 300)}`);
    }
    const [cold, warm] = [searches.slice(0, count), searches.slice(count)];
    figures.rssMb = (peakKb || s.peakRssKb()) / 1024;
    figures.searchP50 = percentile(cold, 50);
    figures.searchP95 = percentile(cold, 95);
    figures.warmSearchP50 = percentile(warm, 50);
    figures.warmSearchP95 = percentile(warm, 95);
  }
  // Settled: the background build and the save (2 s after a change) are over; what a client lives with.
  await Bun.sleep(SETTLE_MS);
  figures.settledMb = s.rssKb() / 1024;
  if (!search) figures.rssMb = s.peakRssKb() / 1024;
  await s.close();
  return figures;
}

const SETTLE_MS = 4000;

/** `runs` rounds of each measurement in turn: each one's figures, by measurement. */
async function inRounds(measurements: (() => Promise<Figures>)[]): Promise<Figures[][]> {
  const out: Figures[][] = measurements.map(() => []);
  for (let r = 0; r < runs; r++) for (const [i, m] of measurements.entries()) out[i]?.push(await m());
  return out;
}

/** One figure's values by round, in order ("4.1 4.6 5.0 …" ms). */
function spreadOf(rounds: readonly Figures[], key: keyof Figures): string {
  return `${rounds.map((f) => (f[key] ?? Number.NaN).toFixed(1)).join(" ")} ms`;
}

/**
 * Searches timed after the `skill` calls (at most `--calls`), then as many again: the first ones run
 * while the runtime is still compiling the search code (its compiler threads used 1.5 ms of CPU per
 * search over the first 400 at 10,000 skills), the next ones once it has. Peak RSS is read at the end
 * of the first block, settled RSS after both.
 */
const SEARCHES = 200;

/**
 * Idle: how long after the warm-up the windows start. Both runtimes' collection timers run a collection
 * a second after start-up's work until the heap has held still for a while, 40–60 s here (the floor's
 * too); what a server costs while idle is what follows (docs/performance.md, Idle CPU).
 */
const IDLE_SETTLE_MS = 90_000;

/**
 * CPU used over idle windows longer than the 30 s rescan timer, SkillHub and the floor side by side:
 * four windows (90–214 s after the warm-up, so that each runtime's collection 2 minutes into the quiet
 * falls inside whichever process started later), each window's figure and their mean. The lowest window
 * is what a server costs between those collections, for as long as nothing changes.
 */
async function idleCpu(
  dir: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{
  skillhubMs: number;
  floorMs: number;
  windowMs: number;
  skillhubWindows: number[];
  floorWindows: number[];
}> {
  const windowMs = 31_000;
  const windows = 4;
  const servers = [spawnServer([skillhub, "--skills-dir", dir], { env, cwd }), spawnServer([floor], { env, cwd })];
  for (const s of servers) {
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await s.request("tools/list");
  }
  await (servers[0] as (typeof servers)[0]).request("tools/call", {
    name: "search_skills",
    arguments: { query: "warm up" },
  });
  await Bun.sleep(IDLE_SETTLE_MS);
  // Per thread in ns, sampled every 250 ms (lib/thread-cpu.ts): /proc/PID/stat's 10 ms ticks moved
  // a 40-70 ms figure by a sixth from run to run.
  const byWindow: number[][] = servers.map(() => []);
  for (let w = 0; w < windows; w++) {
    const used = await cpuOver(
      servers.map((s) => s.proc.pid),
      windowMs,
    );
    for (const [i, u] of used.entries()) byWindow[i]?.push(u.ms);
  }
  for (const s of servers) await s.close();
  const [skillhubWindows, floorWindows] = byWindow as [number[], number[]];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { skillhubMs: mean(skillhubWindows), floorMs: mean(floorWindows), windowMs, skillhubWindows, floorWindows };
}

/** Generate the skills or stop the benchmark with the reason: figures over a partial corpus would mislead. */
function corpus(dir: string, size: number): string[] {
  try {
    const names = generateSkills(dir, size);
    const written = size === 0 ? 0 : readdirSync(dir).length;
    if (names.length !== size || written !== size) throw new Error(`${written} of ${size} skill folders were written`);
    return names;
  } catch (error) {
    process.stderr.write(`bench: cannot generate ${size} skills in ${dir}: ${(error as Error).message}\n`);
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  }
}

/** How long until a skill created now is loadable by name: by its folder name, and by a name only a rescan can find. */
async function freshness(
  dir: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ byFolderMs: number; byRescanMs: number; searchableMs: number }> {
  const s = spawnServer([skillhub, "--skills-dir", dir], { env, cwd });
  await s.request("initialize", INITIALIZE);
  s.notify("notifications/initialized");
  await s.request("tools/list");
  await s.request("tools/call", { name: "search_skills", arguments: { query: "warm up the index" } });
  const wait = async (name: string, started: number, tool = "skill", args: object = { name }) => {
    for (;;) {
      const reply = await s.request("tools/call", { name: tool, arguments: args });
      const ok =
        tool === "skill"
          ? !reply.result?.isError
          : (reply.result?.structuredContent?.skills ?? []).some((h: { name: string }) => h.name === name);
      if (ok) return performance.now() - started;
      if (performance.now() - started > 60_000) return Number.NaN;
      await Bun.sleep(10);
    }
  };
  const write = (folder: string, name: string, word: string) =>
    Bun.write(
      join(dir, folder, "SKILL.md"),
      `---\nname: ${name}\ndescription: Freshly added ${word} skill for the benchmark.\n---\n\n# ${word}\n`,
    );
  let started = performance.now();
  await write("fresh-by-folder", "fresh-by-folder", "zanzibar");
  const byFolderMs = await wait("fresh-by-folder", started);
  started = performance.now();
  await write("folder-differs", "fresh-by-rescan", "quokka");
  const byRescanMs = await wait("fresh-by-rescan", started);
  started = performance.now();
  await write("fresh-search", "fresh-search", "xylophonist");
  const searchableMs = await wait("fresh-search", started, "search_skills", { query: "xylophonist" });
  await s.close();
  return { byFolderMs, byRescanMs, searchableMs };
}

/** Spawn → first search_skills answer, with the persisted index (a second start) and without (--reindex). */
async function persistedStart(
  dir: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ persistedMs: number; reindexMs: number; floorFirstCallMs: number }> {
  const first = async (args: string[]) => {
    const s = spawnServer([skillhub, "--skills-dir", dir, ...args], { env, cwd });
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await s.request("tools/call", { name: "search_skills", arguments: { query: "analyse single-cell RNA data" } });
    const t = s.since();
    await s.close();
    return t;
  };
  await first([]); // builds and (on close) saves the index
  const persisted: number[] = [];
  const reindex: number[] = [];
  const floorCalls: number[] = [];
  for (let r = 0; r < Math.max(3, Math.floor(runs / 2)); r++) {
    persisted.push(await first([]));
    reindex.push(await first(["--reindex"]));
    const f = spawnServer([floor], { env, cwd });
    await f.request("initialize", INITIALIZE);
    f.notify("notifications/initialized");
    await f.request("tools/call", { name: "echo", arguments: { text: "hi" } });
    floorCalls.push(f.since());
    await f.close();
  }
  return { persistedMs: median(persisted), reindexMs: median(reindex), floorFirstCallMs: median(floorCalls) };
}

const results: Record<string, unknown> = { date: new Date().toISOString(), runs, calls, sizes: {} };
const floorCall = () => ({ name: "echo", arguments: { text: "hello" } });
for (const size of sizes) {
  const home = join(work, `home-${size}`);
  const dir = join(work, `skills-${size}`);
  const names = corpus(dir, size);
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  say(`\n== ${size} skills`);
  let n = 0;
  const skillCall = () => ({
    name: "skill",
    arguments: { name: names.length > 0 ? (names[(n++ * 7919) % names.length] as string) : "none" },
  });
  // With no skills there is nothing to load: time list_skills instead.
  const hubCmd = [skillhub, "--skills-dir", dir];
  const hubCall = size === 0 ? () => ({ name: "list_skills", arguments: {} }) : skillCall;
  const [floorStarts, hubStarts] = await startups(
    [
      { cmd: [floor], call: floorCall },
      { cmd: hubCmd, call: hubCall },
    ],
    env,
    home,
  );
  let m = 0;
  const readCall = () => ({
    name: "read",
    arguments: { path: join(dir, names[(m++ * 7919) % names.length] as string, "SKILL.md") },
  });
  // Each round a fresh process of each, one after the other, so that the machine's load at any moment
  // weighs on all alike; SkillHub builds its index afresh each round (--reindex), as in the first.
  const rounds = await inRounds([
    () => measure([floor], env, home, floorCall, false, floorStarts),
    () => measure([...hubCmd, "--reindex"], env, home, hubCall, size > 0, hubStarts),
    ...(size > 0 ? [() => measure([floor], env, home, readCall, false)] : []),
  ]);
  const [floorFigures, hub, fair] = rounds.map((round) => medianOf(round)) as [Figures, Figures, Figures | undefined];
  const spread = (key: keyof Figures, i = 1) => spreadOf(rounds[i] as Figures[], key);
  const row: Record<string, unknown> = { floor: floorFigures, skillhub: hub, rounds };
  say(
    `start-up (spawn → initialize):   skillhub ${ms(hub.initMs)}   floor ${ms(floorFigures.initMs)}   ratio ${(hub.initMs / floorFigures.initMs).toFixed(2)}`,
  );
  say(
    `spawn → first tools/list:        skillhub ${ms(hub.listMs)}   floor ${ms(floorFigures.listMs)}   ratio ${(hub.listMs / floorFigures.listMs).toFixed(2)}`,
  );
  say(`tools/list size:                 skillhub ${hub.listBytes} B   floor ${floorFigures.listBytes} B`);
  say(
    `tool call p50 / p95:             skillhub ${ms(hub.callP50)} / ${ms(hub.callP95)}   floor ${ms(floorFigures.callP50)} / ${ms(floorFigures.callP95)}   p50 ratio ${(hub.callP50 / floorFigures.callP50).toFixed(2)}   (skillhub's p50 by round: ${spread("callP50")})`,
  );
  say(
    `peak RSS:                        skillhub ${hub.rssMb.toFixed(1)} MB   floor ${floorFigures.rssMb.toFixed(1)} MB   (+${(hub.rssMb - floorFigures.rssMb).toFixed(1)} MB)`,
  );
  say(
    `settled RSS:                     skillhub ${hub.settledMb.toFixed(1)} MB   floor ${floorFigures.settledMb.toFixed(1)} MB   (+${(hub.settledMb - floorFigures.settledMb).toFixed(1)} MB)`,
  );
  if (hub.searchP50 !== undefined)
    say(
      `search_skills p50 / p95:         ${ms(hub.searchP50)} / ${ms(hub.searchP95 ?? 0)}, the next ${Math.min(calls, SEARCHES)} ${ms(hub.warmSearchP50 ?? 0)} / ${ms(hub.warmSearchP95 ?? 0)}   (first search, waiting for the index: ${ms(hub.firstSearchMs ?? 0)}; p50 by round: ${spread("searchP50")})`,
    );
  if (fair) {
    row.fairFloor = fair;
    const pairs = await pairRounds({ hubCmd, floor, dir, names, env, cwd: home, calls, rounds: runs });
    row.besideFair = pairs;
    const ms3 = (n: number) => `${n.toFixed(3)} ms`;
    for (const [label, rounds] of [
      ["skill vs fair floor (read)", pairs.skill],
      ["load_skill vs fair floor (read_structured)", pairs.loadSkill],
    ] as const) {
      const pair = medianOf(rounds);
      say(
        `${label}, call by call: p50 ${ms3(pair.skillP50)} vs ${ms3(pair.fairP50)}   ratio ${pair.ratio.toFixed(2)}   (ratio by round: ${rounds.map((p) => p.ratio.toFixed(2)).join(" ")})`,
      );
    }
    say(
      `skill vs fair floor in separate sessions, after a fresh index build: p50 ${ms(hub.callP50)} vs ${ms(fair.callP50)}   ratio ${(hub.callP50 / fair.callP50).toFixed(2)}   (fair floor by round: ${spread("callP50", 2)})`,
    );
  }
  if (size === 10_000) {
    const idle = await idleCpu(dir, env, home);
    row.idleCpu = idle;
    const each = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" ");
    say(
      `idle CPU per ${(idle.windowMs / 1000).toFixed(0)} s (${IDLE_SETTLE_MS / 1000} s after, mean of ${idle.skillhubWindows.length} windows):  skillhub ${ms(idle.skillhubMs)}   floor ${ms(idle.floorMs)}   ratio ${(idle.skillhubMs / idle.floorMs).toFixed(2)}   (by window: skillhub ${each(idle.skillhubWindows)}, floor ${each(idle.floorWindows)}; lowest ${ms(Math.min(...idle.skillhubWindows))} vs ${ms(Math.min(...idle.floorWindows))})`,
    );
  }
  if (size > 0) {
    const skillOnly = await measure([skillhub, "--skills-dir", dir, "--tools", "skill"], env, home, skillCall, false);
    row.skillProfile = skillOnly;
    say(
      `--tools skill (no search index): call p50 ${ms(skillOnly.callP50)}, peak RSS ${skillOnly.rssMb.toFixed(1)} MB (+${(skillOnly.rssMb - floorFigures.rssMb).toFixed(1)} MB over the floor)`,
    );
  }
  if (size > 0) {
    const fresh = await freshness(dir, env, home);
    row.freshness = fresh;
    say(
      `new skill loadable:              by folder name ${ms(fresh.byFolderMs)}, by a name only a rescan finds ${ms(fresh.byRescanMs)}, searchable ${ms(fresh.searchableMs)}`,
    );
  }
  if (size >= 10_000) {
    // Issue 16: worst call latency while the index is built from scratch and while it is saved (< 50 ms).
    // Each round's worst call is one call in thousands: the median of `runs` rounds, each listed.
    const latencies: LatencyFigures[] = [];
    for (let r = 0; r < runs; r++) latencies.push(await indexLatency(skillhub, dir, names));
    const latency = medianOf(latencies);
    row.indexLatency = latency;
    row.indexLatencyRounds = latencies;
    say(`index build and save:           ${formatLatency(latency)}`);
    say(
      `  worst call by round, build / save: ${latencies.map((f) => `${f.buildMaxMs.toFixed(1)} / ${f.saveMaxMs.toFixed(1)}`).join(", ")} ms`,
    );
    // One loop, as long as the median build: what the runtime's own pauses cost a closed loop here.
    const floorWorst = await floorWorstCall(floor, dir, names, latency.buildMs);
    row.floorWorstCall = floorWorst;
    say(
      `the floor, the same loop as long: max ${ms(floorWorst.maxMs)}, p99 ${ms(floorWorst.p99Ms)} (${floorWorst.calls} calls of its read tool)`,
    );
    const persisted = await persistedStart(dir, env, home);
    row.persistedStart = persisted;
    say(
      `spawn → first search_skills:     persisted index ${ms(persisted.persistedMs)}, --reindex ${ms(persisted.reindexMs)}, floor first call ${ms(persisted.floorFirstCallMs)}   ratio ${(persisted.persistedMs / persisted.floorFirstCallMs).toFixed(2)}`,
    );
  }
  if (size > 0) {
    const inProcess = await inProcessFigures(dir, queries);
    row.inProcess = inProcess;
    say(
      `first scan ${ms(inProcess.firstScanMs)}; unchanged timer rescan ${ms(inProcess.rescanCpuMs)} CPU (${ms(inProcess.rescanWallMs)} wall), full pass ${ms(inProcess.fullRescanCpuMs)} CPU; index build ${ms(inProcess.indexBuildMs)}`,
    );
    say(
      `index in process: ${inProcess.postings} postings; save ${ms(inProcess.indexSaveMs)}, load ${ms(inProcess.indexLoadMs)}, ${(inProcess.indexBytes / 1e6).toFixed(1)} MB; search p50 ${ms(inProcess.searchP50Ms)}`,
    );
  }
  (results.sizes as Record<string, unknown>)[size] = row;
}

if (!values["skip-http"]) {
  // bench/http.ts: search_skills over Streamable HTTP, 10 concurrent sessions on loopback, beside stdio above.
  const { benchHttp, formatHttpBench } = await import("./http.ts");
  say("\n== HTTP (Streamable HTTP, 10 concurrent clients, loopback, skills-example/)");
  const http = [await benchHttp({ bin: skillhub }), await benchHttp({ bin: skillhub, stateless: true })];
  for (const r of http) say(formatHttpBench(r));
  results.http = http;
}

if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2));
rmSync(work, { recursive: true, force: true });
