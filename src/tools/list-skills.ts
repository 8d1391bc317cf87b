import { basename, relative } from "node:path";
import { z } from "zod";
import type { Catalog } from "../catalog/catalog.ts";
import { isEnabled, type SkillFilter } from "../catalog/filters.ts";
import { buildSkillTree, normaliseTreePath, type SkillTreeNode } from "../catalog/tree-listing.ts";
import { checkedBody } from "../lock/checked-read.ts";
import type { Skill } from "../skills/skill.ts";
import { skillUris } from "../skills/skill-uri.ts";
import { shownArg } from "../util/shown-arg.ts";
import { defineTool, READ_ONLY, type ToolDeps } from "./definition.ts";
import { errorResult, jsonTextHandler, structuredResult } from "./results.ts";
import { isServable } from "./support/asset-read.ts";
import { resultBudget } from "./support/result-budget.ts";
import { SKILL_LOCATIONS, skillLocation } from "./support/skill-location.ts";
import { disabledError } from "./support/skill-lookup.ts";
import { type FittedTree, fitTree } from "./support/tree-fit.ts";

/** Flat mode: entries per page when `limit` is not given, and the most a page may hold. */
export const FLAT_DEFAULT_LIMIT = 50;
export const FLAT_MAX_LIMIT = 200;
/** Flat mode: a page also stops once its entries reach this many bytes of JSON (bodies can be long); at least one entry. */
export const FLAT_MAX_BYTES = 256 * 1024;

const Input = () =>
  z
    .object({
      path: z.string().optional().describe("Sub-tree to show, e.g. 'ui' or 'api/_index'. Default: the whole tree"),
      flat: z.boolean().optional().describe("true: a flat, paged list of every skill instead of the tree"),
      query: z.string().optional().describe("Flat list: substring filter on folder name, name and description"),
      include_body: z.boolean().optional().describe("Flat list: include each skill's body"),
      limit: z
        .number()
        .int()
        .min(1)
        .max(FLAT_MAX_LIMIT)
        .optional()
        .describe(`Flat list: entries per page. Default ${FLAT_DEFAULT_LIMIT}`),
      cursor: z.string().optional().describe("Flat list: next_cursor of the previous page"),
    })
    .strict();

const Entry = () =>
  z.object({
    name: z.string().describe("Name to load the skill by (a tree node's skill path)"),
    description: z.string(),
    location: z.enum(SKILL_LOCATIONS),
    source: z.string().describe("Label of the folder it comes from (project, global, a --skills-dir folder's name, …)"),
    category: z.string().optional().describe("Category, when the skill declares one"),
    tags: z.array(z.string()),
    path: z.string().describe("Path under its source folder: the skill's folder, or a tree node's skill path"),
    file: z
      .string()
      .describe(
        "Absolute path of SKILL.md or of the node's .md file (for a client on another machine: its skill:// URI)",
      ),
    kind: z.enum(["agent-skill", "tree-node"]),
    shadowed: z
      .boolean()
      .describe("True when a skill of the same name in an earlier folder wins; load it by qualified_name"),
    shadowed_by: z.string().optional().describe("Qualified name of the skill that wins"),
    qualified_name: z.string().describe("<source>:<name>, always unique"),
    uri: z
      .string()
      .optional()
      .describe("For a client on another machine: the skill's skill:// URI; a file of it is <uri>/<path>"),
    body: z.string().optional(),
  });

const TreeNode = () =>
  z.object({
    name: z.string(),
    path: z.string().describe("Skill path, for get_skill and get_asset"),
    description: z.string(),
    keywords: z.array(z.string()),
    assetCount: z.number().int(),
    scriptCount: z.number().int(),
    children: z.array(z.record(z.string(), z.unknown())).describe("Child nodes, same shape"),
  });

const Output = () =>
  z.object({
    tree: TreeNode().optional().describe("Tree mode (the default): the (sub-)tree"),
    agent_skills: z
      .number()
      .int()
      .optional()
      .describe(
        "Tree mode: enabled Agent Skills (SKILL.md), which are not part of the tree; list them with flat: true",
      ),
    skills: z.array(Entry()).optional().describe("Flat list: this page of served skills, then shadowed ones"),
    total: z.number().int().optional().describe("Flat list: entries matching, all pages together"),
    next_cursor: z
      .string()
      .optional()
      .describe("Flat list: pass as `cursor` for the next page; absent on the last one"),
    message: z.string().optional().describe("What the answer holds and how to get the rest"),
    diagnostics: z
      .object({ errors: z.number().int(), warnings: z.number().int() })
      .describe("Problems found while reading skills (skillhub doctor lists them)"),
  });

