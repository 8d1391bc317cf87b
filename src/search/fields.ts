import type { Skill } from "../skills/skill.ts";
import { searchName } from "./search-name.ts";

/** What FullTextIndex indexes of a skill: its fields and their weights. */

/**
 * Metadata field weights, the name and description strongest; tuned on bench/eval.
 * Headings and the body zones are weighted in scoring.ts.
 */
export const BOOSTS = { name: 4, tags: 3, keywords: 3, category: 2, description: 4 } as const;

/** Fields whose terms are matched as MiniSearch matches its fields (fuzzy too); the others are long texts. */
export const META_FIELDS = ["name", "description", "tags", "category", "keywords"] as const;
/**
 * Headings and the body's two zones (scoring.ts): "lead" holds its first LEAD_CHARS characters,
 * "body" the rest. No fuzzy expansion: it would walk a vocabulary of 100,000 terms.
 */
export const TEXT_FIELDS = ["headings", "lead", "body"] as const;
export type Field = (typeof META_FIELDS)[number] | (typeof TEXT_FIELDS)[number];
export const FIELDS: readonly Field[] = [...META_FIELDS, ...TEXT_FIELDS];

/** A skill's metadata texts, one per META_FIELDS entry. */
export function metadata(skill: Skill): Record<(typeof META_FIELDS)[number], string> {
  return {
    name: searchName(skill),
    description: skill.description,
    tags: skill.tags.join(" "),
    category: skill.category ?? "",
    keywords: skill.keywords.join(" "),
  };
}
