import type { ParseResult } from "../skills/agent-skill.ts";
import { noteScannedRoot } from "../skills/skill-read.ts";
import { assembleTree, fsProbe, type TreeFile, type TreeProbe } from "../skills/tree-assemble.ts";
import type { TreeParse } from "../skills/tree-node.ts";
import { linksConfined, type Source } from "../sources/source-list.ts";
import { type FileStamp, fileStamp, sameFile } from "../sources/stamp.ts";
import { type FileEntry, type SkillDirEntry, Walker, type WalkLimits, type WalkResult } from "../sources/walk.ts";
import type { Covers, WalkRecord } from "../sources/walk-record.ts";
import { type Diagnostic, NO_DIAGNOSTICS } from "../util/diagnostic.ts";
import { nextTurn } from "../util/next-turn.ts";
import { Catalog, type SourceScan } from "./catalog.ts";
import { PARSE_AHEAD_MIN, parseAhead } from "./parse-ahead.ts";
import { ParseCache } from "./parse-cache.ts";
import { parseSkillEntry, parseTreeEntry, projectBudget, walkLimits } from "./scan-read.ts";
import { ScanRecords, sameSources, type Verdict, type WatchPlan } from "./scan-records.ts";

interface CachedTreeParse extends FileStamp {
  parse: TreeParse;
}

export interface ScanOptions extends WalkLimits {
  /** Pause to let the event loop run (async scans). */
  tick?: () => Promise<void>;
}

export type { Verdict } from "./scan-records.ts";

/** What a scanner that parses in a worker tells its owner. */
export interface WorkerReport {
  failed(error: Error): void;
  parsed?(files: number, ms: number): void;
}

/**
 * Turns source folders into a Catalog. Parses a file only when its mtime or
 * size changed since the last scan, so a rescan of an unchanged tree is a
 * walk of stats.
 */
export class Scanner {
  private parses = new ParseCache();
  /** Parses of loose `.md` files (candidate tree nodes), by file; pruned to the files walked in each scan. */
  private treeParses = new Map<string, CachedTreeParse>();
  private treeFilesSeen = new Set<string>();
  private generation = 0;
  /** Set during a scan when anything differs from the previous one. */
  private dirty = true;
  private last?: { catalog: Catalog; sources: readonly Source[]; skills: number; diagnostics: number };
  /** What the last scan's walks looked at, per source (for verify). */
  private records: ScanRecords | undefined;
  /** Set during a scan when a file could not be read (not cached, so a stat cannot vouch for it). */
  private unreadable = false;
  private readonly walker: Walker;
  /** Set by parseInWorker: async scans parse many new files in a worker, and say how it went. */
  private workerReport?: WorkerReport;
  private notes: readonly Diagnostic[] = NO_DIAGNOSTICS;

  /** `readText` replaces the compact reader for tests that fake file-system failures. */
  constructor(
    walker: Walker = new Walker(),
    private readonly readText?: (file: string) => string,
    private readonly treeProbe: TreeProbe = fsProbe,
  ) {
    this.walker = walker;
  }

  /**
   * Let async scans parse their new SKILL.md files in a worker when there are at least PARSE_AHEAD_MIN
   * (a first scan): the server keeps the parses, not the reading's garbage. When the worker fails, the
   * scan parses in place and `report.failed` hears why.
   */
  parseInWorker(report: WorkerReport): this {
    this.workerReport = report;
    return this;
  }

  /**
   * Before the first scan: take the last run's catalog (the stdio server's snapshot, written by this
   * same version) as the parses of its Agent Skills, so that the scan reads only the SKILL.md files
   * changed since (mtime or size) instead of all of them. Returns how many were taken.
   */
  seed(catalog: Catalog): number {
    return this.last ? 0 : this.parses.seed(catalog);
  }

  /** A folder's entries as the last walk listed it, while its stamp holds (Walker.knownEntries). */
  knownEntries(dir: string): ReturnType<Walker["knownEntries"]> {
    return this.walker.knownEntries(dir);
  }

