/**
 * `make bench-rescan`: what the 30 s stat check costs, and how soon a change no watch reported is
 * served, at 10,000 and 50,000 real-shaped skills (bench/lib/skills.ts), in process with the server's
 * own Scanner and watches. Beside a floor measured in the same run: a bare stat of every folder and
 * SKILL.md of the collection (the least any check by stat can cost).
 *
 * - watch set-up: the CPU of setting up the server's watches (one on the source folder, covering every
 *   folder below it), the inotify watches that takes, and how soon a watch reports an edit in a skill;
 * - unchanged check: the CPU of one timer check that finds nothing (what every idle interval pays),
 *   with the watches (only what no watch covers is statted) and without (`--no-watch`: everything);
 * - an edit inside a skill, a skill removed: the check that finds it plus the scan that follows, i.e.
 *   how long after the interval's tick a change no watch reported is served (one interval plus one scan).
 *
 * Usage: bun bench/rescan.ts [--sizes 10000,50000] [--runs 5]
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Scanner } from "../src/catalog/scanner.ts";
import { FolderWatchers } from "../src/refresh/folder-watchers.ts";
import type { Source } from "../src/sources/source-list.ts";
import { createMemoryLogger } from "../src/util/logger.ts";
import { median } from "./lib/rpc.ts";
import { generateCorpus } from "./lib/skills.ts";

const { values } = parseArgs({
  options: { sizes: { type: "string", default: "10000,50000" }, runs: { type: "string", default: "5" } },
});
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const say = (text = "") => process.stdout.write(`${text}\n`);
const ms = (n: number) => `${n.toLocaleString("en-US", { maximumFractionDigits: n < 10 ? 1 : 0 })} ms`;
const LIMITS = { maxDepth: 8, maxDirs: 250_000 };
/** The interval's own pause between steps, as the server's check yields to calls (here: none waiting). */
const tick = () => Promise.resolve();

/** CPU (user + system) and wall time of `work`, in ms. */
async function timed<T>(work: () => Promise<T> | T): Promise<{ cpu: number; wall: number; value: T }> {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const value = await work();
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / 1000, wall: performance.now() - wall0, value };
}

/** Every folder of the collection down to each skill's own folder, and each SKILL.md: what the floor stats. */
function statTargets(root: string): string[] {
  const paths = [root];
  for (const name of readdirSync(root)) paths.push(join(root, name), join(root, name, "SKILL.md"));
  return paths;
}

/** The inotify watches this process holds (Linux), from /proc. */
function watchesHeld(): number {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fdinfo")) {
    try {
      n += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").match(/^inotify wd:/gm)?.length ?? 0;
    } catch {}
  }
  return n;
}

const work = mkdtempSync(join(tmpdir(), "skillhub-bench-rescan-"));
try {
  say(
    "| skills | folders / files | first scan | watch set-up CPU (watches held) | edit reported by the watch | unchanged check with watches | unchanged check, --no-watch: CPU (wall) | floor: stat each skill folder and SKILL.md | edit inside a skill, no watch: check + scan | skill removed: check + scan |",
  );
  say("|---|---|---|---|---|---|---|---|---|---|");
  for (const size of sizes) {
    const dir = join(work, `skills-${size}`);
    const made = generateCorpus(dir, size);
    const sources: Source[] = [{ label: "bench", dir, location: "explicit" }];
    const scanner = new Scanner();
    const first = await timed(() => scanner.scanAsync(sources, { ...LIMITS, tick }));
    if (first.value.skills.length !== size) throw new Error(`scanned ${first.value.skills.length} of ${size} skills`);
    const targets = statTargets(dir);
    let reported = () => {};
    const watchers = new FolderWatchers({
      logger: createMemoryLogger("SILENT"),
      rescanSeconds: 30,
      changed: () => reported(),
    });
    const setUp = await timed(() => watchers.sync({ ...scanner.watchRoots(Number.POSITIVE_INFINITY), inputs: [] }));
    const held = watchesHeld();
    const covers = watchers.covers;
    if (!covers) throw new Error("bench: watches cover an edit inside a skill on Linux only");
    const watchedCheck: number[] = [];
    const firstWatchedCheck: number[] = [];
    const reports: number[] = [];
    const unchanged = { cpu: [] as number[], wall: [] as number[] };
    const floor: number[] = [];
    const edited: number[] = [];
    const removed: number[] = [];
    for (let r = 0; r < runs; r++) {
      // The first check after a scan finds what the watches cover; the next ones (an idle server's) reuse it.
      const afterScan = await timed(() => scanner.verify(sources, tick, covers));
      const watched = await timed(() => scanner.verify(sources, tick, covers));
      if (afterScan.value !== "unchanged" || watched.value !== "unchanged")
        throw new Error(`an unchanged collection checked as ${watched.value}`);
      firstWatchedCheck.push(afterScan.cpu);
      watchedCheck.push(watched.cpu);
      const check = await timed(() => scanner.verify(sources, tick));
      if (check.value !== "unchanged") throw new Error(`an unchanged collection checked as ${check.value}`);
      unchanged.cpu.push(check.cpu);
      unchanged.wall.push(check.wall);
      floor.push(
        (
          await timed(() => {
            for (const p of targets) statSync(p, { throwIfNoEntry: false });
          })
        ).cpu,
      );
      // An edit inside a skill: how soon the watch reports it, then the check that finds it without a watch.
      const skill = made.names[(r * 7919) % made.names.length] as string;
      const report = new Promise<void>((resolve) => (reported = resolve));
      const edit = performance.now();
      appendFileSync(join(dir, skill, "SKILL.md"), `\nEdited in round ${r}.\n`);
      await report;
      reports.push(performance.now() - edit);
      reported = () => {};
      edited.push((await timed(() => found(scanner, sources))).wall);
      rmSync(join(dir, made.names[(r * 7919 + 1) % made.names.length] as string), { recursive: true, force: true });
      removed.push((await timed(() => found(scanner, sources))).wall);
    }
    say(
      `| ${size.toLocaleString("en-US")} | ${made.folders.toLocaleString("en-US")} / ${made.files.toLocaleString("en-US")} | ${ms(first.wall)} | ${ms(setUp.cpu)} (${held.toLocaleString("en-US")}) | ${ms(median(reports))} | ${ms(median(watchedCheck))} (first after a scan: ${ms(median(firstWatchedCheck))}) | ${ms(median(unchanged.cpu))} (${ms(median(unchanged.wall))}) | ${ms(median(floor))} | ${ms(median(edited))} | ${ms(median(removed))} |`,
    );
    watchers.close();
    rmSync(dir, { recursive: true, force: true });
  }
  say(
    `\nMedians of ${runs} rounds; in process, no call waiting. A change a watch reports is rescanned after the debounce (500 ms); one no watch reports is served one interval (30 s) plus the check and scan at most.`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The stat check that must find a change, then the scan it calls for (Refresher.check). */
async function found(scanner: Scanner, sources: Source[]): Promise<void> {
  const verdict = await scanner.verify(sources, tick);
  if (verdict !== "changed") throw new Error(`a change checked as ${verdict}`);
  await scanner.scanAsync(sources, { ...LIMITS, tick });
  if ((await scanner.verify(sources, tick)) !== "unchanged") throw new Error("the scan left the check unsatisfied");
}
