import type { Skill } from "../skills/skill.ts";

/**
 * The name a skill is searched by, for full text and embeddings alike: an Agent
 * Skill's name; a tree node's skill path as words ("ui/react/_index" → "ui react",
 * "_root" → "root"), since a model asks for "react", not for a path.
 */
export function searchName(skill: Skill): string {
  if (skill.kind !== "tree-node") return skill.name;
  return skill.tree.path
    .replace(/\/_index$/, "")
    .replace(/[_/]+/g, " ")
    .trim();
}
