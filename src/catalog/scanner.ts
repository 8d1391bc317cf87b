import { type ParseResult, parseAgentSkill } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
import { readSkillSource, readSkillSourceBytes } from "../skills/skill-read.ts";
import { assembleTree, fsProbe, type TreeFile, type TreeProbe } from "../skills/tree-assemble.ts";
import { parseTreeNode, type TreeParse } from "../skills/tree-node.ts";
import type { Source } from "../sources/source-list.ts";
import { type FileEntry, type SkillDirEntry, Walker, type WalkLimits, type WalkResult } from "../sources/walk.ts";
import { MAX_INSTRUCTIONS_BYTES } from "../util/confined-read.ts";
import { diagnostic } from "../util/diagnostic.ts";
import { Catalog, type SourceScan } from "./catalog.ts";
import { readInjected, tooLarge, unreadable, walkLimits } from "./scan-read.ts";
import { digestBytes } from "./skill-digest.ts";

/** A SKILL.md larger than this is not parsed (it would flood any context it is loaded into). */
export const MAX_SKILL_FILE_BYTES = MAX_INSTRUCTIONS_BYTES;

interface CachedParse {
  mtimeMs: number;
  size: number;
  result: ParseResult;
  /** The catalog Skill built from it last time, and for which source: reused while both hold. */
  skill?: Skill;
  source?: Source;
}

/** Every Nth timer rescan is a full pass (see WalkLimits.quick); the others trust leaf skill folders. */
export const FULL_PASS_EVERY = 10;

interface CachedTreeParse {
  mtimeMs: number;
  size: number;
  parse: TreeParse;
}

export interface ScanOptions extends WalkLimits {
  /** Pause to let the event loop run (async scans). */
  tick?: () => Promise<void>;
}

/**
 * Turns source folders into a Catalog. Parses a file only when its mtime or
 * size changed since the last scan, so a rescan of an unchanged tree is a
 * walk of stats.
 */
export class Scanner {
  private parses = new Map<string, CachedParse>();
  /** Parses of loose `.md` files (candidate tree nodes), by file; pruned to the files walked in each scan. */
  private treeParses = new Map<string, CachedTreeParse>();
  private treeFilesSeen = new Set<string>();
  private generation = 0;
  private passes = 0;
  /** Set during a scan when anything differs from the previous one. */
  private dirty = true;
  private last?: { catalog: Catalog; sources: readonly Source[]; skills: number; diagnostics: number };
  private readonly walker: Walker;

  /** `readText` replaces the compact reader for tests that fake file-system failures. */
  constructor(
    walker: Walker = new Walker(),
    private readonly readText?: (file: string) => string,
    private readonly treeProbe: TreeProbe = fsProbe,
  ) {
    this.walker = walker;
  }

  /** Scan synchronously (CLI commands, tests). */
  scan(sources: readonly Source[], limits: WalkLimits): Catalog {
    const pass = this.beginPass(limits);
    const scans = sources.map((source) => this.collect(source, this.walker.walk(source.dir, walkLimits(pass, source))));
    return this.finish(sources, scans);
  }

  /** Scan, pausing every few hundred folders and files so requests keep being answered. */
  async scanAsync(sources: readonly Source[], options: ScanOptions): Promise<Catalog> {
    const tick = options.tick ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
    const pass = this.beginPass(options);
    const scans: SourceScan[] = [];
    for (const source of sources) {
      const steps = this.walker.steps(source.dir, walkLimits(pass, source));
      let step = steps.next();
      while (!step.done) {
        await tick();
        step = steps.next();
      }
      scans.push(await this.collectAsync(source, step.value, tick));
    }
    return this.finish(sources, scans);
  }

  /** A quick pass only when asked (the rescan timer), and even then a full one every FULL_PASS_EVERY-th time. */
  private beginPass(limits: WalkLimits): WalkLimits {
    this.dirty = false;
    const quick = limits.quick === true && ++this.passes % FULL_PASS_EVERY !== 0;
    return { ...limits, quick };
  }

  private finish(sources: readonly Source[], scans: SourceScan[]): Catalog {
    this.walker.endRescan();
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
    const seen = new Set<string>();
    for (const scan of scans) for (const s of scan.skills) seen.add(s.file);
    for (const file of this.parses.keys()) if (!seen.has(file)) this.dropIfGone(file, scans);
    for (const file of this.treeParses.keys()) if (!this.treeFilesSeen.has(file)) this.treeParses.delete(file);
    this.treeFilesSeen = new Set();
    const catalog = new Catalog(scans, ++this.generation);
    this.last = { catalog, sources: [...sources], skills, diagnostics };
    return catalog;
  }

