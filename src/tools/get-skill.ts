import { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled } from "../catalog/filters.ts";
import { type BudgetCut, CHARS_PER_TOKEN, estimateTokens, fitSections } from "../catalog/tree-budget.ts";
import { chainFiles } from "../catalog/tree-chain.ts";
import { type ContentSection, renderSections } from "../catalog/tree-content.ts";
import type { Config } from "../config/schema.ts";
import { checkedSections, isRefused } from "../lock/checked-read.ts";
import { roundScore, type Scored } from "../search/keyword-matcher.ts";
import { isRouted, routeContext } from "../search/skill-routing.ts";
import type { Skill } from "../skills/skill.ts";
import { AssetDecl, ScriptDecl } from "../skills/tree-node.ts";
import type { ConfinedFailure } from "../util/confined-read.ts";
import { errnoCode, SkillHubError } from "../util/errors.ts";
import {
  type AnswerBound,
  defineTool,
  READ_ONLY,
  type ToolContext,
  type ToolDeps,
  withinAnswerBudget,
} from "./definition.ts";
import { jsonTextHandler, structuredResult } from "./results.ts";
import { servableSizes } from "./support/asset-read.ts";
import {
  type AssetSource,
  inlineAssets,
  type ListedAsset,
  MAX_INLINED_ASSETS,
  type Unsent,
} from "./support/inlined-assets.ts";
import { resultBudget } from "./support/result-budget.ts";
import { commandLine, optionalArgs } from "./support/run-yourself.ts";
import { downloadAdvice } from "./support/skill-archive.ts";
import { exampleFile } from "./support/skill-file-list.ts";
import { disabledError, frozenRefusal, recordLoad, refusalResult, unreadableSkill } from "./support/skill-lookup.ts";
import { fetchAdvice, skillPlace } from "./support/skill-place.ts";

const Input = () =>
  z
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

const Candidate = () =>
  z.object({
    skill_path: z.string().describe("Skill path (tree node) or name (Agent Skill)"),
    score: z.number().describe("Keyword score: matched keywords / keywords, plus priority × 0.001"),
    description: z.string(),
    matched_keywords: z.array(z.string()),
  });

/** A declared file's skill:// URI, for a client on another machine. */
const fileUri = () =>
  z
    .string()
    .optional()
    .describe("For a client on another machine: the file's skill:// URI (read_skill_file and resources/read take it)");

const InlinedAsset = () =>
  AssetDecl().extend({
    uri: fileUri(),
    content: z
      .string()
      .optional()
      .describe(
        "Text assets up to assets.inline_text_max_bytes (10 KiB by default): the content, so no get_asset is needed",
      ),
    size_bytes: z.number().int().optional().describe("Bytes of a text asset not inlined for want of room"),
  });

const Output = () => {
  const candidate = Candidate();
  const inlinedAsset = InlinedAsset();
  return z.object({
    no_match: z.boolean().optional().describe("True when no skill scored min_score or more"),
    ambiguous: z.boolean().optional().describe("True when the top scores are closer than ambiguity_threshold"),
    candidates: z.array(candidate).optional().describe("Ambiguous: the best candidates, highest score first"),
    closest: candidate
      .optional()
      .describe("No match: the best candidate below min_score, if any keyword matched at all"),
    message: z.string().optional(),
    hint: z
      .string()
      .optional()
      .describe("No match: where else to look (Agent Skills are found with search_skills, not routed here)"),
    skill_path: z.string().optional().describe("Match: the skill's path (tree node) or name (Agent Skill)"),
    kind: z.enum(["tree-node", "agent-skill"]).optional(),
    score: z.number().optional(),
    matched_keywords: z.array(z.string()).optional(),
    content: z
      .string()
      .optional()
      .describe("Match: the instructions, with inherited rules first under === headers === for a tree node"),
    content_length_tokens: z
      .number()
      .int()
      .optional()
      .describe("Match: estimated tokens of `content` as returned (characters / 4)"),
    truncated: z.boolean().optional().describe("Match: true when `content` was cut to content.max_tokens"),
    warning: z.string().optional().describe("Match: what was cut and why, when `truncated`"),
    assets: z
      .array(inlinedAsset)
      .optional()
      .describe("Match: the node's own assets (fetch with get_asset; small text ones carry `content`)"),
    scripts: z
      .array(ScriptDecl().extend({ uri: fileUri() }))
      .optional()
      .describe("Match: the node's own scripts"),
    inherited_assets: z
      .array(inlinedAsset.extend({ from: z.string() }))
      .optional()
      .describe("Assets of ancestors, most specific kept; `from` is their skill path"),
    inherited_scripts: z.array(ScriptDecl().extend({ from: z.string(), uri: fileUri() })).optional(),
    assets_note: z
      .string()
      .optional()
      .describe("Match: the text assets not inlined for want of room, and how to read them"),
    fetch: z
      .string()
      .optional()
      .describe("For a client on another machine: how to fetch the files, and how to run a script locally"),
  });
};

