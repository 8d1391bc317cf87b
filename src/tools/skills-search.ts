import { z } from "zod";
import { isEnabled } from "../catalog/filters.ts";
import { checkedBody } from "../lock/checked-read.ts";
import { excerptAtToken } from "../search/excerpt.ts";
import { MAX_QUERY_CHARS } from "../search/text.ts";
import { plural } from "../util/plural.ts";
import { shownArg } from "../util/shown-arg.ts";
import { defineTool, READ_ONLY } from "./definition.ts";
import { structuredResult } from "./results.ts";
import { SkillSummary, summarise } from "./support/sk-summary.ts";

const Input = () =>
  z
    .object({
      query: z
        .string()
        .min(1)
        .max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters: give the keywords to match`)
        .describe("Keywords to match (all whitespace-separated tokens must be present)"),
      limit: z.number().int().min(1).max(25).default(10).describe("Maximum number of hits"),
    })
    .strict();

const Hit = () =>
  SkillSummary().extend({
    score: z.number().describe("Number of matched tokens"),
    excerpt: z.string().describe("About 160 characters around the first match"),
  });

/**
 * `skills.search` (profile `sk`): every whitespace-separated token
 * must appear in install name + metadata + body; deterministic, no fuzziness.
 */
export const skSearchTool = defineTool({
  name: "skills.search",
  title: "Search Skills by Keywords",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: () => z.object({ query: z.string(), limit: z.number(), total: z.number(), results: z.array(Hit()) }),
  description: () =>
    "Keyword search across install name, metadata and SKILL.md body; every token must be present. Use for targeted lookups.",
  handler: async ({ query, limit }, { deps }) => {
    // The disk as it is now: a stat of what the last scan saw (or the scan under way), then a
    // scan only if something was added, removed or edited.
    await deps.checkFresh();
    const tokens = query
      .toLowerCase()
      .split(/[ \t\n\r\f\v]+/)
      .filter(Boolean);
    const hits: (z.infer<ReturnType<typeof Hit>> & { inMeta: number })[] = [];
    for (const skill of deps.store.catalog.skills) {
      if (!isEnabled(skill, deps.filter)) continue;
      const summary = summarise(skill, deps.projectRoot.dir);
      const meta = `${summary.installName}\n${skill.name}\n${skill.description}`;
      // Frozen: only bytes whose digest the lock records (lock/checked-read.ts).
      const body = checkedBody(deps.frozen, skill) ?? "";
      const haystack = `${meta}\n${body}`.toLowerCase();
      if (tokens.length === 0 || !tokens.every((t) => haystack.includes(t))) continue;
      const metaLower = meta.toLowerCase();
      hits.push({
        ...summary,
        score: tokens.length,
        excerpt: excerptAtToken(`${meta}\n${body}`, tokens),
        inMeta: tokens.filter((t) => metaLower.includes(t)).length,
      });
    }
    // Equal scores by construction: skills matching in their metadata come first, then by name.
    hits.sort((a, b) => b.score - a.score || b.inMeta - a.inMeta || a.meta.name.localeCompare(b.meta.name));
    const results = hits.slice(0, limit).map(({ inMeta: _, ...hit }) => hit);
    const result = { query, limit, total: hits.length, results };
    const text = `${plural(hits.length, "skill")} ${hits.length === 1 ? "contains" : "contain"} every token of "${shownArg(query)}"${hits.length > limit ? `; showing ${limit}` : ""}.`;
    return structuredResult(result, `${text}\n\n${JSON.stringify(result, null, 2)}`);
  },
});
