/**
 * Figures taken inside this process with SkillHub's own modules: the first
 * scan, the CPU an unchanged rescan costs (the 30 s timer's price), and the
 * full-text index build.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import { Scanner } from "../../src/catalog/scanner.ts";
import { streamSkillBody } from "../../src/catalog/skill-text.ts";
import { rank } from "../../src/search/engine.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { decodeIndexFile, encodeIndexFile } from "../../src/search/index-file.ts";

export interface InProcessFigures {
  firstScanMs: number;
  /** The 30 s timer's check of an unchanged tree: every folder and skill file the last scan saw, statted. */
  rescanCpuMs: number;
  rescanWallMs: number;
  /** A full walk (watcher events, refresh_skills, a timer tick that found a change). */
  fullRescanCpuMs: number;
  indexBuildMs: number;
  /** Postings held in every field (typed arrays, 3 bytes each). */
  postings: number;
  /** Freezing and encoding the built index (what a save costs the event loop; the write is asynchronous). */
  indexSaveMs: number;
  /** Reading the saved file and decoding it into a FullTextIndex (what a persisted start costs). */
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
  // Median of unchanged rescans, as they run in the server (async, with ticks): full walks, and the timer's
  // stat check of the last walk.
  const measure = async (pass: "full" | "timer", times: number) => {
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < times; i++) {
      const before = process.cpuUsage();
      const t = performance.now();
      if (pass === "full") await scanner.scanAsync(sources, limits);
      else if ((await scanner.verify(sources)) !== "unchanged")
        throw new Error("bench: the unchanged tree did not verify as unchanged");
      wall.push(performance.now() - t);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    return { cpu, wall };
  };
  const full = await measure("full", 3);
  const { cpu, wall } = await measure("timer", 5);
  started = performance.now();
  const index = FullTextIndex.empty();
  // The service's own read: confined, in bounded chunks.
  index.sync(catalog.skills, (s, sink) => {
    streamSkillBody(s, sink);
  });
  const indexBuildMs = performance.now() - started;
  started = performance.now();
  const pieces = encodeIndexFile({ schema: 0, fingerprint: "", savedAt: "" }, index.snapshot());
  const indexSaveMs = performance.now() - started;
  const file = `${dir}.index.bin`;
  await Bun.write(file, new Blob(pieces));
  started = performance.now();
  FullTextIndex.fromParts(decodeIndexFile(readFileSync(file)));
  const indexLoadMs = performance.now() - started;
  const indexBytes = statSync(file).size;
  rmSync(file);
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
    postings: index.postings,
    indexSaveMs,
    indexLoadMs,
    indexBytes,
    searchP50Ms: mid(times),
  };
}