export const NO_MATCH_MESSAGE = "No skill matches the given context.";
export const AMBIGUOUS_MESSAGE = "Multiple skills match. Specify your need or pick a skill_path.";

/** Deterministic keyword routing to one skill, with its content, assets and scripts. */
export const getSkillTool = defineTool({
  name: "get_skill",
  title: "Get Skill for a Task",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Find the skill-tree node whose declared keywords fit a task (deterministic, no model) and return it. " +
    "Describe the task in a few words (English or French). A clear match returns the instructions in `content` " +
    "(inherited rules first), plus its assets and scripts, own and inherited (`from`): fetch those with get_asset. " +
    "`ambiguous` lists candidates: call again with a more specific context, or a candidate's skill_path. " +
    "`no_match`: no node fits; list_skills shows the tree. Agent Skills are found with search_skills, not here.",
  handler: jsonTextHandler(async ({ context }, ctx) => {
    const { deps, hasTool } = ctx;
    const catalog = deps.store.catalog;
    const routed = routeContext(catalog, context, deps.filter, deps.config.matching);
    if (routed.kind === "no_match") {
      deps.track(
        "no_match",
        {
          context,
          // The nearest miss tells the team which keywords to add.
          closest_candidate: routed.closest?.item.name ?? null,
          closest_score: routed.closest ? roundScore(routed.closest.score) : null,
        },
        ctx.session.address,
      );
      const closest = routed.closest ? { closest: candidate(routed.closest) } : {};
      return structuredResult({
        no_match: true,
        message: NO_MATCH_MESSAGE,
        ...closest,
        ...agentSkillHint(catalog, deps, hasTool?.("search_skills") ?? false),
      });
    }
    if (routed.kind === "disabled") {
      deps.track("no_match", { context }, ctx.session.address);
      return disabledError(
        routed.skill,
        deps,
        "Describe the task in words, or use list_skills to find an enabled skill.",
      );
    }
    if (routed.kind === "ambiguous") {
      deps.track("ambiguous", { context, candidates: routed.candidates.map((c) => c.item.name) }, ctx.session.address);
      return structuredResult({
        ambiguous: true,
        candidates: routed.candidates.map(candidate),
        message: AMBIGUOUS_MESSAGE,
      });
    }
    const best = routed.kind === "direct" ? { item: routed.skill, score: 1, matched: [] } : routed.best;
    const refused = frozenRefusal(best.item, deps);
    if (refused) return refused;
    // Every node's file read once; frozen, served only when the lock records those very bytes.
    const sections = checkedSections(deps.frozen, catalog, best.item);
    if (isRefused(sections)) return refusalResult(best.item, sections.refused);
    let served: Served;
    try {
      // Security: over HTTP, each inlined asset counts against the answers held at once before it is read.
      const built = await withinAnswerBudget(ctx, (bound) => {
        const listed = serve(catalog, best, deps.config, sections);
        const result = ctx.session.remote ? withUris(listed.result, best.item, ctx) : listed.result;
        return { ...listed, result: withInlinedAssets(result, listed.sources, best.item, ctx, bound) };
      });
      if ("refused" in built) return built.refused;
      served = built.value;
    } catch (error) {
      // Deleted or unreadable since the last scan: nothing to serve. Anything else is a bug.
      if (errnoCode(error) === undefined) throw error;
      if (error instanceof SkillHubError && error.code !== "FILE_NOT_FOUND")
        return unreadableSkill(
          best.item,
          { ok: false, code: error.code as "FILE_CHANGED", reason: error.message },
          deps,
        );
      deps.track("no_match", { context }, ctx.session.address);
      return structuredResult({ no_match: true, message: NO_MATCH_MESSAGE });
    }
    recordLoad(ctx, best.item, {
      type: "skill_served",
      data: {
        context,
        skill_path: best.item.name,
        score: roundScore(best.score),
        matched_keywords: best.matched,
        was_ambiguous: false,
        inherited_from: served.inheritedFrom,
        content_length_tokens: served.result.content_length_tokens,
      },
    });
    return structuredResult(served.result);
  }),
});