  private dropIfGone(file: string, scans: SourceScan[]): void {
    // Keep cached parses of skipped (diagnostic-only) files that are still walked.
    for (const scan of scans) for (const d of scan.diagnostics) if (d.file === file) return;
    this.parses.delete(file);
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
    if (!result.skill) return;
    const cached = this.parses.get(entry.file);
    if (cached?.skill && cached.source && sameSource(cached.source, source)) {
      scan.skills.push(cached.skill);
      return;
    }
    const skill: Skill = {
      ...result.skill,
      id: `${source.qualifier ?? source.label}:${result.skill.name}`,
      source: source.label,
      location: source.location,
      root: source.dir,
    };
    if (cached) {
      cached.skill = skill;
      cached.source = source;
    }
    scan.skills.push(skill);
  }

  /** Tree nodes of one source (seed 003 §4), after its Agent Skills; parents and resource folders are resolved on every scan. */
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
    if (cached && cached.mtimeMs === entry.mtimeMs && cached.size === entry.size)
      return { ...entry, parse: cached.parse };
    this.dirty = true;
    let parse: TreeParse;
    if (entry.size > MAX_SKILL_FILE_BYTES) {
      parse = {
        kind: "other",
        diagnostics: [
          diagnostic(
            "file-too-large",
            "warning",
            entry.file,
            `${entry.size} bytes; Markdown files over ${MAX_SKILL_FILE_BYTES} bytes are not read as tree nodes.`,
          ),
        ],
      };
    } else {
      const read = this.readText
        ? readInjected(this.readText, entry.file)
        : readSkillSource({
            kind: "tree-node",
            dir: entry.file,
            file: entry.file,
            root: source.dir,
            location: source.location,
          });
      if (!read.ok) {
        // Not cached: a permission error can be fixed without touching mtime.
        return {
          ...entry,
          parse: { kind: "other", diagnostics: [unreadable(entry.file, read, "warning", "skipped")] },
        };
      }
      parse = parseTreeNode(entry.file, read.text);
    }
    this.treeParses.set(entry.file, { mtimeMs: entry.mtimeMs, size: entry.size, parse });
    return { ...entry, parse };
  }

  private parse(entry: SkillDirEntry, source: Source): ParseResult {
    const cached = this.parses.get(entry.file);
    if (cached && cached.mtimeMs === entry.mtimeMs && cached.size === entry.size) return cached.result;
    this.dirty = true;
    const result = this.parseFresh(entry, source);
    // A permission error can be fixed without touching mtime: do not remember it.
    if (!result.diagnostics.some((d) => d.code === "unreadable")) {
      this.parses.set(entry.file, { mtimeMs: entry.mtimeMs, size: entry.size, result });
    }
    return result;
  }

  private parseFresh(entry: SkillDirEntry, source: Source): ParseResult {
    if (entry.size > MAX_SKILL_FILE_BYTES) {
      return {
        diagnostics: [
          diagnostic(
            "file-too-large",
            "error",
            entry.file,
            `SKILL.md is ${entry.size} bytes; the limit is ${MAX_SKILL_FILE_BYTES}. Move detail into separate files. Skill not served.`,
          ),
        ],
      };
    }
    const base = { file: entry.file, dir: entry.dir, size: entry.size, mtimeMs: entry.mtimeMs };
    if (this.readText) {
      const read = readInjected(this.readText, entry.file);
      if (!read.ok) return { diagnostics: [unreadable(entry.file, read, "error", "Skill not served")] };
      return parseAgentSkill({ ...base, text: read.text });
    }
    // Security: the one confined reader (inside the skill's real folder, regular file, at most 1 MiB, never blocks).
    const read = readSkillSourceBytes({
      kind: "agent-skill",
      dir: entry.dir,
      file: entry.file,
      root: source.dir,
      location: source.location,
    });
    if (!read.ok) {
      if (read.code === "FILE_TOO_LARGE") return { diagnostics: [tooLarge(entry.file, read.size ?? entry.size)] };
      return { diagnostics: [unreadable(entry.file, read, "error", "Skill not served")] };
    }
    // What was read is what is parsed and hashed: its size and mtime, not the walk's, describe it.
    return parseAgentSkill({ ...base, size: read.bytes.length, mtimeMs: read.mtimeMs, ...digestBytes(read.bytes) });
  }
}

function sameSource(a: Source, b: Source): boolean {
  return a.label === b.label && a.dir === b.dir && a.location === b.location && a.qualifier === b.qualifier;
}

function sameSources(a: readonly Source[], b: readonly Source[]): boolean {
  return a.length === b.length && a.every((s, i) => sameSource(s, b[i] as Source));
}
