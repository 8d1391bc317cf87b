/**
 * Idle CPU side by side, in the same windows: SkillHub (one or more binaries, e.g. before and after a
 * change) and the floor, each started, listed and warmed up (searched until the index is complete), then left
 * alone with nothing changing. Prints each server's CPU per consecutive window (31 s by default, longer than
 * the 30 s rescan timer; 300 s covers a whole sweep of the timer's stat check) and where it went by thread
 * (main thread, GC helpers, JIT), from /proc in nanoseconds (lib/thread-cpu.ts), then the mean.
 * With --persisted, each SkillHub first runs once to build and save its search index, and the measured run
 * loads it (as in `make bench`, whose idle window follows earlier runs on the same home).
 * --settle: seconds between the warm-up and the first window (default 4; `make bench` waits 60, by which
 * Bun's collection timer has slowed down after start-up). A --bin may carry environment settings:
 * --bin "dist/skillhub SKILLHUB_RESCAN_SECONDS=0". --env K=V sets K for every server, the floor too: the
 * runtime's own settings, e.g. --env BUN_IDLE_GC_SECONDS=0 (Bun's full collections after 10 s, 2 min and
 * 10 min of quiet, "10,110,480" by default) to see what is left without them.
 * Usage: bun bench/idle-cpu.ts --corpus DIR [--bin dist/skillhub]... [--windows 2] [--window 31] [--settle 4]
 *        [--persisted] [--env K=V]...
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildFloor } from "./lib/floor.ts";
import { INITIALIZE, searchComplete, spawnServer } from "./lib/rpc.ts";
import { cpuOver } from "./lib/thread-cpu.ts";

const { values } = parseArgs({
  options: {
    corpus: { type: "string" },
    bin: { type: "string", multiple: true },
    windows: { type: "string", default: "2" },
    window: { type: "string", default: "31" },
    settle: { type: "string", default: "4" },
    persisted: { type: "boolean" },
    env: { type: "string", multiple: true },
  },
});
if (!values.corpus) throw new Error("bench: give --corpus DIR (a folder of skill folders)");
const bins = values.bin?.length ? values.bin : [join(resolve(import.meta.dir, ".."), "dist", "skillhub")];
const work = mkdtempSync(join(tmpdir(), "skillhub-idle-"));
const floor = await buildFloor(work);

/** `K=V` settings as an environment. */
const settingsEnv = (settings: string[]) =>
  Object.fromEntries(settings.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
const everyServer = { PATH: process.env.PATH ?? "", ...settingsEnv(values.env ?? []) };

/** A --bin is a path, optionally followed by environment settings: "dist/skillhub SKILLHUB_RESCAN_SECONDS=0". */
const start = (spec: string, i: number) => {
  const [bin, ...settings] = spec.split(" ").filter(Boolean);
  const home = join(work, `home-${i}`);
  mkdirSync(home, { recursive: true });
  const env = {
    ...everyServer,
    HOME: home,
    SKILLHUB_HOME: join(home, ".skillhub"),
    LOG_LEVEL: "ERROR",
    ...settingsEnv(settings),
  };
  return spawnServer([bin as string, "--skills-dir", values.corpus as string], { env, cwd: home });
};
if (values.persisted) {
  for (const [i, bin] of bins.entries()) {
    const s = start(bin, i);
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await searchComplete(s, "build the index");
    await Bun.sleep(4000); // the save comes 2 s after the build
    await s.close();
  }
}
const servers = [
  ...bins.map((bin, i) => ({ label: bin, s: start(bin, i) })),
  { label: "floor", s: spawnServer([floor], { env: everyServer, cwd: work }) },
];
for (const { s, label } of servers) {
  await s.request("initialize", INITIALIZE);
  s.notify("notifications/initialized");
  await s.request("tools/list");
  if (label !== "floor") await searchComplete(s, "warm up");
}
await Bun.sleep(Number(values.settle) * 1000);
const windowMs = Number(values.window) * 1000;
const totals = servers.map(() => [] as number[]);
for (let w = 1; w <= Number(values.windows); w++) {
  const used = await cpuOver(
    servers.map(({ s }) => s.proc.pid),
    windowMs,
  );
  servers.forEach(({ label }, i) => {
    const { ms, threads } = used[i] as (typeof used)[number];
    totals[i]?.push(ms);
    const parts = Object.entries(threads).map(([k, v]) => `${k} ${v.toFixed(1)}`);
    process.stdout.write(`window ${w} ${label}: ${ms.toFixed(1)} ms CPU (${parts.join(", ") || "nothing"})\n`);
  });
}
servers.forEach(({ label }, i) => {
  const all = totals[i] as number[];
  const mean = all.reduce((a, b) => a + b, 0) / all.length;
  process.stdout.write(`mean over ${all.length} windows of ${values.window} s, ${label}: ${mean.toFixed(1)} ms CPU\n`);
});
for (const { s } of servers) await s.close();
rmSync(work, { recursive: true, force: true });
