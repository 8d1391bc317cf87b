import type { Skill } from "../skills/skill.ts";
import { normalForm } from "./catalog.ts";

export interface SkillFilter {
  /** Lower-cased names; when non-empty only these are enabled (SKILLHUB_ENABLED_SKILLS). */
  skills: readonly string[];
  /** Lower-cased categories; used when `skills` is empty (SKILLHUB_ENABLED_CATEGORIES). */
  categories: readonly string[];
  /**
   * Frozen mode: false for a skill the lock refuses (lock/frozen.ts). Such a skill is hidden wherever
   * a disabled one is (tool descriptions, search, listings, prompts, resources, instructions), so no
   * word of it reaches a model; a lookup by name answers with the lock's refusal instead.
   */
  locked?: (skill: Skill) => boolean;
}

/**
 * Server-level filter (enabled skills and categories): names first, else categories, else all;
 * in frozen mode, only skills the lock vouches for. The catalog and the index
 * keep every skill; tools ask this before answering.
 */
export function isEnabled(skill: Skill, filter: SkillFilter): boolean {
  if (filter.locked && !filter.locked(skill)) return false;
  return passesFilter(skill, filter);
}

/**
 * The name and category filters alone (SKILLHUB_ENABLED_SKILLS / _CATEGORIES), frozen mode aside. Names
 * meet in Unicode normal form C, as the catalog looks them up: `café` typed composed enables a skill
 * whose name was written decomposed.
 */
export function passesFilter(skill: Skill, filter: SkillFilter): boolean {
  if (filter.skills.length > 0) {
    const key = normalForm(skill.key);
    return filter.skills.some((name) => normalForm(name) === key);
  }
  if (filter.categories.length > 0) return skill.category !== undefined && filter.categories.includes(skill.category);
  return true;
}

export function filterActive(filter: SkillFilter): boolean {
  return filter.skills.length > 0 || filter.categories.length > 0;
}

export function describeFilter(filter: SkillFilter): string {
  if (filter.skills.length > 0) return `SKILLHUB_ENABLED_SKILLS=${filter.skills.join(",")}`;
  if (filter.categories.length > 0) return `SKILLHUB_ENABLED_CATEGORIES=${filter.categories.join(",")}`;
  return "none (all skills enabled)";
}
