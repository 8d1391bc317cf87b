import type { Catalog } from "../catalog/catalog.ts";
import type { Skill } from "../skills/skill.ts";

/**
 * The served skill behind each slot of one full-text index, for one catalog snapshot, resolved the
 * first time a search reads the slot (the two catalog look-ups of a hit, by id then by name,
 * took 0.8 µs together at 10,000 skills, 0.18 ms of a search reading 220 hits, most of it waiting on
 * memory; the same skills come back from query to query).
 *
 * Valid because neither side changes under it: a catalog is immutable, and an index never gives a
 * slot to another skill (a slot is freed on removal and a new skill always gets a new one).
 */
export class ServedSlots {
  /** Per slot: the served skill, null when the slot's id is not served (gone, shadowed), unset until read. */
  private readonly skills: (Skill | null | undefined)[];

  constructor(
    private readonly catalog: Catalog,
    slots: number,
  ) {
    this.skills = new Array(slots);
  }

  /** The skill the catalog serves as `id` (the id at `slot`), or undefined (gone, or shadowed by another). */
  get(slot: number, id: string): Skill | undefined {
    const known = this.skills[slot];
    if (known !== undefined) return known ?? undefined;
    const skill = this.catalog.getById(id);
    // A persisted index may know skills the catalog no longer has, or shadowed ones; the catalog decides.
    const served = skill && this.catalog.get(skill.name) === skill ? skill : undefined;
    // Slots added after this was made (the index grew meanwhile) are looked up every time.
    if (slot < this.skills.length) this.skills[slot] = served ?? null;
    return served;
  }
}

/**
 * One ServedSlots per catalog snapshot and index. Both maps are weak, so that neither an old
 * catalog nor an old index is kept alive by the other's entry (each holds 10,000 skills' worth). Keyed
 * by the catalog's Skill objects, not the catalog: it holds them only while they are in use, and the
 * slots' skills go with them.
 */
const bySnapshot = new WeakMap<readonly Skill[], WeakMap<object, ServedSlots>>();

/** The ServedSlots of `catalog` for `index` (`slots`: the index's slot count now). */
export function servedSlots(catalog: Catalog, index: object, slots: number): ServedSlots {
  const skills = catalog.skills;
  let byIndex = bySnapshot.get(skills);
  if (!byIndex) {
    byIndex = new WeakMap();
    bySnapshot.set(skills, byIndex);
  }
  let served = byIndex.get(index);
  if (!served) {
    served = new ServedSlots(catalog, slots);
    byIndex.set(index, served);
  }
  return served;
}
