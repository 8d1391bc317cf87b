import { basename, relative } from "node:path";
import { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import { describeFilter, isEnabled, type SkillFilter } from "../catalog/filters.ts";
import { buildSkillTree } from "../catalog/tree-listing.ts";
import type { Skill } from "../skills/skill.ts";
import { defineTool, READ_ONLY } from "./definition.ts";
import { errorResult, structuredResult } from "./results.ts";
import { readSkillBody } from "./skill-text.ts";

const Input = z
  .object({
    path: z
      .string()
      .optional()
      .describe(
        "Skill-tree mode: a sub-tree to show, e.g. 'ui' or 'api/_index'; '' or '/' for every tree. Leave out for the flat list of all skills",
      ),
    query: z
      .string()
      .optional()
      .describe("Flat mode: case-insensitive substring filter on folder name, name and description"),
    include_body: z
      .boolean()
      .optional()
      .describe("Flat mode: include each skill's Markdown body (without frontmatter). Default false"),
  })
  .strict();

const Entry = z.object({
  name: z.string().describe("Name to load the skill by (a tree node's skill path)"),
  description: z.string(),
  location: z.enum(["explicit", "project", "global", "remote"]),
  source: z.string().describe("Label of the folder it comes from (project, global, dir1, …)"),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  path: z.string().describe("Path under its source folder: the skill's folder, or a tree node's skill path"),
  file: z.string().describe("Absolute path of SKILL.md or of the node's .md file"),
  kind: z.enum(["agent-skill", "tree-node"]),
  shadowed: z
    .boolean()
    .describe("True when a skill of the same name in an earlier folder wins; load it by qualified_name"),
  shadowed_by: z.string().optional().describe("Qualified name of the skill that wins"),
  qualified_name: z.string().describe("<source>:<name>, always unique"),
  body: z.string().optional(),
});

const TreeNode = z.object({
  name: z.string(),
  path: z.string().describe("Skill path, for get_skill and get_asset"),
  description: z.string(),
  keywords: z.array(z.string()),
  assetCount: z.number().int(),
  scriptCount: z.number().int(),
  children: z.array(z.record(z.string(), z.unknown())).describe("Child nodes, same shape"),
});

const Output = z.object({
  skills: z.array(Entry).optional().describe("Flat mode: served skills, then shadowed ones"),
  total: z.number().int().optional().describe("Flat mode: number of entries"),
  tree: TreeNode.optional().describe("Tree mode: the (sub-)tree"),
  diagnostics: z
    .object({ errors: z.number().int(), warnings: z.number().int() })
    .describe("Problems found while reading skills (skillhub doctor lists them)"),
});

/** Seed 001 `skills.list` semantics without `path`; seed 003 §8.2's tree with `path`. */
export const listSkillsTool = defineTool({
  name: "list_skills",
  title: "List Skills",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "List the skills this server offers. Without `path`: a flat list of every skill (name, description, location, source, " +
    "category, tags, kind), filtered by `query` (substring of folder name, name or description), with `include_body` for the " +
    "instructions; shadowed skills are marked. With `path`: the skill tree (keyword-routed skills) as nested nodes with " +
    'keywords and asset/script counts; `path: ""` shows every tree, `path: "ui"` one branch.',
  handler: async ({ path, query, include_body }, { deps }) => {
    const catalog = deps.store.catalog;
    const diagnostics = counts(catalog);
    if (path !== undefined) {
      const result = buildSkillTree(catalog, (s) => isEnabled(s, deps.filter), path);
      if (result.kind === "ok") return structuredResult({ tree: result.tree, diagnostics });
      if (result.kind === "disabled") {
        return errorResult(
          "SKILL_DISABLED",
          `Skill '${result.skill.name}' exists but is disabled on this server (${describeFilter(deps.filter)}).`,
          { skill: result.skill.name },
        );
      }
      const message =
        result.kind === "none"
          ? "There are no skill trees here (no Markdown files with keywords). Call list_skills without path for the flat list of skills."
          : `No node or folder '${path}' in the skill tree. Top level: ${result.top.join(", ") || "(nothing enabled)"}. Use path "" for the whole tree.`;
      return errorResult("SKILL_NOT_FOUND", message, { path });
    }
    const skills = flatEntries(catalog, deps.filter, query ?? "", include_body ?? false);
    return structuredResult({ skills, total: skills.length, diagnostics });
  },
});

function counts(catalog: Catalog): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const d of catalog.diagnostics) {
    if (d.severity === "error") errors++;
    else if (d.severity === "warning") warnings++;
  }
  return { errors, warnings };
}

function flatEntries(catalog: Catalog, filter: SkillFilter, query: string, includeBody: boolean) {
  const q = query.trim().toLowerCase();
  const matches = (s: Skill) =>
    isEnabled(s, filter) &&
    (q === "" || [installName(s), s.name, s.description].some((text) => text.toLowerCase().includes(q)));
  const entry = (s: Skill, by?: Skill) => {
    const body = includeBody ? bodyOf(s) : undefined;
    return {
      name: s.name,
      description: s.description,
      location: s.location,
      source: s.source,
      category: s.category ?? null,
      tags: s.tags,
      path: s.kind === "tree-node" ? (s.tree?.path ?? s.name) : relative(s.root, s.dir).split("\\").join("/") || ".",
      file: s.file,
      kind: s.kind,
      shadowed: by !== undefined,
      ...(by ? { shadowed_by: by.id } : {}),
      qualified_name: s.id,
      ...(body === undefined ? {} : { body }),
    };
  };
  return [
    ...catalog.skills.filter(matches).map((s) => entry(s)),
    ...catalog.shadowed.filter(({ skill }) => matches(skill)).map(({ skill, by }) => entry(skill, by)),
  ];
}

/** Seed 001's install name: the skill's folder name; a tree node's file name. */
function installName(s: Skill): string {
  return s.kind === "tree-node" ? basename(s.file).replace(/\.md$/i, "") : basename(s.dir);
}

function bodyOf(s: Skill): string {
  return readSkillBody(s) ?? "";
}
