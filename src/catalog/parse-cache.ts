import type { ParseResult } from "../skills/agent-skill.ts";
import { type Skill, sharingEmptyWords } from "../skills/skill.ts";
import type { Source } from "../sources/source-list.ts";
import { type FileStamp, fileStamp, sameFile } from "../sources/stamp.ts";
import type { SkillDirEntry } from "../sources/walk.ts";
import { type Diagnostic, NO_DIAGNOSTICS } from "../util/diagnostic.ts";
import { CATALOG_CODES, type Catalog, type SourceScan } from "./catalog.ts";

/**
 * A parse made since the last scan ended, or one with diagnostics, with the stamp it was read at;
 * once a scan has made the catalog Skill from it, that Skill is its `skill` and `built` (the parse's own
 * object would be a second copy). Once that scan has ended, the catalog holds the skill: `inBase`, and
 * only the diagnostics are kept here.
 */
interface CachedParse extends ParseResult, FileStamp {
  built?: Skill;
  inBase: boolean;
}

/**
 * The scanner's parses of SKILL.md files, by file, valid while the file's mtime and size hold, each
 * with the catalog Skill made from it: a rescan of an unchanged tree parses nothing and builds nothing.
 *
 * A parse without diagnostics is not kept here once its scan has ended: the catalog that scan made holds
 * it (its Skill records the mtime and size read), so each skill is held once.
 */
export class ParseCache {
  private parses = new Map<string, CachedParse>();
  /** The last scan's catalog (or the seed): its Agent Skills are the parses of their files. */
  private base?: Catalog;

  /** The parse of `entry` if it is still current. */
  get(entry: SkillDirEntry): ParseResult | undefined {
    const kept = this.parses.get(entry.file);
    if (kept && !sameFile(kept, entry)) return undefined;
    if (kept && !kept.inBase) return kept;
    const skill = this.base?.skillOfFile(entry.file);
    if (kept) return { skill, diagnostics: kept.diagnostics };
    return skill && sameFile(skill, entry) ? { skill, diagnostics: NO_DIAGNOSTICS } : undefined;
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
   * Take the last run's catalog (its Agent Skills, with the diagnostics it has about each file) as the
   * parses of their files while those files' mtimes and sizes are the ones they were read with. Returns
   * how many skills were taken; none once a scan has ended.
   */
  seed(catalog: Catalog): number {
    if (this.base) return 0;
    this.base = catalog;
    let taken = 0;
    for (const skill of catalog.skills) {
      if (skill.kind !== "agent-skill" || this.parses.has(skill.file)) continue;
      // One copy, as the parse made it: the catalog labels a file's diagnostics with each source that
      // walked it (twice for a folder listed twice), and adds notes of its own about names.
      const diagnostics = catalog
        .diagnosticsFor(skill.file)
        .filter((d) => d.source === skill.source && !CATALOG_CODES.has(d.code))
        .map(({ source: _, ...d }) => d);
      if (diagnostics.length > 0) this.parses.set(skill.file, inBase(fresh(skill, diagnostics, skill)));
      taken++;
    }
    return taken;
  }

  /** The catalog Skill of a parsed `entry` in `source`: the one made last time while it holds. */
  skill(entry: SkillDirEntry, source: Source, parsed: NonNullable<ParseResult["skill"]>): Skill {
    const kept = this.parses.get(entry.file);
    // Without a kept parse of its own, `parsed` is the base catalog's Skill itself.
    const made = kept && !kept.inBase ? kept.built : this.base?.skillOfFile(entry.file);
    if (made && madeFor(made, source)) return made;
    const skill: Skill = {
      ...parsed,
      id: `${source.qualifier ?? source.label}:${parsed.name}`,
      source: source.label,
      location: source.location,
      root: source.dir,
      // Equal strings, the walk's copies: a parse from the worker brings its own, a second per path.
      file: entry.file,
      dir: entry.dir,
    };
    if (kept && !kept.inBase) {
      // The skill holds every parsed field (and its source's, which a spread for another source replaces).
      kept.skill = skill;
      kept.built = skill;
    }
    return skill;
  }

  /**
   * After a scan: `catalog` (what it made) holds its parses' skills; keep only the diagnostics of files
   * still walked.
   */
  settle(catalog: Catalog, scans: readonly SourceScan[]): void {
    this.base = catalog;
    const walked = new Set<string>();
    for (const scan of scans) for (const d of scan.diagnostics) if (d.file) walked.add(d.file);
    for (const [file, kept] of this.parses) {
      if (kept.diagnostics.length === 0 || !walked.has(file)) this.parses.delete(file);
      else if (kept.built) this.parses.set(file, inBase(kept));
    }
  }
}

/** A new entry, every field present from the start (one shape for all entries). */
function fresh(skill: ParseResult["skill"], diagnostics: readonly Diagnostic[], read: FileStamp): CachedParse {
  return { skill, diagnostics, ...fileStamp(read), built: undefined, inBase: false };
}

/** `kept` without its skill, which the base catalog holds. */
const inBase = (kept: CachedParse): CachedParse => ({ ...kept, skill: undefined, built: undefined, inBase: true });

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