/** No match while Agent Skills are served: they are not routed by keywords (skill-routing.ts), so say where they are. */
function agentSkillHint(catalog: Catalog, deps: ToolDeps, hasSearch: boolean): { hint?: string } {
  const count = catalog.skills.filter((s) => !isRouted(s) && isEnabled(s, deps.filter)).length;
  if (count === 0) return {};
  const how = hasSearch
    ? "find one by topic with search_skills, or pass its exact name as the context"
    : "pass its exact name as the context";
  return {
    hint: `get_skill routes by the keywords of skill-tree nodes only. ${count} Agent Skill${count === 1 ? "" : "s"} (SKILL.md) ${count === 1 ? "is" : "are"} served too: ${how}.`,
  };
}

const FILE_LISTS = ["assets", "scripts", "inherited_assets", "inherited_scripts"] as const;

/**
 * The answer for a client on another machine: each declared file with its skill:// URI under the node's
 * (an inherited one too: the node's URI serves it as get_asset does), and how to fetch them.
 */
function withUris(result: Served["result"], skill: Skill, ctx: ToolContext): Served["result"] {
  const place = skillPlace(skill, ctx);
  const out: Served["result"] = { ...result };
  const files: string[] = [];
  for (const key of FILE_LISTS) {
    const list = result[key] as { file: string }[] | undefined;
    if (!list) continue;
    out[key] = list.map((d) => ({ ...d, uri: place.uri(d.file) }));
    files.push(...list.map((d) => d.file));
  }
  if (files.length === 0) return out;
  const scripts = [...((result.scripts ?? []) as ScriptDecl[]), ...((result.inherited_scripts ?? []) as ScriptDecl[])];
  const onServer =
    ctx.hasTool?.("run_script") && scripts.some((d) => d.execution === "server")
      ? " A script with execution 'server' runs on the server with run_script instead, where a path among its arguments names a file of the server, not yours."
      : "";
  const yours = scripts.find((d) => d.execution !== "server" && d.args.length > 0);
  const download = downloadAdvice(skill, ctx);
  // The download's sentence shows the command with its arguments already.
  const withArgs =
    yours && !download?.offered
      ? ` A script reads its arguments from environment variables, e.g. ${commandLine(yours, yours.file)}.${optionalArgs(yours)}`
      : "";
  return { ...out, fetch: fetchAdvice(skill, place, ctx, exampleFile(files), download?.text) + withArgs + onServer };
}

function candidate(s: Scored<Skill>) {
  return {
    skill_path: s.item.name,
    score: roundScore(s.score),
    description: s.item.description,
    matched_keywords: s.matched,
  };
}

interface Served {
  result: Record<string, unknown> & { content_length_tokens: number };
  /** Skill paths whose content was included before the node's own, most general first. */
  inheritedFrom: string[];
}

/** The answer's asset lists without contents, with where each entry's bytes are (same order). */
interface Listed extends Served {
  sources: { assets: AssetSource[]; inherited_assets: AssetSource[] };
}

/**
 * The single-match answer, its assets listed without their contents (withInlinedAssets adds them).
 * Declared files missing on disk are left out (each has a diagnostic); content over content.max_tokens is
 * cut, the node's own rules kept first (tree-budget.ts).
 */
