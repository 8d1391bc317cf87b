/**
 * Figures taken inside this process with SkillHub's own modules: the first
 * scan, the CPU an unchanged rescan costs (the 30 s timer's price), and the
 * full-text index build.
 */
import { Scanner } from "../../src/refresh/scanner.ts";
import { rank } from "../../src/search/engine.ts";
import { FullTextIndex, INDEX_READ_BYTES } from "../../src/search/fulltext.ts";
import { readPrefix } from "../../src/search/read-prefix.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";

export interface InProcessFigures {
  firstScanMs: number;
  /** The 30 s timer's rescan (a quick pass; see WalkLimits.quick). */
  rescanCpuMs: number;
  rescanWallMs: number;
  /** A full pass (every 10th timer rescan, and watcher/refresh scans when nothing changed). */
  fullRescanCpuMs: number;
  indexBuildMs: number;
  /** Body postings held (typed arrays, 6 bytes each). */
  bodyPostings: number;
  /** toJSON + JSON.stringify of the built index (what a save costs the event loop). */
  indexSaveMs: number;
  /** JSON.parse + FullTextIndex.fromJSON (what a persisted start costs). */
  indexLoadMs: number;
  indexBytes: number;
  /** search p50 in process over the eval queries. */
  searchP50Ms: number;
}

export async function inProcessFigures(dir: string, queries: readonly string[]): Promise<InProcessFigures> {
  const sources = [{ label: "dir1", dir, location: "explicit" as const }];
  const limits = { maxDepth: 8, maxDirs: 250_000 };
  const scanner = new Scanner();
  let started = performance.now();
  const catalog = scanner.scan(sources, limits);
  const firstScanMs = performance.now() - started;
  // Median of unchanged rescans, as the timer runs them (async, with ticks, quick passes).
  const measure = async (quick: boolean, times: number) => {
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < times; i++) {
      const before = process.cpuUsage();
      const t = performance.now();
      await scanner.scanAsync(sources, { ...limits, quick });
      wall.push(performance.now() - t);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    return { cpu, wall };
  };
  const full = await measure(false, 3);
  const { cpu, wall } = await measure(true, 5);
  started = performance.now();
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => skillBody(readPrefix(s.file, INDEX_READ_BYTES)));
  const indexBuildMs = performance.now() - started;
  started = performance.now();
  const text = JSON.stringify(index.toJSON());
  const indexSaveMs = performance.now() - started;
  started = performance.now();
  await FullTextIndex.fromJSON(JSON.parse(text), async () => {});
  const indexLoadMs = performance.now() - started;
  const times: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    rank(index, catalog, q, { limit: 10, threshold: 0.2 });
    times.push(performance.now() - t);
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return {
    firstScanMs,
    rescanCpuMs: mid(cpu),
    rescanWallMs: mid(wall),
    fullRescanCpuMs: mid(full.cpu),
    indexBuildMs,
    bodyPostings: index.bodyPostings,
    indexSaveMs,
    indexLoadMs,
    indexBytes: text.length,
    searchP50Ms: mid(times),
  };
}
