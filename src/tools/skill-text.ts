import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Catalog } from "../catalog/catalog.ts";
import { resolveTreeContent } from "../catalog/tree-content.ts";
import { skillBody } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
import { readSkillSource } from "../skills/skill-read.ts";
import type { ConfinedFailure } from "../util/confined-read.ts";
import { SkillHubError } from "../util/errors.ts";
import type { ToolDeps } from "./definition.ts";
import { type ErrorCode, errorResult } from "./results.ts";

/**
 * Every instruction text a tool serves is read here, through the confined
 * reader (util/confined-read.ts): inside the skill's real folder, a regular
 * file, at most 1 MiB, read once.
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

/** The body without frontmatter, or undefined when it cannot be served. */
export function readSkillBody(skill: Skill): string | undefined {
  const text = readSkillText(skill);
  return text === undefined ? undefined : skillBody(text);
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

/** readInstructionsChecked, undefined when it cannot be served. */
export function readInstructions(catalog: Catalog, skill: Skill): string | undefined {
  const read = readInstructionsChecked(catalog, skill);
  return read.ok ? read.text : undefined;
}

/**
 * The tool result for a skill file that is no longer what the catalog saw
 * (replaced by a link out of the skill, a FIFO, grown past 1 MiB, unreadable):
 * a clear error, and a rescan so the catalog catches up. FILE_NOT_FOUND is
 * left to the caller (it answers as for an unknown name).
 */
export function unreadableSkill(skill: Skill, failure: ConfinedFailure, deps: ToolDeps): CallToolResult {
  // The catalog is stale for this skill: rescan now, without making this call wait for it.
  void deps.ensureFresh(0).catch(() => undefined);
  deps.logger.warn(`skill '${skill.name}' not served: ${failure.code} (${failure.reason})`);
  return errorResult(
    failure.code as ErrorCode,
    `Skill '${skill.name}' cannot be served: ${failure.reason} It changed since the last scan; the catalog is being rescanned, so try again in a moment or pick another skill.`,
    { skill: skill.name },
  );
}
