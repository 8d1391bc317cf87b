import type { AgentSkill, Skill } from "../skills/skill.ts";
import { NO_WORDS } from "../skills/skill.ts";
import type { Location } from "../sources/source-list.ts";
import { TermList } from "../util/term-list.ts";

/** The text fields of a packed row, in order. */
const texts = (s: Skill) => [s.name, s.id, s.description, s.hash, s.file, s.dir, s.frontmatterJson, s.category ?? ""];
const [NAME, ID, DESCRIPTION, HASH, FILE, DIR, FRONTMATTER, CATEGORY] = [0, 1, 2, 3, 4, 5, 6, 7] as const;
const FIELDS = 8;
/** The number fields of a packed row, in order. */
const SIZE = 0;
const MTIME = 1;
const BODY_LINES = 2;
const NUMBERS = 3;
const ALWAYS_APPLY = 1;
const HAS_CATEGORY = 2;

interface Place {
  source: string;
  location: Location;
  root: string;
}

/**
 * A catalog's skill records packed into columns: every text field of every row in one TermList (one
 * string and its offsets), the numbers and flags in typed arrays, the source fields as an index into a short list.
 * At 10,000 skills that is a handful of heap cells instead of eight per skill (an object and seven
 * strings), each visited by every full collection the runtime makes while the server idles (issue 16).
 * `at` makes a row's Skill again, a new object each time. A skill the columns cannot hold (a tree node,
 * tags, keywords) is kept as it is, the same object each time: few catalogs have many.
 */
export class SkillTable {
  private constructor(
    /** FIELDS strings per row (empty ones for a kept row). */
    private readonly strings: TermList,
    private readonly numbers: Float64Array,
    private readonly flags: Uint8Array,
    private readonly placeOf: Uint32Array,
    private readonly places: readonly Place[],
    private readonly kept: ReadonlyMap<number, Skill>,
  ) {}

  static of(skills: readonly Skill[]): SkillTable {
    const n = skills.length;
    const parts: string[] = [];
    const numbers = new Float64Array(n * NUMBERS);
    const flags = new Uint8Array(n);
    const placeOf = new Uint32Array(n);
    const places: Place[] = [];
    const placeIds = new Map<string, number>();
    const kept = new Map<number, Skill>();
    for (let row = 0; row < n; row++) {
      const skill = skills[row] as Skill;
      if (!packable(skill)) {
        kept.set(row, skill);
        for (let f = 0; f < FIELDS; f++) parts.push("");
        continue;
      }
      parts.push(...texts(skill));
      numbers[row * NUMBERS + SIZE] = skill.size;
      numbers[row * NUMBERS + MTIME] = skill.mtimeMs;
      numbers[row * NUMBERS + BODY_LINES] = skill.bodyLines;
      flags[row] = (skill.alwaysApply ? ALWAYS_APPLY : 0) | (skill.category !== undefined ? HAS_CATEGORY : 0);
      const placeKey = `${skill.source}\u0000${skill.location}\u0000${skill.root}`;
      let place = placeIds.get(placeKey);
      if (place === undefined) {
        place = places.length;
        placeIds.set(placeKey, place);
        places.push({ source: skill.source, location: skill.location, root: skill.root });
      }
      placeOf[row] = place;
    }
    return new SkillTable(TermList.of(parts), numbers, flags, placeOf, places, kept);
  }

  get length(): number {
    return this.flags.length;
  }

  /** Row `row`'s skill: a new object for a packed row, the kept one otherwise. */
  at(row: number): Skill {
    const kept = this.kept.get(row);
    if (kept) return kept;
    const name = this.field(row, NAME);
    const place = this.places[this.placeOf[row] as number] as Place;
    const numbers = this.numbers;
    const flags = this.flags[row] as number;
    const skill: AgentSkill = {
      kind: "agent-skill",
      name,
      key: name.toLowerCase(),
      id: this.field(row, ID),
      description: this.field(row, DESCRIPTION),
      category: flags & HAS_CATEGORY ? this.field(row, CATEGORY) : undefined,
      tags: NO_WORDS,
      keywords: NO_WORDS,
      alwaysApply: (flags & ALWAYS_APPLY) !== 0,
      frontmatterJson: this.field(row, FRONTMATTER),
      bodyLines: numbers[row * NUMBERS + BODY_LINES] as number,
      source: place.source,
      location: place.location,
      root: place.root,
      dir: this.field(row, DIR),
      file: this.field(row, FILE),
      hash: this.field(row, HASH),
      size: numbers[row * NUMBERS + SIZE] as number,
      mtimeMs: numbers[row * NUMBERS + MTIME] as number,
    };
    return skill;
  }

  private field(row: number, f: number): string {
    return this.strings.at(row * FIELDS + f);
  }
}

/** Whether `skill` is exactly what a packed row makes again. */
function packable(skill: Skill): boolean {
  return (
    skill.kind === "agent-skill" &&
    skill.tags.length === 0 &&
    skill.keywords.length === 0 &&
    skill.key === skill.name.toLowerCase()
  );
}
