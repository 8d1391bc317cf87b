import { skillBody } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
import { readSkillSource } from "../skills/skill-read.ts";
import type { ConfinedFailure } from "../util/confined-read.ts";
import { SkillHubError } from "../util/errors.ts";
import type { Catalog } from "./catalog.ts";
import { resolveTreeContent } from "./tree-content.ts";

/**
 * The one reader of a skill's text: every instruction text the tools, search
 * and the web page serve is read here, through the confined reader
 * (util/confined-read.ts): inside the skill's real folder, a regular file, at
 * most 1 MiB, read once.
 */

export type SkillRead = { ok: true; text: string } | ConfinedFailure;

/** The whole SKILL.md as on disk (BOM removed), or why it cannot be served. */
export function readSkillFileText(skill: Skill): SkillRead {
  const read = readSkillSource(skill);
  return read.ok ? { ok: true, text: read.text } : read;
}

/** The whole SKILL.md (BOM removed), or undefined when it cannot be served (search excerpts, listings). */
export function readSkillText(skill: Skill): string | undefined {
  const read = readSkillFileText(skill);
  return read.ok ? read.text : undefined;
}

/**
 * The body without frontmatter, or undefined when it cannot be served. With `prefixBytes`, only
 * that much of the file is read (the search index keeps a few thousand characters of a body).
 */
export function readSkillBody(skill: Skill, prefixBytes?: number): string | undefined {
  if (prefixBytes === undefined) {
    const text = readSkillText(skill);
    return text === undefined ? undefined : skillBody(text);
  }
  const read = readSkillSource(skill, prefixBytes, "truncate");
  return read.ok ? skillBody(read.text) : undefined;
}

/**
 * What a skill tells an agent to do: an Agent Skill's body, or a tree node's
 * inherited content (seed 003 §6), or why it cannot be served.
 */
export function readInstructionsChecked(catalog: Catalog, skill: Skill): SkillRead {
  if (skill.kind !== "tree-node") {
    const read = readSkillFileText(skill);
    return read.ok ? { ok: true, text: skillBody(read.text) } : read;
  }
  try {
    return { ok: true, text: resolveTreeContent(catalog, skill) };
  } catch (error) {
    if (error instanceof SkillHubError)
      return { ok: false, code: error.code as ConfinedFailure["code"], reason: error.message };
    throw error;
  }
}
