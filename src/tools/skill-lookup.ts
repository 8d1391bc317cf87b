import type { CallToolResult } from "@modelcontextprotocol/server";
import { describeFilter, isEnabled } from "../catalog/filters.ts";
import { closeNames } from "../catalog/suggest.ts";
import { effectiveChain } from "../catalog/tree-chain.ts";
import type { FrozenRefusal } from "../lock/frozen.ts";
import type { Skill } from "../skills/skill.ts";
import type { ToolDeps } from "./definition.ts";
import { errorResult } from "./results.ts";

export type Lookup = { skill: Skill; error?: undefined } | { skill?: undefined; error: CallToolResult };

/** How a family of tools words its misses: what the argument is, and where to look instead. */
export interface LookupWords {
  /** "No skill named 'x'." / "No skill at 'x'." */
  missing: (name: string) => string;
  /** Sentence ending the not-found message. */
  whereToLook: string;
  /** Sentence ending the disabled message. */
  pickAnother: string;
}

/** Seed 000's tools: skills by name, found with search_skills. */
export const BY_NAME: LookupWords = {
  missing: (name) => `No skill named '${name}'.`,
  whereToLook: "Use search_skills to find skills by topic.",
  pickAnother: "Pick an enabled skill with search_skills.",
};

/**
 * A name → an enabled skill of the current catalog, or the error result a
 * model can act on: SKILL_NOT_FOUND with close names, or SKILL_DISABLED.
 * Lookup is through the catalog's maps only: a name is never joined to a folder.
 */
export async function lookupSkill(name: string, deps: ToolDeps, words: LookupWords = BY_NAME): Promise<Lookup> {
  const skill = await deps.findSkill(name);
  if (!skill) return { error: notFound(name, deps, words) };
  if (!isEnabled(skill, deps.filter)) {
    return {
      error: errorResult(
        "SKILL_DISABLED",
        `Skill '${skill.name}' exists but is disabled on this server (${describeFilter(deps.filter)}). ${words.pickAnother}`,
        { skill: skill.name },
      ),
    };
  }
  const refused = frozenRefusal(skill, deps);
  if (refused) return { error: refused };
  return { skill };
}

/**
 * Frozen mode (issue 17): the one check that a skill's files still match
 * skillhub.lock, for every tool that serves a skill's content. undefined = serve it.
 */
export function frozenRefusal(skill: Skill, deps: ToolDeps): CallToolResult | undefined {
  if (!deps.frozen) return undefined;
  // A tree node serves its ancestors' content and files too: each of them must match the lock.
  const chain = skill.kind === "tree-node" ? effectiveChain(deps.store.catalog, skill).reverse() : [skill];
  const frozen = deps.frozen;
  const refusal = chain.reduce<FrozenRefusal | undefined>((found, node) => found ?? frozen.check(node), undefined);
  if (!refusal) return undefined;
  return errorResult(refusal.code, refusal.message, {
    skill: skill.name,
    ...(refusal.lockError ? { lock_error: refusal.lockError } : {}),
    changes: refusal.changes.map((c) => ({ kind: c.kind, file: c.file ?? null, detail: c.detail })),
  });
}

export function notFound(name: string, deps: ToolDeps, words: LookupWords = BY_NAME): CallToolResult {
  const enabled = deps.store.catalog.skills.filter((s) => isEnabled(s, deps.filter)).map((s) => s.name);
  const suggestions = closeNames(name, enabled);
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `'${s}'`).join(", ")}?` : "";
  return errorResult("SKILL_NOT_FOUND", `${words.missing(name)}${hint} ${words.whereToLook}`, { suggestions });
}
