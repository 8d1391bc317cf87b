import type { Skill } from "../../skills/skill.ts";
import { searchName } from "../search-name.ts";

/** Characters of description embedded at most (a model's input limit is a few thousand tokens). */
export const MAX_DESCRIPTION_CHARS = 4000;

/**
 * What is sent to the embedding API for a skill, and nothing else: its
 * name, description, tags and category. Never the body, the
 * path or any file.
 */
export function embeddingText(skill: Skill): string {
  const lines = [searchName(skill), skill.description.replace(/\s+/g, " ").trim().slice(0, MAX_DESCRIPTION_CHARS)];
  if (skill.tags.length > 0) lines.push(`tags: ${skill.tags.join(", ")}`);
  if (skill.category) lines.push(`category: ${skill.category}`);
  return lines.filter(Boolean).join("\n");
}

/** The cache key of an embedded text: its content hash. */
export function textKey(text: string): string {
  return Bun.hash(text).toString(16);
}
