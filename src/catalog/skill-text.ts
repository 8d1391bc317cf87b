import { readFileSync } from "node:fs";
import { skillBody } from "../skills/agent-skill.ts";
import { stripBom } from "../skills/frontmatter.ts";
import type { Skill } from "../skills/skill.ts";
import type { Catalog } from "./catalog.ts";
import { resolveTreeContent } from "./tree-content.ts";

/**
 * The one reader of a skill's text (the tools, search and the web page all read through here).
 * The whole SKILL.md as on disk (BOM removed), or undefined when it vanished since the scan.
 */
export function readSkillText(skill: Pick<Skill, "file">): string | undefined {
  try {
    return stripBom(readFileSync(skill.file, "utf8"));
  } catch {
    return undefined;
  }
}

/** The body without frontmatter, or undefined when the file vanished. */
export function readSkillBody(skill: Pick<Skill, "file">): string | undefined {
  const text = readSkillText(skill);
  return text === undefined ? undefined : skillBody(text);
}

/**
 * What a skill tells an agent to do: an Agent Skill's body, or a tree node's
 * inherited content (seed 003 §6). Undefined when the file vanished.
 */
export function readInstructions(catalog: Catalog, skill: Skill): string | undefined {
  if (skill.kind !== "tree-node") return readSkillBody(skill);
  try {
    return resolveTreeContent(catalog, skill);
  } catch {
    return undefined;
  }
}