function serve(
  catalog: Catalog,
  best: Scored<Skill>,
  config: Config,
  read: ReturnType<typeof checkedSections>,
): Listed {
  const skill = best.item;
  if (!read.ok) {
    const failure = read as ConfinedFailure;
    throw new SkillHubError(failure.code, failure.reason);
  }
  const resolved = { sections: read.sections, headed: read.headed };
  // What rendering adds around the bodies (=== headers ===, blank lines) counts against the limit too.
  const overhead = resolved.headed
    ? renderSections({ ...resolved, sections: resolved.sections.map((x) => ({ ...x, body: "" })) }).length
    : 0;
  const fitted = fitSections(resolved.sections, config.content.max_tokens * CHARS_PER_TOKEN, overhead);
  const content = renderSections({ sections: fitted.sections, headed: resolved.headed });
  const ownPath = skill.name;
  const inheritedFrom = resolved.headed ? resolved.sections.map((s) => s.path).filter((p) => p !== ownPath) : [];
  const head = {
    skill_path: skill.name,
    kind: skill.kind,
    score: roundScore(best.score),
    matched_keywords: best.matched,
    content,
    content_length_tokens: estimateTokens(content),
    ...(fitted.cuts.length > 0
      ? { truncated: true, warning: truncationWarning(resolved.sections, fitted.cuts, config) }
      : {}),
  };
  if (skill.kind !== "tree-node") {
    return {
      result: { ...head, assets: [], scripts: [], inherited_assets: [], inherited_scripts: [] },
      inheritedFrom,
      sources: { assets: [], inherited_assets: [] },
    };
  }
  const files = chainFiles(catalog, skill);
  const ownerOf = (from: string | undefined) => (from === undefined ? skill : catalog.get(`${skill.source}:${from}`));
  const sizers = new Map<Skill, (file: string) => number | undefined>();
  const sizeOf = (owner: Skill, file: string) => {
    const sizer = sizers.get(owner) ?? servableSizes(owner);
    sizers.set(owner, sizer);
    return sizer(file);
  };
  const available = <T extends { file: string; from?: string }>(list: T[]) => {
    const kept: T[] = [];
    const sources: AssetSource[] = [];
    for (const d of list) {
      const owner = ownerOf(d.from);
      const size = owner && sizeOf(owner, d.file);
      if (owner === undefined || size === undefined) continue;
      kept.push(d);
      sources.push({ owner, size });
    }
    return { kept, sources };
  };
  const assets = available(files.assets);
  const inherited = available(files.inheritedAssets);
  return {
    result: {
      ...head,
      assets: assets.kept,
      scripts: available(files.scripts).kept,
      inherited_assets: inherited.kept,
      inherited_scripts: available(files.inheritedScripts).kept,
    },
    inheritedFrom,
    sources: { assets: assets.sources, inherited_assets: inherited.sources },
  };
}

/**
 * `assets.inline_text_max_bytes`: a declared text asset up to that size comes with its content, while the
 * contents fit the client's result budget (support/inlined-assets.ts); larger or binary ones, and those
 * past the budget, are fetched with get_asset. Read through the same bounded, confined reader as get_asset,
 * each told to `bound` before it is read (readAsset); frozen, only bytes the lock records.
 */
function withInlinedAssets(
  result: Served["result"],
  sources: Listed["sources"],
  skill: Skill,
  ctx: ToolContext,
  bound: AnswerBound | undefined,
): Served["result"] {
  const list = (key: keyof Listed["sources"]) => ({
    entries: (result[key] ?? []) as ListedAsset[],
    sources: sources[key],
  });
  const room = resultBudget(ctx);
  const inlined = inlineAssets([list("assets"), list("inherited_assets")], {
    maxBytes: ctx.deps.config.assets.inline_text_max_bytes,
    room,
    frozen: ctx.deps.frozen,
    bound,
  });
  const [assets, inheritedAssets] = inlined.lists;
  return {
    ...result,
    assets,
    inherited_assets: inheritedAssets,
    ...(inlined.unsent ? { assets_note: unsentNote(inlined.unsent, room, skill, ctx) } : {}),
  };
}

/** What came without content for want of room, and the ways this client has to read it. */
function unsentNote(unsent: Unsent, room: number, skill: Skill, ctx: ToolContext): string {
  const place = skillPlace(skill, ctx);
  const ways: string[] = [];
  if (ctx.hasTool?.("get_asset")) ways.push(`get_asset (skill_path "${place.name}", file: the asset's file)`);
  if (ctx.hasTool?.("read_skill_file")) ways.push(`read_skill_file (skill_name "${place.name}", file_path: its file)`);
  ways.push(
    place.remote ? "resources/read of its uri" : "your file reader, in the resource folder of the node declaring it",
  );
  const one = unsent.count === 1;
  return `${unsent.count} small text asset${one ? "" : "s"} (${unsent.bytes} bytes) came without ${one ? "its" : "their"} content, listed with size_bytes: the assets inlined in one answer hold at most ${room} characters (server.result_budget) and ${MAX_INLINED_ASSETS} files. Read ${one ? "it" : "each"} with ${ways.join(", or ")}.`;
}

function truncationWarning(sections: readonly ContentSection[], cuts: readonly BudgetCut[], config: Config): string {
  const total = estimateTokens(sections.map((s) => s.body).join(""));
  const what = cuts
    .map((c) => (c.kept === 0 ? `${c.rel} left out` : `${c.rel} cut to ${c.kept} of ${c.total} characters`))
    .join("; ");
  return `Content truncated: about ${total} tokens (estimated as characters / 4) is over the limit of ${config.content.max_tokens} (content.max_tokens). The skill's own rules are kept first, then its nearest parents; ${what}.`;
}
