import type { Skill } from "../skills/skill.ts";
import type { Source } from "../sources/source-list.ts";
import { type Diagnostic, type DiagnosticCode, diagnostic, NO_DIAGNOSTICS } from "../util/diagnostic.ts";
import { KeptWhileUsed } from "../util/kept-while-used.ts";
import { memoryRelease } from "../util/release-memory.ts";
import { SkillTable } from "./skill-table.ts";

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

export interface ShadowedSkill {
  skill: Skill;
  /** The skill that took its name. */
  by: Skill;
}

/** How long a catalog keeps its Skill objects and look-ups after the last request that read them. */
export const SKILLS_KEPT_MS = 30_000;

/**
 * From this many skills, dropping the objects asks for a memory release (release-memory.ts): a full
 * collection then, rather than the runtime's next idle one (at 10,000 skills, 13 ms of the main thread
 * and 8 of the allocator's, 2 minutes later), and the freed pages handed back.
 */
const RELEASE_AFTER_DROP = 1_000;

/** What a catalog makes from its table when asked, and drops when unused (KeptWhileUsed). */
interface Live {
  skills: readonly Skill[];
  shadowed: readonly ShadowedSkill[];
  byKey: Map<string, Skill>;
  byId: Map<string, Skill>;
  /** Agent Skills served or shadowed, by file: made for a scan's parse cache. */
  byFile?: Map<string, Skill>;
}

/**
 * An immutable snapshot of every skill: built once, swapped in one
 * assignment, never changed in place. Lookups go only through maps: a name
 * is never turned into a path.
 *
 * The Skill objects and the look-ups are dropped SKILLS_KEPT_MS after the last use, the records packed
 * (SkillTable), and made again from them on the next, so an idle server holds no object or string per
 * skill (issue 16: each is work for the runtime's full collections). While they are held, a skill is the
 * same object from every look-up.
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
  /** Served skills, then shadowed ones; packed when the objects are first dropped. */
  private table?: SkillTable;
  /** Per shadowed skill (table row size + i), the served row that took its name. */
  private shadowedBy?: Uint32Array;
  private readonly live: KeptWhileUsed<Live>;
  private byFile?: Map<string, Diagnostic[]>;

  constructor(
    scans: readonly SourceScan[],
    readonly generation = 0,
  ) {
    const skills: Skill[] = [];
    const shadowed: ShadowedSkill[] = [];
    const diagnostics: Diagnostic[] = [];
    const sources: SourceStatus[] = [];
    const winners = new Map<string, Skill>();
    for (const scan of scans) {
      let served = 0;
      let hidden = 0;
      for (const d of scan.diagnostics) diagnostics.push(d.source ? d : { ...d, source: scan.source.label });
      for (const skill of scan.skills) {
        const winner = winners.get(skill.key);
        if (winner) {
          hidden++;
          shadowed.push({ skill, by: winner });
          const sameSource = winner.source === skill.source;
          diagnostics.push({
            ...diagnostic(
              sameSource ? "duplicate-name" : "shadowed",
              sameSource ? "warning" : "info",
              skill.file,
              sameSource
                ? `another skill named '${skill.name}' in the same source (${winner.dir}) comes first; this one is not served.`
                : `skill '${skill.name}' is shadowed by ${winner.dir} (source ${winner.source}); load it as '${skill.id}'.`,
            ),
            source: skill.source,
          });
          continue;
        }
        served++;
        skills.push(skill);
        winners.set(skill.key, skill);
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
    // Bound methods, not arrows: an arrow here would keep this constructor's scope, skills and all.
    this.live = new KeptWhileUsed(
      this.unpack.bind(this),
      SKILLS_KEPT_MS,
      lookups(skills, shadowed, winners),
      this.pack.bind(this),
    );
  }

  static empty(): Catalog {
    return new Catalog([], 0);
  }

  /** Served skills, in order. */
  get skills(): readonly Skill[] {
    return this.live.get().skills;
  }

  /** Skills hidden by a served skill of the same name. */
  get shadowed(): readonly ShadowedSkill[] {
    return this.live.get().shadowed;
  }

  /**
   * A served skill by name (case-insensitive), or any skill, shadowed ones
   * included, by qualified name `<source>:<name>`.
   */
  get(name: string): Skill | undefined {
    const key = name.trim().toLowerCase();
    const live = this.live.get();
    return live.byKey.get(key) ?? live.byId.get(key);
  }

  /** A skill by its exact qualified id (`<source>:<name>`), shadowed ones included. */
  getById(id: string): Skill | undefined {
    const skill = this.live.get().byId.get(id.toLowerCase());
    return skill?.id === id ? skill : undefined;
  }

  /** The Agent Skill (served or shadowed) read from `file`, if any. */
  skillOfFile(file: string): Skill | undefined {
    const live = this.live.get();
    if (!live.byFile) {
      live.byFile = new Map();
      for (const s of rows(live)) if (s.kind === "agent-skill" && !live.byFile.has(s.file)) live.byFile.set(s.file, s);
    }
    return live.byFile.get(file);
  }

  /** Drop the Skill objects and look-ups now (tests; they are made again on the next use). */
  dropObjects(): void {
    this.live.drop();
  }

  /** Whether the Skill objects are held now. */
  get holdsObjects(): boolean {
    return this.live.held;
  }

  /**
   * Before each drop of the objects. Pack the records, the first time: off any request's path (the drop comes
   * from an idle timer), and not at all for a catalog replaced before it idles (35–40 ms at 10,000 skills).
   */
  private pack(live: Live): void {
    if (this.size >= RELEASE_AFTER_DROP) memoryRelease.soon();
    if (this.table) return;
    this.table = SkillTable.of(rows(live));
    this.shadowedBy = winnerRows(live.skills, live.shadowed);
  }

  private unpack(): Live {
    const table = this.table as SkillTable;
    const skills = Array.from({ length: this.size }, (_, row) => table.at(row));
    const shadowed = Array.from(this.shadowedBy as Uint32Array, (by, i) => ({
      skill: table.at(this.size + i),
      by: skills[by] as Skill,
    }));
    return lookups(skills, shadowed);
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

  errorCount(): number {
    return this.diagnostics.filter((d) => d.severity === "error").length;
  }
}

/**
 * The look-ups of served and shadowed skills: by name (`byKey`, when the caller has it already), and by
 * qualified id (a served skill's first).
 */
function lookups(
  skills: readonly Skill[],
  shadowed: readonly ShadowedSkill[],
  byKey = new Map(skills.map((s) => [s.key, s])),
): Live {
  const byId = new Map<string, Skill>();
  for (const skill of skills) byId.set(skill.id.toLowerCase(), skill);
  for (const { skill, by } of shadowed) {
    const id = skill.id.toLowerCase();
    if (by.source !== skill.source && !byId.has(id)) byId.set(id, skill);
  }
  return { skills, shadowed, byKey, byId };
}

/** Per shadowed skill, the row of the served skill that took its name. */
function winnerRows(skills: readonly Skill[], shadowed: readonly ShadowedSkill[]): Uint32Array {
  const rows = new Map(skills.map((s, row) => [s, row]));
  return Uint32Array.from(shadowed, (s) => rows.get(s.by) as number);
}

/** Every skill of `live`, in table order: served ones, then shadowed ones. */
const rows = (live: Live): Skill[] => [...live.skills, ...live.shadowed.map((s) => s.skill)];
