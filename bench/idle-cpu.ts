/**
 * Idle CPU side by side, in the same windows: SkillHub (one or more binaries, e.g. before and after a
 * change) and the floor, each started, listed and warmed up (search_skills waits for the index), then left
 * alone with nothing changing. Prints each server's CPU per consecutive 31 s window (longer than the 30 s
 * rescan timer) and where it went by thread (main thread, GC helpers, JIT), from /proc.
 * With --persisted, each SkillHub first runs once to build and save its search index, and the measured run
 * loads it (as in `make bench`, whose idle window follows earlier runs on the same home).
 * Usage: bun bench/idle-cpu.ts --corpus DIR [--bin dist/skillhub]... [--windows 2] [--persisted]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile } from "../scripts/build.ts";
import { INITIALIZE, spawnServer } from "./lib/rpc.ts";

const { values } = parseArgs({
  options: {
    corpus: { type: "string" },
    bin: { type: "string", multiple: true },
    windows: { type: "string", default: "2" },
    persisted: { type: "boolean" },
  },
});
if (!values.corpus) throw new Error("bench: give --corpus DIR (a folder of skill folders)");
const bins = values.bin?.length ? values.bin : [join(resolve(import.meta.dir, ".."), "dist", "skillhub")];
const work = mkdtempSync(join(tmpdir(), "skillhub-idle-"));
const floor = join(work, "floor");
if ((await compile({ entry: "bench/floor/server.ts", outfile: floor }, true)) !== 0)
  throw new Error("floor build failed");

/** CPU ms per thread name (threads of one name summed), from /proc/PID/task. */
function threads(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const key = tid === String(pid) ? "main" : name;
      out[key] = (out[key] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

const start = (bin: string, i: number) => {
  const home = join(work, `home-${i}`);
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? "", HOME: home, SKILLHUB_HOME: join(home, ".skillhub"), LOG_LEVEL: "ERROR" };
  return spawnServer([bin, "--skills-dir", values.corpus as string], { env, cwd: home });
};
if (values.persisted) {
  for (const [i, bin] of bins.entries()) {
    const s = start(bin, i);
    await s.request("initialize", INITIALIZE);
    s.notify("notifications/initialized");
    await s.request("tools/call", { name: "search_skills", arguments: { query: "build the index" } });
    await Bun.sleep(4000); // the save comes 2 s after the build
    await s.close();
  }
}
const servers = [
  ...bins.map((bin, i) => ({ label: bin, s: start(bin, i) })),
  { label: "floor", s: spawnServer([floor], { env: { PATH: process.env.PATH ?? "" }, cwd: work }) },
];
for (const { s, label } of servers) {
  await s.request("initialize", INITIALIZE);
  s.notify("notifications/initialized");
  await s.request("tools/list");
  if (label !== "floor") await s.request("tools/call", { name: "search_skills", arguments: { query: "warm up" } });
}
await Bun.sleep(4000);
for (let w = 1; w <= Number(values.windows); w++) {
  const before = servers.map(({ s }) => threads(s.proc.pid));
  await Bun.sleep(31_000);
  servers.forEach(({ s, label }, i) => {
    const now = threads(s.proc.pid);
    const used = Object.entries(now)
      .map(([k, v]) => [k, v - ((before[i] as Record<string, number>)[k] ?? 0)] as const)
      .filter(([, v]) => v > 0);
    const total = used.reduce((n, [, v]) => n + v, 0);
    process.stdout.write(
      `window ${w} ${label}: ${total} ms CPU (${used.map(([k, v]) => `${k} ${v}`).join(", ") || "nothing"})\n`,
    );
  });
}
for (const { s } of servers) await s.close();
rmSync(work, { recursive: true, force: true });
