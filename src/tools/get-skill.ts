import { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import { describeFilter } from "../catalog/filters.ts";
import { chainFiles } from "../catalog/tree-chain.ts";
import { resolveTreeContent } from "../catalog/tree-content.ts";
import { roundScore, type Scored } from "../search/keyword-matcher.ts";
import { skillBody } from "../skills/agent-skill.ts";
import type { Skill } from "../skills/skill.ts";
import { AssetDecl, ScriptDecl } from "../skills/tree-node.ts";
import { errnoCode, SkillHubError } from "../util/errors.ts";
import { isServable } from "./asset-read.ts";
import { defineTool, READ_ONLY } from "./definition.ts";
import { errorResult, structuredResult } from "./results.ts";
import { routeContext } from "./skill-routing.ts";
import { readSkillFileText, unreadableSkill } from "./skill-text.ts";

const Input = z
  .object({
    context: z
      .string()
      .trim()
      .min(1, "Describe the task in a few words")
      .max(2000)
      .describe(
        "Free-text description of the task, e.g. 'create a React form with validation'; or a skill_path from an earlier answer",
      ),
  })
  .strict();

const Candidate = z.object({
  skill_path: z.string().describe("Skill path (tree node) or name (Agent Skill)"),
  score: z.number().describe("Keyword score: matched keywords / keywords, plus priority × 0.001"),
  description: z.string(),
  matched_keywords: z.array(z.string()),
});

const Output = z.object({
  no_match: z.boolean().optional().describe("True when no skill scored min_score or more"),
  ambiguous: z.boolean().optional().describe("True when the top scores are closer than ambiguity_threshold"),
  candidates: z.array(Candidate).optional().describe("Ambiguous: the best candidates, highest score first"),
  closest: Candidate.optional().describe("No match: the best candidate below min_score, if any keyword matched at all"),
  message: z.string().optional(),
  skill_path: z.string().optional().describe("Match: the skill's path (tree node) or name (Agent Skill)"),
  kind: z.enum(["tree-node", "agent-skill"]).optional(),
  score: z.number().optional(),
  matched_keywords: z.array(z.string()).optional(),
  content: z
    .string()
    .optional()
    .describe("Match: the instructions, with inherited rules first under === headers === for a tree node"),
  assets: z.array(AssetDecl).optional().describe("Match: the node's own assets (fetch with get_asset)"),
  scripts: z.array(ScriptDecl).optional().describe("Match: the node's own scripts"),
  inherited_assets: z
    .array(AssetDecl.extend({ from: z.string() }))
    .optional()
    .describe("Assets of ancestors, most specific kept; `from` is their skill path"),
  inherited_scripts: z.array(ScriptDecl.extend({ from: z.string() })).optional(),
});

export const NO_MATCH_MESSAGE = "No skill matches the given context.";
export const AMBIGUOUS_MESSAGE = "Multiple skills match. Specify your need or pick a skill_path.";

/** Seed 003 §8.1: deterministic keyword routing to one skill, with its content, assets and scripts. */
export const getSkillTool = defineTool({
  name: "get_skill",
  title: "Get Skill for a Task",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Find the skill that fits a task by keyword matching (deterministic, no model involved) and return it. " +
    "Describe the task in a few words (English or French). A clear match returns the instructions in `content` " +
    "(a tree node's inherited rules first), plus its assets and scripts, own and inherited (`from`): fetch those with get_asset. " +
    "`ambiguous` lists candidates with descriptions: call again with a more specific context, or with a candidate's skill_path as the context. " +
    "`no_match` means no skill fits; list_skills shows what exists.",
  handler: async ({ context }, { deps }) => {
    const catalog = deps.store.catalog;
    const routed = routeContext(catalog, context, deps.filter, deps.config.matching);
    if (routed.kind === "no_match") {
      deps.track("no_match", { context });
      const closest = routed.closest ? { closest: candidate(routed.closest) } : {};
      return structuredResult({ no_match: true, message: NO_MATCH_MESSAGE, ...closest });
    }
    if (routed.kind === "disabled") {
      deps.track("no_match", { context });
      return errorResult(
        "SKILL_DISABLED",
        `Skill '${routed.skill.name}' exists but is disabled on this server (${describeFilter(deps.filter)}). Describe the task in words, or use list_skills to find an enabled skill.`,
        { skill: routed.skill.name },
      );
    }
    if (routed.kind === "ambiguous") {
      deps.track("ambiguous", { context, candidates: routed.candidates.map((c) => c.item.name) });
      return structuredResult({
        ambiguous: true,
        candidates: routed.candidates.map(candidate),
        message: AMBIGUOUS_MESSAGE,
      });
    }
    const best = routed.kind === "direct" ? { item: routed.skill, score: 1, matched: [] } : routed.best;
    let served: Record<string, unknown>;
    try {
      served = serve(catalog, best);
    } catch (error) {
      // Deleted or unreadable since the last scan: nothing to serve. Anything else is a bug.
      if (errnoCode(error) === undefined) throw error;
      if (error instanceof SkillHubError && error.code !== "FILE_NOT_FOUND")
        return unreadableSkill(
          best.item,
          { ok: false, code: error.code as "FILE_CHANGED", reason: error.message },
          deps,
        );
      deps.track("no_match", { context });
      return structuredResult({ no_match: true, message: NO_MATCH_MESSAGE });
    }
    deps.usage.set(best.item.id, (deps.usage.get(best.item.id) ?? 0) + 1);
    deps.track("skill_served", {
      context,
      skill_path: best.item.name,
      score: roundScore(best.score),
      matched_keywords: best.matched,
      was_ambiguous: false,
    });
    return structuredResult(served);
  },
});

function candidate(s: Scored<Skill>) {
  return {
    skill_path: s.item.name,
    score: roundScore(s.score),
    description: s.item.description,
    matched_keywords: s.matched,
  };
}

/** The single-match answer. Declared files missing on disk are left out (each has a diagnostic). */
function serve(catalog: Catalog, best: Scored<Skill>): Record<string, unknown> {
  const skill = best.item;
  const head = {
    skill_path: skill.name,
    kind: skill.kind,
    score: roundScore(best.score),
    matched_keywords: best.matched,
  };
  if (skill.kind !== "tree-node") {
    return {
      ...head,
      content: skillBody(servedText(skill)),
      assets: [],
      scripts: [],
      inherited_assets: [],
      inherited_scripts: [],
    };
  }
  const content = resolveTreeContent(catalog, skill);
  const files = chainFiles(catalog, skill);
  const ownerOf = (from: string | undefined) => (from === undefined ? skill : catalog.get(`${skill.source}:${from}`));
  const available = <T extends { file: string; from?: string }>(list: T[]) =>
    list.filter((d) => {
      const owner = ownerOf(d.from);
      return owner !== undefined && isServable(owner, d.file);
    });
  return {
    ...head,
    content,
    assets: available(files.assets),
    scripts: available(files.scripts),
    inherited_assets: available(files.inheritedAssets),
    inherited_scripts: available(files.inheritedScripts),
  };
}

/** SKILL.md through the confined reader; throws its code (caught by the handler) when it cannot be served. */
function servedText(skill: Skill): string {
  const read = readSkillFileText(skill);
  if (!read.ok) throw new SkillHubError(read.code, read.reason);
  return read.text;
}
