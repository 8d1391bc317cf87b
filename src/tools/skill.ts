import { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled } from "../catalog/filters.ts";
import { checkedInstructions, checkedSkillText, isRefused } from "../lock/checked-read.ts";
import type { Skill } from "../skills/skill.ts";
import { pickedSkills } from "../usage/picked.ts";
import { closeNames } from "../util/close-names.ts";
import { shownArg } from "../util/shown-arg.ts";
import { defineTool, READ_ONLY, type ToolContext, type ToolDeps } from "./definition.ts";
import { errorResult, textResult } from "./results.ts";
import { isClaudeCode } from "./support/result-budget.ts";
import {
  CLAUDE_CODE_BUDGET,
  DEFAULT_BUDGET,
  oneLine,
  renderSkillToolDescription,
  truncate,
} from "./support/skill-catalog.ts";
import { skillLocation } from "./support/skill-location.ts";
import {
  BY_NAME,
  brokenFolder,
  type LookupWords,
  lookupSkill,
  readFailure,
  recordLoad,
  refusalResult,
} from "./support/skill-lookup.ts";
import { skillAnswer } from "./support/skill-parts.ts";

/**
 * The skill tool's `name`, plus `command` as an alias: this tool's well-known description
 * shows calls as `command: "pdf"`, and models copy it.
 */
const Input = () =>
  z
    .object({
      name: z
        .string()
        .min(1, "Skill name cannot be empty")
        .optional()
        .describe("Name of the skill to load (case-insensitive)"),
      command: z
        .string()
        .min(1, "Skill name cannot be empty")
        .optional()
        .describe("Same as name (the form other skill tools use); give one of the two"),
    })
    .strict()
    .refine((a) => a.name !== undefined || a.command !== undefined, {
      message: "give the skill's name in `name` (or `command`)",
      path: ["name"],
    })
    .refine((a) => a.name === undefined || a.command === undefined || same(a.name, a.command), {
      message: "`name` and `command` name different skills; give one of them",
      path: ["command"],
    });

