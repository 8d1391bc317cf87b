import type { ParseResult } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
import type { Source } from "../sources/source-list.ts";
import type { SkillDirEntry } from "../sources/walk.ts";
import type { Diagnostic } from "../util/diagnostic.ts";
import type { SourceScan } from "./catalog.ts";

interface CachedParse {
  mtimeMs: number;
  size: number;
  result: ParseResult;
  /** The catalog Skill built from it last time, and for which source: reused while both hold. */
  skill?: Skill;
  source?: Source;
}

/**
 * The scanner's parses of SKILL.md files, by file, valid while the file's mtime and size hold, each
 * with the catalog Skill made from it: a rescan of an unchanged tree parses nothing and builds nothing.
 */
export class ParseCache {
  private parses = new Map<string, CachedParse>();

  /** The parse of `entry` if it is still current. */
  get(entry: SkillDirEntry): ParseResult | undefined {
    const cached = this.parses.get(entry.file);
    return cached && cached.mtimeMs === entry.mtimeMs && cached.size === entry.size ? cached.result : undefined;
  }

  /**
   * Keep a new parse; false (nothing kept) for a file that could not be read, since a permission
   * error can be fixed without touching mtime.
   */
  remember(entry: SkillDirEntry, result: ParseResult): boolean {
    if (result.diagnostics.some((d) => d.code === "unreadable")) return false;
    this.parses.set(entry.file, { mtimeMs: entry.mtimeMs, size: entry.size, result });
    return true;
  }

  /**
   * Take `skill`, from the last run's catalog with `diagnostics` about its file, as the parse of its
   * file while that file's mtime and size are the ones it was read with. False when a parse is known.
   */
  seed(skill: Skill, diagnostics: Diagnostic[]): boolean {
    if (this.parses.has(skill.file)) return false;
    this.parses.set(skill.file, { mtimeMs: skill.mtimeMs, size: skill.size, result: { skill, diagnostics } });
    return true;
  }

  /** The catalog Skill of a parsed `entry` in `source`: the one made last time while it holds. */
  skill(entry: SkillDirEntry, source: Source, parsed: NonNullable<ParseResult["skill"]>): Skill {
    const cached = this.parses.get(entry.file);
    if (cached?.skill && cached.source && sameSource(cached.source, source)) return cached.skill;
    const skill: Skill = {
      ...parsed,
      id: `${source.qualifier ?? source.label}:${parsed.name}`,
      source: source.label,
      location: source.location,
      root: source.dir,
    };
    if (cached) {
      cached.skill = skill;
      cached.source = source;
      // The skill holds every parsed field (and its source's, which a spread for another source replaces):
      // the parse's own object would be a second copy of 10,000 skills.
      cached.result.skill = skill;
    }
    return skill;
  }

  /** Forget files no longer served, keeping those still walked whose parse is only a diagnostic. */
  prune(scans: readonly SourceScan[]): void {
    const seen = new Set<string>();
    for (const scan of scans) for (const s of scan.skills) seen.add(s.file);
    for (const scan of scans) for (const d of scan.diagnostics) if (d.file) seen.add(d.file);
    for (const file of this.parses.keys()) if (!seen.has(file)) this.parses.delete(file);
  }
}

export function sameSource(a: Source, b: Source): boolean {
  return a.label === b.label && a.dir === b.dir && a.location === b.location && a.qualifier === b.qualifier;
}