/** The tree by default (or the sub-tree at `path`); the sk profile's flat list on request, paged. */
export const listSkillsTool = defineTool({
  name: "list_skills",
  title: "List Skills",
  annotations: READ_ONLY,
  inputSchema: Input,
  outputSchema: Output,
  description: () =>
    "Browse the skills. By default: the skill tree (keyword-routed skills) as nested nodes with description, keywords " +
    'and asset/script counts; `path: "ui"` shows one branch. `flat: true` (or `query`, `include_body`): every skill ' +
    "(Agent Skills too) in pages; pass `next_cursor` back as `cursor` for the next one.",
  handler: jsonTextHandler(async ({ path, flat, query, include_body, limit, cursor }, { deps, session }) => {
    const catalog = deps.store.catalog;
    const diagnostics = counts(catalog);
    const flatMode =
      path === undefined &&
      (flat === true || query !== undefined || include_body !== undefined || cursor !== undefined);
    if (!flatMode) {
      const enabled = (s: Skill) => isEnabled(s, deps.filter);
      const agentSkills = catalog.skills.filter((s) => s.kind !== "tree-node" && enabled(s)).length;
      const result = buildSkillTree(catalog, enabled, path ?? "", isServable);
      if (result.kind === "ok")
        return structuredResult(
          treeAnswer(result.tree, { agent_skills: agentSkills, diagnostics }, resultBudget({ deps, session })),
        );
      if (result.kind === "none" && (path === undefined || normaliseTreePath(path) === "")) {
        // No tree (yet: an empty content repository answers this too): an empty root, and where the skills are.
        const message =
          agentSkills > 0
            ? `There is no skill tree here (no Markdown files with keywords). ${agentSkills} Agent Skill${agentSkills === 1 ? "" : "s"} (SKILL.md) ${agentSkills === 1 ? "is" : "are"} served: list them with flat: true, or find one with search_skills.`
            : "There are no skills here yet. skillhub doctor shows which folders are read.";
        return structuredResult({ tree: emptyRoot(), agent_skills: agentSkills, message, diagnostics });
      }
      if (result.kind === "disabled") {
        return disabledError(result.skill, deps);
      }
      const message =
        result.kind === "none"
          ? "There are no skill trees here (no Markdown files with keywords). Call list_skills with flat: true for the list of skills."
          : `No node or folder '${shownArg(path ?? "")}' in the skill tree. Top level: ${result.top.join(", ") || "(nothing enabled)"}. Leave path out for the whole tree.`;
      return errorResult("SKILL_NOT_FOUND", message, { path: shownArg(path ?? "") });
    }
    const all = flatEntries(catalog, deps.filter, query ?? "", session.remote, deps.projectRoot.dir);
    const start = cursor === undefined ? 0 : parseCursor(cursor, all.length);
    if (start === undefined) {
      return errorResult(
        "INVALID_ARGUMENT",
        `cursor '${shownArg(cursor ?? "")}' is not one this list gave. Leave cursor out for the first page, then pass each answer's next_cursor.`,
        { cursor: shownArg(cursor ?? "") },
      );
    }
    const page = pageOf(catalog, all, start, limit ?? FLAT_DEFAULT_LIMIT, include_body === true, deps);
    const end = start + page.length;
    const rest = all.length - end;
    const message =
      rest > 0
        ? `Entries ${start + 1}-${end} of ${all.length}; ${rest} more: call list_skills again with cursor "${end}"${query ? " and the same query" : ""}.`
        : `Entries ${all.length === 0 ? 0 : start + 1}-${end} of ${all.length}.`;
    return structuredResult({
      skills: page,
      total: all.length,
      ...(rest > 0 ? { next_cursor: String(end) } : {}),
      message,
      diagnostics,
    });
  }),
});

/**
 * The tree answer within the characters one result may hold for this client (resultBudget). A larger tree is
 * cut breadth first, the top levels kept, and its `message` says so, naming the branches cut and how to see
 * them (`path`, or the paged flat list).
 */
function treeAnswer(
  tree: SkillTreeNode,
  rest: { agent_skills: number; diagnostics: { errors: number; warnings: number } },
  budget: number,
): Record<string, unknown> {
  const whole = { tree, ...rest };
  const chars = JSON.stringify(whole).length;
  if (chars <= budget) return whole;
  const overhead = chars - JSON.stringify(tree).length;
  for (let room = budget - overhead - CUT_MESSAGE_RESERVE; ; room -= CUT_MESSAGE_RESERVE) {
    const fitted = fitTree(tree, room);
    if (fitted.cut.length === 0) return whole;
    const answer = { tree: fitted.tree, ...rest, message: cutMessage(fitted, budget) };
    if (JSON.stringify(answer).length <= budget || fitted.shown === 1) return answer;
  }
}

