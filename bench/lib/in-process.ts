/**
 * Figures taken inside this process with SkillHub's own modules: the first
 * scan, the CPU an unchanged rescan costs (the 30 s timer's price), and the
 * full-text index build.
 */
import { readFileSync } from "node:fs";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";

export interface InProcessFigures {
  firstScanMs: number;
  /** The 30 s timer's rescan (a quick pass; see WalkLimits.quick). */
  rescanCpuMs: number;
  rescanWallMs: number;
  /** A full pass (every 10th timer rescan, and watcher/refresh scans when nothing changed). */
  fullRescanCpuMs: number;
  indexBuildMs: number;
}

export async function inProcessFigures(dir: string): Promise<InProcessFigures> {
  const sources = [{ label: "dir1", dir, location: "explicit" as const }];
  const limits = { maxDepth: 8, maxDirs: 20_000 };
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
  FullTextIndex.empty().sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
  const indexBuildMs = performance.now() - started;
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return { firstScanMs, rescanCpuMs: mid(cpu), rescanWallMs: mid(wall), fullRescanCpuMs: mid(full.cpu), indexBuildMs };
}
