import type { ParseResult } from "../skills/agent-skill.ts";
import { type Skill, sharingEmptyWords } from "../skills/skill.ts";
import type { Source } from "../sources/source-list.ts";
import type { SkillDirEntry } from "../sources/walk.ts";
import { type Diagnostic, NO_DIAGNOSTICS } from "../util/diagnostic.ts";
import type { SourceScan } from "./catalog.ts";

/**
 * A parse, with the mtime and size it was read at; once a scan has made the catalog Skill from it, that
 * Skill is its `skill` (the parse's own object would be a second copy of 10,000 skills) and `source` says
 * for which source. One object per file: a nested result was 10,000 more cells for the collector.
 */
interface CachedParse extends ParseResult {
  mtimeMs: number;
  size: number;
  built?: Skill;
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
    return cached && cached.mtimeMs === entry.mtimeMs && cached.size === entry.size ? cached : undefined;
  }

  /**
   * Keep a new parse; false (nothing kept) for a file that could not be read, since a permission
   * error can be fixed without touching mtime.
   */
  remember(entry: SkillDirEntry, result: ParseResult): boolean {
    if (result.diagnostics.some((d) => d.code === "unreadable")) return false;
    const skill = result.skill && sharingEmptyWords(result.skill);
    const diagnostics = result.diagnostics.length > 0 ? result.diagnostics : NO_DIAGNOSTICS;
    this.parses.set(entry.file, fresh(skill, diagnostics, entry));
    return true;
  }

  /**
   * Take `skill`, from the last run's catalog with `diagnostics` about its file, as the parse of its
   * file while that file's mtime and size are the ones it was read with. False when a parse is known.
   */
  seed(skill: Skill, diagnostics: readonly Diagnostic[]): boolean {
    if (this.parses.has(skill.file)) return false;
    this.parses.set(skill.file, fresh(skill, diagnostics, skill));
    return true;
  }

  /** The catalog Skill of a parsed `entry` in `source`: the one made last time while it holds. */
  skill(entry: SkillDirEntry, source: Source, parsed: NonNullable<ParseResult["skill"]>): Skill {
    const cached = this.parses.get(entry.file);
    if (cached?.built && cached.source && sameSource(cached.source, source)) return cached.built;
    const skill: Skill = {
      ...parsed,
      id: `${source.qualifier ?? source.label}:${parsed.name}`,
      source: source.label,
      location: source.location,
      root: source.dir,
    };
    if (cached) {
      // The skill holds every parsed field (and its source's, which a spread for another source replaces).
      cached.skill = skill;
      cached.built = skill;
      cached.source = source;
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

/** A new entry, every field present from the start (one shape for all entries). */
function fresh(
  skill: ParseResult["skill"],
  diagnostics: readonly Diagnostic[],
  { mtimeMs, size }: { mtimeMs: number; size: number },
): CachedParse {
  return { skill, diagnostics, mtimeMs, size, built: undefined, source: undefined };
}

export function sameSource(a: Source, b: Source): boolean {
  return a.label === b.label && a.dir === b.dir && a.location === b.location && a.qualifier === b.qualifier;
}