  /**
   * Diagnostics of no file a scan reads (a project's skillhub.yaml that cannot be used), kept in every
   * catalog this scanner makes. Returns this.
   */
  withNotes(notes: readonly Diagnostic[]): this {
    this.notes = notes;
    return this;
  }

  /** Scan synchronously (CLI commands, tests). */
  scan(sources: readonly Source[], limits: WalkLimits): Catalog {
    this.beginPass(sources);
    const project = projectBudget(limits);
    const walks = sources.map((source) => this.walker.walk(source.dir, walkLimits(limits, source, project)));
    const scans = sources.map((source, i) => this.collect(source, walks[i] as WalkResult));
    return this.finish(sources, scans, walks);
  }

  /** Scan, pausing every few hundred folders and files so requests keep being answered. */
  async scanAsync(sources: readonly Source[], options: ScanOptions): Promise<Catalog> {
    const tick = options.tick ?? nextTurn;
    this.beginPass(sources);
    const scans: SourceScan[] = [];
    const walks: WalkResult[] = [];
    const project = projectBudget(options);
    for (const source of sources) {
      const steps = this.walker.steps(source.dir, walkLimits(options, source, project));
      let step = steps.next();
      while (!step.done) {
        await tick();
        step = steps.next();
      }
      walks.push(step.value);
      await this.parseAhead(source, step.value.skills);
      scans.push(await this.collectAsync(source, step.value, tick));
    }
    return this.finish(sources, scans, walks);
  }

  /**
   * Whether the last scan still holds, by stat only (ScanRecords.verify), pausing with `tick`. Reads no
   * file and builds nothing. With `covers`, what a working watch covers is left to that watch.
   */
  verify(sources: readonly Source[], tick: () => Promise<void> = nextTurn, covers?: Covers): Promise<Verdict> {
    const verify = (record: WalkRecord) =>
      covers ? this.walker.verifyUnwatched(record, covers) : this.walker.verify(record);
    return this.records?.verify(sources, verify, tick) ?? Promise.resolve("unknown");
  }

  /** Where the last scan's sources are watched, and which are left to the stat check (ScanRecords.watchRoots). */
  watchRoots(maxFolders: number): WatchPlan {
    return this.records?.watchRoots(maxFolders) ?? { roots: [], mounts: [], unwatched: [], absent: [] };
  }

  private beginPass(sources: readonly Source[]): void {
    this.dirty = false;
    this.unreadable = false;
    // What a repository's or plugin's folder resolves to now, which its skills' reads are held to.
    for (const source of sources) if (linksConfined(source)) noteScannedRoot(source.dir);
  }

  private finish(sources: readonly Source[], scans: SourceScan[], walks: WalkResult[]): Catalog {
    this.walker.endRescan();
    this.records = new ScanRecords(
      [...sources],
      walks.map((w) => w.record),
      !this.unreadable && walks.every((w) => w.record.verifiable),
    );
    const skills = scans.reduce((n, s) => n + s.skills.length, 0);
    const diagnostics = scans.reduce((n, s) => n + s.diagnostics.length, 0);
    const last = this.last;
    // Nothing changed on disk: keep the catalog (and everything keyed on it) as it is.
    if (
      !this.dirty &&
      last &&
      last.skills === skills &&
      last.diagnostics === diagnostics &&
      sameSources(last.sources, sources)
    ) {
      return last.catalog;
    }
    for (const file of this.treeParses.keys()) if (!this.treeFilesSeen.has(file)) this.treeParses.delete(file);
    this.treeFilesSeen = new Set();
    const catalog = new Catalog(scans, ++this.generation, this.notes);
    this.parses.settle(catalog, scans);
    this.last = { catalog, sources: [...sources], skills, diagnostics };
    return catalog;
  }

