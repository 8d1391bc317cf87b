import { z } from "zod";
import { isEnabled } from "../catalog/filters.ts";
import { FUZZY_MAX_DOCUMENTS } from "../search/index-settings.ts";
import { MAX_QUERY_CHARS } from "../search/text.ts";
import { whyMatched } from "../search/why-matched.ts";
import type { Skill } from "../skills/skill.ts";
import { nextTurn } from "../util/next-turn.ts";
import { defineTool, READ_ONLY, type ToolDeps } from "./definition.ts";
import { structuredResult } from "./results.ts";
import { skillExcerpt } from "./support/skill-excerpt.ts";
import { skillLocation } from "./support/skill-location.ts";

/** A ranking longer than this yields a turn before the excerpts (an 8 ms slice, as index updates take). */
const LONG_RANKING_MS = 8;

const Input = () =>
  z.object({
    query: z
      .string()
      .refine(
        (q) => q.trim().length > 0,
        "query must contain words describing the task, e.g. 'extract tables from a PDF'",
      )
      .max(
        MAX_QUERY_CHARS,
        `query must be at most ${MAX_QUERY_CHARS} characters: describe the task in a sentence or two`,
      )
      .describe("The task in your own words, as a sentence (e.g. 'extract invoice numbers from scanned PDF receipts')"),
    limit: z.number().int().min(1).max(100).optional().describe("Most results to return (default SEARCH_LIMIT, 10)"),
    category: z
      .string()
      .optional()
      .describe("Only skills in this category (metadata.skillhub.category, case-insensitive)"),
  });

const Hit = () =>
  z.object({
    name: z.string().describe("Skill name: pass it to load_skill or skill"),
    description: z.string(),
    score: z.number().describe("Relevance from 0 to 1"),
    category: z.string().optional(),
    tags: z.array(z.string()),
    location: z.string().describe("As the skill tool's <location>: project, global or hub"),
    excerpt: z.string().describe("About 160 characters around the best match"),
    matched: z
      .string()
      .optional()
      .describe(
        "Why it matched: the query's words found in the skill, by where (name, description, tags, category, " +
          "keywords, text), and 'similar in meaning' when embeddings found it",
      ),
  });

export const Output = () =>
  z.object({
    skills: z.array(Hit()),
    search_mode: z
      .enum(["fts", "vector", "hybrid"])
      .optional()
      .describe("Which search answered: fts (full text), vector (embeddings) or hybrid (both, fused)"),
    fallback_reason: z
      .string()
      .optional()
      .describe("Why full text answered although vector or hybrid search is configured"),
    partial: z
      .string()
      .optional()
      .describe("Set while the search index is still being built (a first start): what these results cover"),
  });

/** `search_skills`: ranked skills for a natural-language query. */
export const searchSkillsTool = defineTool({
  name: "search_skills",
  title: "Search Skills",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Find skills (expert instructions for specific tasks) relevant to a task. Describe the task in your own words, " +
    "as a sentence: what should be done, to what, with which tools or file types (not only a product name). Results " +
    "are ranked by relevance (score 0-1) with a short excerpt and what matched; check that the top one fits, then " +
    "load it with load_skill (or skill).",
  handler: async ({ query, limit, category }, { deps, session }) => {
    const wanted = category?.trim().toLowerCase();
    const started = performance.now();
    const { hits, mode, fallbackReason, partial } = await deps.search.query(
      query,
      {
        limit: limit ?? deps.config.search.limit,
        threshold: deps.config.search.threshold,
        accept: (s) => isEnabled(s, deps.filter) && (wanted === undefined || wanted === "" || s.category === wanted),
      },
      true,
    );
    // A long ranking (the first search after an index build runs cold: 40-50 ms in one piece at 10,000
    // skills, the worst call then) lets calls that came meanwhile in before the excerpts. Not every
    // search: a turn each cost 20 % of the throughput of concurrent searches over HTTP.
    if (performance.now() - started > LONG_RANKING_MS) await nextTurn();
    const explain = whyMatched(query, deps.search.status.documents <= FUZZY_MAX_DOCUMENTS);
    const skills = hits.map((hit) => {
      const why = explain(hit);
      return {
        name: hit.skill.name,
        description: hit.skill.description,
        score: hit.score,
        ...(hit.skill.category ? { category: hit.skill.category } : {}),
        tags: hit.skill.tags,
        location: skillLocation(hit.skill, deps.projectRoot.dir, session.remote),
        excerpt: excerptFor(hit.skill, hit.terms, deps),
        ...(why ? { matched: why } : {}),
      };
    });
    deps.track(
      "search",
      { tool: "search_skills", query, results: skills.length, top: skills[0]?.name ?? null },
      session.address,
    );
    const result = structuredResult({
      skills,
      search_mode: mode,
      ...(fallbackReason ? { fallback_reason: fallbackReason } : {}),
      ...(partial ? { partial } : {}),
    });
    const hint = skills.length === 0 && !partial ? nothingToFind(deps, wanted) : undefined;
    if (hint) result.content.push({ type: "text", text: hint });
    return result;
  },
});

/**
 * Why no search can find anything, when that is so: no skill is served, or none in the category asked for.
 * A second text block beside the JSON (the result's schema has no room left in tools/list).
 */
function nothingToFind(deps: ToolDeps, category: string | undefined): string | undefined {
  const served = deps.store.catalog.skills.filter((s) => isEnabled(s, deps.filter));
  if (served.length === 0)
    return "No skills are served here, so no search can find one: tell the user; `skillhub doctor` shows which folders are read.";
  if (!category) return undefined;
  const categories = [...new Set(served.flatMap((s) => (s.category ? [s.category] : [])))].sort();
  if (categories.includes(category)) return undefined;
  return categories.length === 0
    ? `No skill has a category, so none is in '${category}': search again without category.`
    : `No skill is in category '${category}'. Categories: ${categories.join(", ")}; or search again without category.`;
}

/** Frozen mode: only bytes whose digest the lock records reach an excerpt. */
function excerptFor(skill: Skill, terms: readonly string[], deps: ToolDeps): string {
  return skillExcerpt(skill, terms, deps.frozen);
}