/** Names match case-insensitively. */
function same(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** The description's template promises this line when a skill loads; it follows the "Loading: …" text. */
export function commandMessage(name: string): string {
  return `<command-message>The "${name}" skill is loading</command-message>`;
}

/** Most entries in the not-found listing; the rest are counted. */
const NOT_FOUND_LIST_MAX = 40;

/** The `skill` tool: the description lists the skills; a call returns one SKILL.md. */
export const skillTool = defineTool({
  name: "skill",
  title: "Load Skill",
  annotations: READ_ONLY,
  inputSchema: Input,
  description: (catalog, ctx) => {
    const budget = ctx.deps.config.server.catalog_budget ?? defaultBudget(ctx);
    // Tree nodes are routed by get_skill when it is offered; listing _root and _index nodes here would be noise.
    const routed = ctx.hasTool?.("get_skill") ?? false;
    return renderSkillToolDescription(
      enabledSkills(catalog, ctx.deps).filter((s) => !routed || s.kind !== "tree-node"),
      {
        budget,
        // The pick is of the hub's current catalog: the listing's own catalog decides what is listed.
        ranked: () => pickedSkills(ctx.deps, ctx.session.usage),
        hasSearch: ctx.hasTool?.("search_skills") ?? false,
        location: (s) => skillLocation(s, ctx.deps.projectRoot.dir, ctx.session.remote),
        pending: ctx.deps.catalogPending,
        qualifiedExample: catalog.shadowed.find(({ skill }) => isEnabled(skill, ctx.deps.filter))?.skill.id,
      },
    );
  },
  handler: async (args, ctx) => {
    const { deps } = ctx;
    const name = (args.name ?? args.command) as string;
    const hasSearch = ctx.hasTool?.("search_skills") ?? false;
    const missing = (requested: string) => notFound(requested, deps.store.catalog, deps, hasSearch);
    const words: LookupWords = {
      ...BY_NAME,
      pickAnother: "Use one of the enabled skills listed in this tool's description.",
      ...(hasSearch ? {} : { whereToLook: "Use one of the skills listed in this tool's description." }),
      notFound: missing,
    };
    const { skill, error } = await lookupSkill(name, deps, words);
    if (error) return error;
    // A tree node loads with its inherited content; an Agent Skill as its SKILL.md, verbatim.
    // Read once; frozen, served only when the lock records the digest of these very bytes.
    const read =
      skill.kind === "tree-node"
        ? checkedInstructions(deps.frozen, deps.store.catalog, skill)
        : checkedSkillText(deps.frozen, skill);
    if (isRefused(read)) return refusalResult(skill, read.refused);
    // Deleted since the last scan: not found, and said to be gone (a rescan starts).
    if (!read.ok) return readFailure(skill, read, deps, words);
    const text = read.text;
    recordLoad(ctx, skill, "skill");
    // The "Loading: …" text stays the first (and, for clients that read one, the only) content item; the
    // description's promise of a <command-message> is kept by a second one. Both count against what the
    // client shows at once: a longer SKILL.md is served in parts (support/skill-parts.ts).
    const message = commandMessage(skill.name);
    const result = textResult(skillAnswer(skill, text, ctx, message.length));
    return { ...result, content: [...result.content, { type: "text", text: message }] };
  },
});

/**
 * 2,000 characters for Claude Code (it cuts descriptions at 2,048); else 6,000, less when the other
 * tools leave less room under the tools/list budget (never under 2,000). When the other tools alone fill
 * that budget (the tree tools do), no catalog keeps the list under it: the catalog gets 3,000, room past
 * its fixed text for about ten skills' whole descriptions.
 */
function defaultBudget(ctx: ToolContext): number {
  if (isClaudeCode(ctx.session.clientName())) return CLAUDE_CODE_BUDGET;
  if (ctx.room !== undefined && ctx.room <= 0) return OVER_BUDGET_CATALOG;
  const room = ctx.room === undefined ? DEFAULT_BUDGET : ctx.room - SKILL_TOOL_OVERHEAD;
  return Math.max(CLAUDE_CODE_BUDGET, Math.min(DEFAULT_BUDGET, room));
}

/** The catalog's budget when the other tools alone fill the tools/list budget. */
const OVER_BUDGET_CATALOG = 3000;

/** The skill tool's definition besides its description (name, title, schema, annotations), in bytes. */
const SKILL_TOOL_OVERHEAD = 600;

export function enabledSkills(catalog: Catalog, deps: Pick<ToolDeps, "filter">): Skill[] {
  return catalog.skills.filter((s) => isEnabled(s, deps.filter));
}

/** The skill tool's not-found text: the name said once, as shownArg shows it; close matches first. */
function notFound(requested: string, catalog: Catalog, deps: ToolDeps, hasSearch: boolean) {
  const skills = enabledSkills(catalog, deps);
  const close = closeNames(
    requested,
    skills.map((s) => s.name),
  );
  const byName = new Map(skills.map((s) => [s.name, s]));
  const ordered = [...close.map((n) => byName.get(n) as Skill), ...skills.filter((s) => !close.includes(s.name))];
  const shown = ordered
    .slice(0, NOT_FOUND_LIST_MAX)
    .map((s) => `- ${s.name}: ${truncate(oneLine(s.description), 120)}`);
  if (ordered.length > shown.length)
    shown.push(
      `- …and ${ordered.length - shown.length} more${hasSearch ? " (search_skills finds them by topic)" : ""}`,
    );
  if (shown.length === 0) shown.push("- (none: no skills are installed; see `skillhub doctor`)");
  const broken = brokenFolder(requested, deps);
  const missing = `Skill '${shownArg(requested)}' not found.${broken?.sentence ?? ""}`;
  const text = `${missing}\n\nAvailable skills:\n${shown.join("\n")}\n\nUse the exact skill name (case-insensitive) to load a skill.`;
  return errorResult("SKILL_NOT_FOUND", missing, { suggestions: close, ...broken?.fields }, text);
}
