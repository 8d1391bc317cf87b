import type { ParseResult } from "../skills/agent-skill.ts";
import { type Skill, sharingEmptyWords } from "../skills/skill.ts";
import type { Source } from "../sources/source-list.ts";
import type { SkillDirEntry } from "../sources/walk.ts";
import { type Diagnostic, NO_DIAGNOSTICS } from "../util/diagnostic.ts";
import type { SourceScan } from "./catalog.ts";

/**
 * A parse with diagnostics, or not yet made into a catalog Skill, with the mtime and size it was read at;
 * once a scan has made the catalog Skill from it, that Skill is its `skill` and `built` (the parse's own
 * object would be a second copy).
 */
interface CachedParse extends ParseResult {
  mtimeMs: number;
  size: number;
  built?: Skill;
}

/**
 * What the cache keeps for a file: the catalog Skill itself once one is made from a parse without
 * diagnostics (most files: it holds the mtime, size and source a look-up checks), else a CachedParse.
 * One object per skill fewer for every full collection of the heap (issue 16, idle).
 */
type Kept = CachedParse | Skill;

const isSkill = (kept: Kept): kept is Skill => "kind" in kept;

/**
 * The scanner's parses of SKILL.md files, by file, valid while the file's mtime and size hold, each
 * with the catalog Skill made from it: a rescan of an unchanged tree parses nothing and builds nothing.
 */
export class ParseCache {
  private parses = new Map<string, Kept>();

  /** The parse of `entry` if it is still current. */
  get(entry: SkillDirEntry): ParseResult | undefined {
    const kept = this.parses.get(entry.file);
    if (!kept || kept.mtimeMs !== entry.mtimeMs || kept.size !== entry.size) return undefined;
    return isSkill(kept) ? { skill: kept, diagnostics: NO_DIAGNOSTICS } : kept;
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
    this.parses.set(skill.file, diagnostics.length === 0 ? skill : fresh(skill, diagnostics, skill));
    return true;
  }

  /**
   * The catalog Skill of a parsed `entry` in `source`: the one made last time while it holds. Its paths
   * are the walk's own strings, which the walker's folder listings also hold (a parse from the worker or
   * the snapshot brings copies): one string per path at 10,000 skills instead of two (issue 16, idle).
   */
  skill(entry: SkillDirEntry, source: Source, parsed: NonNullable<ParseResult["skill"]>): Skill {
    const kept = this.parses.get(entry.file);
    const skill: Skill = madeBefore(kept, source) ?? {
      ...parsed,
      id: `${source.qualifier ?? source.label}:${parsed.name}`,
      source: source.label,
      location: source.location,
      root: source.dir,
    };
    // Equal strings: only which copy is kept changes.
    skill.file = entry.file;
    skill.dir = entry.dir;
    if (kept) {
      // A Map keeps the key it was first given: this walk's path replaces the last one's.
      this.parses.delete(entry.file);
      if (isSkill(kept) || kept.diagnostics.length === 0) this.parses.set(entry.file, skill);
      else {
        // The skill holds every parsed field (and its source's, which a spread for another source replaces).
        kept.skill = skill;
        kept.built = skill;
        this.parses.set(entry.file, kept);
      }
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
  return { skill, diagnostics, mtimeMs, size, built: undefined };
}

/** The catalog Skill made from `kept` by an earlier scan, if it was made for `source`. */
function madeBefore(kept: Kept | undefined, source: Source): Skill | undefined {
  if (!kept) return undefined;
  const made = isSkill(kept) ? kept : kept.built;
  return made && madeFor(made, source) ? made : undefined;
}

/** Whether `skill` was made for `source` (its label, folder, location and the id's qualifier). */
function madeFor(skill: Skill, source: Source): boolean {
  const qualifier = source.qualifier ?? source.label;
  return (
    skill.source === source.label &&
    skill.root === source.dir &&
    skill.location === source.location &&
    skill.id.length === qualifier.length + 1 + skill.name.length &&
    skill.id.startsWith(qualifier) &&
    skill.id.charCodeAt(qualifier.length) === 58 // ":"
  );
}