  private collect(source: Source, walk: WalkResult): SourceScan {
    if (walk.reread > 0) this.dirty = true;
    const scan = this.emptyScan(source, walk);
    for (const entry of walk.skills) this.addSkill(scan, source, entry);
    this.addTree(
      scan,
      source,
      walk.markdown.map((entry) => this.treeFile(entry, source)),
    );
    return scan;
  }

  private async collectAsync(source: Source, walk: WalkResult, tick: () => Promise<void>): Promise<SourceScan> {
    if (walk.reread > 0) this.dirty = true;
    const scan = this.emptyScan(source, walk);
    let n = 0;
    for (const entry of walk.skills) {
      this.addSkill(scan, source, entry);
      if (++n % 200 === 0) await tick();
    }
    const files: TreeFile[] = [];
    for (const entry of walk.markdown) {
      files.push(this.treeFile(entry, source));
      if (++n % 200 === 0) await tick();
    }
    this.addTree(scan, source, files);
    return scan;
  }

  private emptyScan(source: Source, walk: WalkResult): SourceScan {
    return {
      source,
      exists: walk.exists,
      dirCount: walk.dirCount,
      skills: [],
      diagnostics: walk.diagnostics.map((d) => ({ ...d, source: source.label })),
    };
  }

  private addSkill(scan: SourceScan, source: Source, entry: SkillDirEntry): void {
    const result = this.parse(entry, source);
    for (const d of result.diagnostics) scan.diagnostics.push({ ...d, source: source.label });
    if (result.skill) scan.skills.push(this.parses.skill(entry, source, result.skill));
  }

  /** Tree nodes of one source, after its Agent Skills; parents and resource folders are resolved on every scan. */
  private addTree(scan: SourceScan, source: Source, files: TreeFile[]): void {
    if (files.length === 0) return;
    const { nodes, diagnostics } = assembleTree(source.dir, files, this.treeProbe);
    for (const d of diagnostics) scan.diagnostics.push({ ...d, source: source.label });
    for (const node of nodes)
      scan.skills.push({
        ...node,
        id: `${source.qualifier ?? source.label}:${node.name}`,
        source: source.label,
        location: source.location,
        root: source.dir,
      });
  }

  private treeFile(entry: FileEntry, source: Source): TreeFile {
    this.treeFilesSeen.add(entry.file);
    const cached = this.treeParses.get(entry.file);
    if (cached && sameFile(cached, entry)) return { ...entry, parse: cached.parse };
    this.dirty = true;
    const { parse, cache } = parseTreeEntry(entry, source, this.readText);
    // Not cached when unreadable for a reason a stat does not show (a permission error can be fixed
    // without touching the file).
    if (cache) this.treeParses.set(entry.file, { ...fileStamp(entry), parse });
    else this.unreadable = true;
    return { ...entry, parse };
  }

  /** Parse the entries the cache cannot answer in a worker (see parseInWorker); the scan then finds them cached. */
  private async parseAhead(source: Source, entries: readonly SkillDirEntry[]): Promise<void> {
    const report = this.workerReport;
    if (!report || this.readText) return;
    const fresh = entries.filter((entry) => !this.parses.get(entry));
    if (fresh.length < PARSE_AHEAD_MIN) return;
    const started = performance.now();
    try {
      await parseAhead(fresh, source, (entry, result) => this.remember(entry, result));
      report.parsed?.(fresh.length, performance.now() - started);
    } catch (error) {
      report.failed(error as Error);
    }
  }

  private parse(entry: SkillDirEntry, source: Source): ParseResult {
    return this.parses.get(entry) ?? this.remember(entry, parseSkillEntry(entry, source, this.readText));
  }

  /** A new parse: the scan differs; an unreadable file (not cached) leaves it unverifiable. */
  private remember(entry: SkillDirEntry, result: ParseResult): ParseResult {
    this.dirty = true;
    if (!this.parses.remember(entry, result)) this.unreadable = true;
    return result;
  }
}
