import { basename, dirname } from "node:path";
import type { Skill } from "../skills/skill.ts";
import type { Source } from "../sources/source-list.ts";
import { type Diagnostic, type DiagnosticCode, diagnostic, NO_DIAGNOSTICS } from "../util/diagnostic.ts";

/** The codes of the notes a catalog makes itself, about a name two skills share (not about a file's parse). */
export const CATALOG_CODES: ReadonlySet<DiagnosticCode> = new Set(["shadowed", "duplicate-name"]);

/** What one source yielded in a scan. */
export interface SourceScan {
  source: Source;
  exists: boolean;
  dirCount: number;
  /** Parsed skills in walk order, source fields filled in. */
  skills: Skill[];
  diagnostics: Diagnostic[];
}

export interface SourceStatus {
  label: string;
  dir: string;
  location: Source["location"];
  qualifier?: string;
  exists: boolean;
  /** Skills served from this source. */
  served: number;
  /** Skills of this source hidden by a source earlier in the order. */
  shadowed: number;
  dirCount: number;
}

/**
 * `text` in Unicode normal form C, so a name typed composed ("café", as most keyboards write it) and one
 * written decomposed (as macOS writes file names) meet. ASCII text (most names) is its own normal form,
 * and the test costs far less than normalize().
 */
export function normalForm(text: string): string {
  return NON_ASCII.test(text) ? text.normalize("NFC") : text;
}

/** Any UTF-16 code unit past ASCII (a surrogate included). */
const NON_ASCII = /[\u0080-\uffff]/;

/** The key a name or qualified id is kept under: lower case, in normal form C. */
function lookupKey(name: string): string {
  return normalForm(name.toLowerCase());
}

/**
 * `lowered`'s entry in `map`, whose keys are lookupKeys. A key found as given is in normal form C
 * already, so a name asked as written (most lookups, on every tool call's path) is never normalised.
 */
function lookup(map: ReadonlyMap<string, Skill>, lowered: string): Skill | undefined {
  const found = map.get(lowered);
  return found || !NON_ASCII.test(lowered) ? found : map.get(lowered.normalize("NFC"));
}

export interface ShadowedSkill {
  skill: Skill;
  /** The skill that took its name. */
  by: Skill;
}

/**
 * An immutable snapshot of every skill: built once, swapped in one
 * assignment, never changed in place. Lookups go only through maps: a name
 * is never turned into a path.
 */
export class Catalog {
  readonly diagnostics: readonly Diagnostic[];
  readonly sources: readonly SourceStatus[];
  /** Changes whenever what a client sees in a listing changes (names, descriptions, locations). */
  readonly visibleHash: string;
  /** Changes whenever any skill file changes. */
  readonly contentHash: string;
  /** The number of served skills. */
  readonly size: number;
  /** Served skills, in order. */
  readonly skills: readonly Skill[];
  /** Skills hidden by a served skill of the same name. */
  readonly shadowed: readonly ShadowedSkill[];
  /** Served skills by lookupKey of their name. */
  private readonly byKey: Map<string, Skill>;
  /** Served skills by lookupKey of their qualified id, then shadowed ones from other sources. */
  private readonly byId = new Map<string, Skill>();
  /** Agent Skills (served or shadowed) by file: made on first use (a scan's parse cache asks). */
  private bySkillFile?: Map<string, Skill>;
  private byFile?: Map<string, Diagnostic[]>;

