/**
 * Figures taken inside this process with SkillHub's own modules: the first
 * scan, the CPU an unchanged rescan costs (the 30 s timer's price), and the
 * full-text index build.
 */
import { readFileSync } from "node:fs";
import { Scanner } from "../../src/refresh/scanner.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";

export interface InProcessFigures {
  firstScanMs: number;
  rescanCpuMs: number;
  rescanWallMs: number;
  indexBuildMs: number;
}

export async function inProcessFigures(dir: string): Promise<InProcessFigures> {
  const sources = [{ label: "dir1", dir, location: "explicit" as const }];
  const limits = { maxDepth: 8, maxDirs: 20_000 };
  const scanner = new Scanner();
  let started = performance.now();
  const catalog = scanner.scan(sources, limits);
  const firstScanMs = performance.now() - started;
  // Median of five unchanged rescans, as the timer runs them (async, with ticks).
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < 5; i++) {
    const before = process.cpuUsage();
    started = performance.now();
    await scanner.scanAsync(sources, limits);
    wall.push(performance.now() - started);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  started = performance.now();
  FullTextIndex.empty().sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
  const indexBuildMs = performance.now() - started;
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return { firstScanMs, rescanCpuMs: mid(cpu), rescanWallMs: mid(wall), indexBuildMs };
}
