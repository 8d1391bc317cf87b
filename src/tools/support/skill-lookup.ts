import type { CallToolResult } from "@modelcontextprotocol/server";
import { describeFilter, filterActive, isEnabled } from "../../catalog/filters.ts";
import type { FrozenRefusal } from "../../lock/frozen.ts";
import type { Skill } from "../../skills/skill.ts";
import { closeNames } from "../../util/close-names.ts";
import type { ConfinedFailure } from "../../util/confined-read.ts";
import { shownArg, shownText } from "../../util/shown-arg.ts";
import type { EventType, ToolContext, ToolDeps } from "../definition.ts";
import { type ErrorCode, errorResult } from "../results.ts";

export type Lookup = { skill: Skill; error?: undefined } | { skill?: undefined; error: CallToolResult };

/** How a family of tools words its misses: what the argument is, and where to look instead. */
export interface LookupWords {
  /** "No skill named 'x'." / "No skill at 'x'.", given the name as answers show it (shownArg). */
  missing: (shown: string) => string;
  /** Sentence ending the not-found message. */
  whereToLook: string;
  /** Sentence ending the disabled message. */
  pickAnother: string;
  /** A family whose not-found answer is more than a sentence (the `skill` tool lists the skills) gives it here. */
  notFound?: (name: string, deps: ToolDeps) => CallToolResult;
}

/** The hub tools: skills by name, found with search_skills. */
export const BY_NAME: LookupWords = {
  missing: (name) => `No skill named '${name}'.`,
  whereToLook: "Use search_skills to find skills by topic.",
  pickAnother: "Pick an enabled skill with search_skills.",
};

/** What is about to run in a skill's folder: one of its declared scripts (run_script) or any command. */
export type Runs = "script" | "command";

/**
 * A name → an enabled skill of the current catalog that matches the lock in
 * frozen mode, or the error result a model can act on: SKILL_NOT_FOUND with
 * close names, SKILL_DISABLED, or the frozen refusal. Every tool family looks
 * skills up here. Lookup is through the catalog's maps only: a name is never
 * joined to a folder.
 */
export async function lookupSkill(
  name: string,
  deps: ToolDeps,
  words: LookupWords = BY_NAME,
  options: { runs?: Runs } = {},
): Promise<Lookup> {
  const skill = await deps.findSkill(name);
  if (!skill) return { error: notFound(name, deps, words) };
  const refused = frozenRefusal(skill, deps, options.runs);
  if (refused) return { error: refused };
  if (!isEnabled(skill, deps.filter)) return { error: disabledError(skill, deps, words.pickAnother) };
  return { skill };
}

/**
 * SKILL_DISABLED: the one wording of "exists but is disabled", with the filter that hides it and what to
 * do instead; in frozen mode, a skill the lock refuses answers with that refusal (a hidden skill is
 * hidden by the lock, not by the filter).
 */
export function disabledError(
  skill: Skill,
  deps: Pick<ToolDeps, "filter" | "frozen" | "store">,
  pickAnother?: string,
): CallToolResult {
  const refused = frozenRefusal(skill, deps);
  if (refused) return refused;
  const then = pickAnother ? ` ${pickAnother}` : "";
  return errorResult(
    "SKILL_DISABLED",
    `Skill '${skill.name}' exists but is disabled on this server (${describeFilter(deps.filter)}).${then}`,
    { skill: skill.name },
  );
}

/**
 * Frozen mode: whether the lock vouches for `skill` (its entry, and the bytes its name and description
 * were parsed from; lock/frozen.ts), as the error result a model can act on; undefined = serve it.
 * `runs`: code of the skill is about to run (a declared script, or any command), so every file of it on
 * disk is compared with the lock too.
 * The bytes a tool then serves are checked as they are read (lock/checked-read.ts).
 */
export function frozenRefusal(
  skill: Skill,
  deps: Pick<ToolDeps, "frozen" | "store">,
  runs?: Runs,
): CallToolResult | undefined {
  const catalog = deps.store.catalog;
  const refusal = runs ? deps.frozen?.checkWhole(skill, catalog, runs) : deps.frozen?.check(skill, catalog);
  return refusal && refusalResult(skill, refusal);
}

/** A frozen refusal as a tool result: its code, its sentence, the lock error and the differences. */
export function refusalResult(skill: Skill, refusal: FrozenRefusal): CallToolResult {
  return errorResult(refusal.code, refusal.message, {
    skill: skill.name,
    ...(refusal.lockError ? { lock_error: refusal.lockError } : {}),
    changes: refusal.changes.map((c) => ({ kind: c.kind, file: c.file ?? null, detail: c.detail })),
  });
}

/** SKILL_NOT_FOUND in the family's words (close names first), naming what was asked once, as shownArg shows it. */
export function notFound(name: string, deps: ToolDeps, words: LookupWords = BY_NAME): CallToolResult {
  if (words.notFound) return words.notFound(name, deps);
  const enabled = deps.store.catalog.skills.filter((s) => isEnabled(s, deps.filter)).map((s) => s.name);
  const suggestions = closeNames(name, enabled);
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `'${s}'`).join(", ")}?` : "";
  const broken = brokenFolder(name, deps);
  return errorResult(
    "SKILL_NOT_FOUND",
    `${words.missing(shownArg(name))}${broken?.sentence ?? ""}${hint} ${words.whereToLook}`,
    { suggestions, ...broken?.fields },
  );
}

/**
 * A not-found answer's sentence when a folder of that name holds a SKILL.md with an error (Catalog.unservedFolder):
 * the error, and how to fix it, for the author who just wrote the file. Not on a server whose filters or lock
 * choose what a model may see: there a folder no one enabled stays unnamed.
 */
export function brokenFolder(name: string, deps: Pick<ToolDeps, "store" | "filter">) {
  if (filterActive(deps.filter) || deps.filter.locked) return undefined;
  const d = deps.store.catalog.unservedFolder(name);
  if (!d) return undefined;
  return {
    sentence: ` A folder of that name holds a SKILL.md with an error (${d.code}): ${shownText(d.message)} Fix the file; \`skillhub doctor\` lists every problem.`,
    fields: { problem: d.code },
  };
}

/**
 * The bookkeeping of a served skill: its load count in this client's usage (its lists put the most used
 * first) and the analytics event. `tool` alone records `skill_loaded` for that tool.
 */
export function recordLoad(
  { deps, session }: Pick<ToolContext, "deps" | "session">,
  skill: Skill,
  event: string | { type: EventType; data: Record<string, unknown> },
): void {
  session.usage.record(skill.id);
  if (typeof event === "string")
    deps.track("skill_loaded", { tool: event, skill: skill.name, source: skill.source }, session.address);
  else deps.track(event.type, event.data, session.address);
}

/**
 * A failed read of a found skill: deleted since the scan, it is not found, and said to be gone (the catalog
 * still lists it until the rescan this starts, so a not-found answer naming close names would offer it
 * back), naming it once; anything else as unreadableSkill.
 */
export function readFailure(
  skill: Skill,
  failure: ConfinedFailure,
  deps: ToolDeps,
  words: LookupWords = BY_NAME,
): CallToolResult {
  if (failure.code !== "FILE_NOT_FOUND") return unreadableSkill(skill, failure, deps);
  void deps.ensureFresh(0).catch(() => undefined);
  return errorResult(
    "SKILL_NOT_FOUND",
    `Skill '${shownArg(skill.name)}' not found: it was removed from the server since its last scan, which is running now. ${words.whereToLook}`,
    { skill: skill.name, suggestions: [] },
  );
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