  constructor(
    scans: readonly SourceScan[],
    readonly generation = 0,
    /** Diagnostics of no source (a project's skillhub.yaml that cannot be used), listed first. */
    notes: readonly Diagnostic[] = NO_DIAGNOSTICS,
  ) {
    const skills: Skill[] = [];
    const shadowed: ShadowedSkill[] = [];
    const diagnostics: Diagnostic[] = [...notes];
    const sources: SourceStatus[] = [];
    const winners = new Map<string, Skill>();
    for (const scan of scans) {
      let served = 0;
      let hidden = 0;
      for (const d of scan.diagnostics) diagnostics.push(d.source ? d : { ...d, source: scan.source.label });
      for (const skill of scan.skills) {
        const key = normalForm(skill.key);
        const winner = winners.get(key);
        if (winner) {
          hidden++;
          shadowed.push({ skill, by: winner });
          const sameSource = winner.source === skill.source;
          // Two names that look alike and differ only in Unicode normal form: say why they collide.
          const form = winner.key === skill.key ? "" : " (the same name in another Unicode normal form)";
          diagnostics.push({
            ...diagnostic(
              sameSource ? "duplicate-name" : "shadowed",
              sameSource ? "warning" : "info",
              skill.file,
              sameSource
                ? `another skill named '${skill.name}' in the same source (${winner.dir}) comes first${form}; this one is not served.`
                : `skill '${skill.name}' is shadowed by ${winner.dir} (source ${winner.source})${form}; load it as '${skill.id}'.`,
            ),
            source: skill.source,
          });
          continue;
        }
        served++;
        skills.push(skill);
        winners.set(key, skill);
      }
      sources.push({
        label: scan.source.label,
        dir: scan.source.dir,
        location: scan.source.location,
        qualifier: scan.source.qualifier,
        exists: scan.exists,
        served,
        shadowed: hidden,
        dirCount: scan.dirCount,
      });
    }
    this.diagnostics = diagnostics;
    this.sources = sources;
    let visible = "";
    let content = "";
    for (const s of skills) {
      visible += `${s.name}\u0000${s.description}\u0000${s.location}\u0000${s.alwaysApply}\u0001`;
      content += `${s.id}\u0000${s.hash}\u0001`;
    }
    this.visibleHash = Bun.hash(visible).toString(16);
    this.contentHash = Bun.hash(content + visible).toString(16);
    this.size = skills.length;
    this.skills = skills;
    this.shadowed = shadowed;
    this.byKey = winners;
    for (const skill of skills) this.byId.set(lookupKey(skill.id), skill);
    for (const { skill, by } of shadowed) {
      const id = lookupKey(skill.id);
      if (by.source !== skill.source && !this.byId.has(id)) this.byId.set(id, skill);
    }
  }

  /** Shadowed skills their qualified name reaches (another source's): a same-source duplicate is served by no route. */
  reachableShadowed(): ShadowedSkill[] {
    return this.shadowed.filter(({ skill }) => this.byId.get(lookupKey(skill.id)) === skill);
  }

  static empty(): Catalog {
    return new Catalog([], 0);
  }

  /**
   * A served skill by name (case-insensitive, in either Unicode normal form), or any skill, shadowed
   * ones included, by qualified name `<source>:<name>`.
   */
  get(name: string): Skill | undefined {
    const key = name.trim().toLowerCase();
    return lookup(this.byKey, key) ?? lookup(this.byId, key);
  }

  /** A skill by its exact qualified id (`<source>:<name>`), shadowed ones included. */
  getById(id: string): Skill | undefined {
    const skill = lookup(this.byId, id.toLowerCase());
    return skill?.id === id ? skill : undefined;
  }

  /** The Agent Skill (served or shadowed) read from `file`, if any. */
  skillOfFile(file: string): Skill | undefined {
    if (!this.bySkillFile) {
      this.bySkillFile = new Map();
      for (const s of [...this.skills, ...this.shadowed.map((x) => x.skill)])
        if (s.kind === "agent-skill" && !this.bySkillFile.has(s.file)) this.bySkillFile.set(s.file, s);
    }
    return this.bySkillFile.get(file);
  }

  /**
   * The diagnostics about `file`, in order. By a map built on first use: a snapshot's save and a seed
   * ask for each of 10,000 skills' files.
   */
  diagnosticsFor(file: string): readonly Diagnostic[] {
    if (!this.byFile) {
      this.byFile = new Map();
      for (const d of this.diagnostics) {
        const list = this.byFile.get(d.file);
        if (list) list.push(d);
        else this.byFile.set(d.file, [d]);
      }
    }
    return this.byFile.get(file) ?? NO_DIAGNOSTICS;
  }

  /**
   * Why a folder named `name` serves no skill: the first error about the SKILL.md in it (a missing
   * description, broken YAML), when no served skill holds the name; the name compared as lookups compare
   * it. Without this, a skill whose file has a mistake is only "not found" to the one who just wrote it.
   */
  unservedFolder(name: string): Diagnostic | undefined {
    if (this.get(name)) return undefined;
    const key = lookupKey(name);
    return this.diagnostics.find(
      (d) =>
        d.severity === "error" &&
        basename(d.file).toLowerCase() === "skill.md" &&
        lookupKey(basename(dirname(d.file))) === key,
    );
  }

  errorCount(): number {
    return this.diagnostics.filter((d) => d.severity === "error").length;
  }
}