/** Characters set aside for the message of a cut tree (it names at most CUT_BRANCHES_SHOWN branches). */
const CUT_MESSAGE_RESERVE = 1500;
const CUT_BRANCHES_SHOWN = 3;

function cutMessage(fitted: FittedTree, budget: number): string {
  const branches = fitted.cut
    .slice(0, CUT_BRANCHES_SHOWN)
    .map((c) => `${c.total - c.shown} of ${c.total} under ${c.path === "" ? "the root" : `'${shownArg(c.path)}'`}`);
  const more =
    fitted.cut.length > CUT_BRANCHES_SHOWN ? ` and in ${fitted.cut.length - CUT_BRANCHES_SHOWN} more branches` : "";
  return (
    `The tree is cut to fit one answer (${budget} characters): ${fitted.shown} of ${fitted.total} nodes shown, ` +
    `the top levels first. Left out: ${branches.join(", ")}${more}. Call list_skills with path set to a node or ` +
    "folder to see its branch, or with flat: true to page through every skill."
  );
}

/** The tree of a catalog that holds no tree node: a root with no children. */
function emptyRoot() {
  return { name: "root", path: "", description: "", keywords: [], assetCount: 0, scriptCount: 0, children: [] };
}

/** A cursor is the offset of the next entry, as text; anything else (or past the end) is refused. */
function parseCursor(cursor: string, total: number): number | undefined {
  if (!/^\d{1,9}$/.test(cursor.trim())) return undefined;
  const n = Number(cursor.trim());
  return n <= total ? n : undefined;
}

type FlatEntry = ReturnType<typeof flatEntries>[number];

/**
 * Up to `limit` entries from `start`, bodies read only for those, stopping
 * before FLAT_MAX_BYTES of JSON (one entry at least, so paging always moves).
 */
function pageOf(
  catalog: Catalog,
  all: FlatEntry[],
  start: number,
  limit: number,
  includeBody: boolean,
  deps: ToolDeps,
): FlatEntry[] {
  const page: FlatEntry[] = [];
  let bytes = 0;
  for (const entry of all.slice(start, start + limit)) {
    const shown = includeBody ? { ...entry, body: bodyOf(catalog, entry.qualified_name, deps) } : entry;
    const size = JSON.stringify(shown).length;
    if (page.length > 0 && bytes + size > FLAT_MAX_BYTES) break;
    page.push(shown);
    bytes += size;
  }
  return page;
}

function counts(catalog: Catalog): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const d of catalog.diagnostics) {
    if (d.severity === "error") errors++;
    else if (d.severity === "warning") warnings++;
  }
  return { errors, warnings };
}

function flatEntries(catalog: Catalog, filter: SkillFilter, query: string, remote: boolean, projectDir: string | null) {
  const q = query.trim().toLowerCase();
  const matches = (s: Skill) =>
    isEnabled(s, filter) &&
    (q === "" || [installName(s), s.name, s.description].some((text) => text.toLowerCase().includes(q)));
  const entry = (s: Skill, by?: Skill) => {
    return {
      name: s.name,
      description: s.description,
      location: skillLocation(s, projectDir, remote),
      source: s.source,
      ...(s.category ? { category: s.category } : {}),
      tags: s.tags,
      path: s.kind === "tree-node" ? s.tree.path : relative(s.root, s.dir).split("\\").join("/") || ".",
      file: s.file,
      kind: s.kind,
      shadowed: by !== undefined,
      ...(by ? { shadowed_by: by.id } : {}),
      qualified_name: s.id,
      ...(remote ? { uri: skillUris(s, by !== undefined).dir("") } : {}),
    };
  };
  return [
    ...catalog.skills.filter(matches).map((s) => entry(s)),
    ...catalog.shadowed.filter(({ skill }) => matches(skill)).map(({ skill, by }) => entry(skill, by)),
  ];
}

/** The sk profile's install name: the skill's folder name; a tree node's file name. */
function installName(s: Skill): string {
  return s.kind === "tree-node" ? basename(s.file).replace(/\.md$/i, "") : basename(s.dir);
}

/**
 * The body through the confined reader; "" when the skill is gone or cannot be read since the scan, and in
 * frozen mode when the lock does not record the bytes read (lock/checked-read.ts).
 */
function bodyOf(catalog: Catalog, id: string, deps: ToolDeps): string {
  const skill = catalog.get(id);
  return (skill && checkedBody(deps.frozen, skill)) ?? "";
}
