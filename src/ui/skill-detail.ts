import type { Catalog } from "../catalog/catalog.ts";
import { passesFilter, type SkillFilter } from "../catalog/filters.ts";
import { chainFiles, effectiveChain } from "../catalog/tree-chain.ts";
import { checkedSkillText, isRefused } from "../lock/checked-read.ts";
import { type FrozenGuard, type FrozenRefusal, frozenCheck } from "../lock/frozen.ts";
import { skillBody } from "../skills/agent-skill.ts";
import { frontmatterOf } from "../skills/frontmatter.ts";
import type { Skill, TreeNode } from "../skills/skill.ts";
import { realFolder } from "../skills/skill-read.ts";
import { listSkillFiles } from "../sources/skill-files.ts";
import type { Diagnostic } from "../util/diagnostic.ts";
import type { PageLinks } from "./markdown-links.ts";
import { listIndex, type SkillRow } from "./skill-list.ts";

/** A file the page lists for a skill; tree nodes' inherited files name the node they come from. */
export interface FileEntry {
  path: string;
  size?: number;
  kind?: "asset" | "script";
  description?: string;
  from?: string;
}

export interface SkillDetail {
  skill: SkillRow & {
    file: string;
    frontmatter: Record<string, unknown>;
    bodyLines: number;
    sizeBytes: number;
    modified: string;
  };
  diagnostics: Diagnostic[];
  /**
   * The body to render (routes.ts renders it off the server's thread: markdown-page.ts), cut at
   * MAX_RENDERED_CHARS; absent when the skill is disabled or its file vanished.
   */
  markdown?: { source: string; links: PageLinks };
  /** Why there is no `html`. */
  notice?: string;
  /** Frozen mode: why no content of the skill is served (as the tools refuse it); no `html`, no files. */
  refused?: { code: FrozenRefusal["code"]; message: string };
  files: FileEntry[];
  filesTruncated: boolean;
  tree?: {
    path: string;
    inherit: boolean;
    priority: number;
    keywords: readonly string[];
    /** Root first, ending with this node; `inherit: false` nodes use only themselves. */
    chain: { id: string; path: string }[];
    children: { id: string; path: string; description: string }[];
  };
}

/** Bodies larger than this are shown cut: a 10 MB SKILL.md must not freeze the page. */
export const MAX_RENDERED_CHARS = 512 * 1024;

/** A skill by its exact id (shadowed ones included), else by name. */
export function findSkill(catalog: Catalog, id: string): Skill | undefined {
  return catalog.getById(id) ?? catalog.get(id);
}

/**
 * Everything the skill page shows. A disabled skill, and in frozen mode one whose files differ from
 * the lock, shows its metadata and diagnostics but not its content or files, as the tools refuse it
 * (SKILL_DISABLED, SKILL_LOCK_MISMATCH…). Undefined for a skill that is not in this catalog's list.
 */
export function skillDetail(
  catalog: Catalog,
  filter: SkillFilter,
  skill: Skill,
  frozen?: FrozenGuard,
): SkillDetail | undefined {
  const index = listIndex(catalog, filter);
  const row = index.rows.find((r) => r.id === skill.id);
  if (!row) return undefined;
  const enabled = passesFilter(skill, filter);
  const refusal = enabled ? frozenCheck(frozen, catalog, skill) : undefined;
  let refused = refusal && { code: refusal.code, message: refusal.message };
  let source: string | undefined;
  let notice: string | undefined;
  if (!enabled) {
    notice =
      "This skill is disabled by the server's filter (SKILLHUB_ENABLED_SKILLS or _CATEGORIES); its content is not served.";
  } else if (refused) {
    // Security: frozen mode; the page shows no byte of a skill that differs from its lock, as the tools.
    notice = `${refused.code}: ${refused.message}`;
  } else {
    // Frozen: only bytes whose digest the lock records (lock/checked-read.ts).
    const read = checkedSkillText(frozen, skill);
    const body = read.ok ? skillBody(read.text) : undefined;
    if (isRefused(read)) {
      refused = { code: read.refused.code, message: read.refused.message };
      notice = `${refused.code}: ${refused.message}`;
    } else if (body === undefined)
      notice = `${skill.file} could not be read; it may have been removed since the last scan.`;
    else {
      const cut = body.length > MAX_RENDERED_CHARS;
      source = cut ? body.slice(0, MAX_RENDERED_CHARS) : body;
      if (cut) notice = `Only the first ${MAX_RENDERED_CHARS} characters are shown.`;
    }
  }
  const { files, truncated } = enabled && !refused ? filesOf(catalog, skill, frozen) : { files: [], truncated: false };
  const markdown = source === undefined ? undefined : { source, links: pageLinks(skill, "", files, truncated) };
  return {
    skill: {
      ...row,
      file: skill.file,
      frontmatter: frontmatterOf(skill),
      bodyLines: skill.bodyLines,
      sizeBytes: skill.size,
      modified: new Date(skill.mtimeMs).toISOString(),
    },
    diagnostics: index.byFile.get(skill.file) ?? [],
    ...(markdown === undefined ? {} : { markdown }),
    ...(notice ? { notice } : {}),
    ...(refused ? { refused } : {}),
    files,
    filesTruncated: truncated,
    ...(skill.kind === "tree-node" ? { tree: treeInfo(catalog, skill) } : {}),
  };
}

/**
 * Where the relative links of a page of `skill` (in its folder `dir`) may lead: to its files as listed, or
 * anywhere in its folder when the listing stopped short (the file view still confines each read).
 */
export function pageLinks(skill: Skill, dir: string, files: readonly FileEntry[], truncated: boolean): PageLinks {
  return { skillId: skill.id, dir, ...(truncated ? {} : { files: files.map((f) => f.path) }) };
}

/** An Agent Skill's files on disk (as load_skill lists them); a tree node's declared assets and scripts, inherited ones too. */
function filesOf(catalog: Catalog, skill: Skill, frozen?: FrozenGuard): { files: FileEntry[]; truncated: boolean } {
  if (skill.kind !== "tree-node") {
    // The folder as a read would take it: a repository's or plugin's folder that now links out lists nothing.
    const folder = realFolder(skill.dir, skill);
    if (!folder.ok) return { files: [], truncated: false };
    const listed = listSkillFiles(skill.dir, { realDir: folder.root });
    // Frozen: only the files the lock records (the others are refused).
    const locked = frozen?.lockedFiles(skill);
    return {
      files: locked ? listed.files.filter((f) => locked.has(f.path)) : listed.files,
      truncated: listed.truncated,
    };
  }
  const chain = chainFiles(catalog, skill);
  const files: FileEntry[] = [
    ...chain.assets.map((a) => ({ path: a.file, kind: "asset" as const, description: a.description })),
    ...chain.scripts.map((s) => ({ path: s.file, kind: "script" as const, description: s.description })),
    ...chain.inheritedAssets.map((a) => ({
      path: a.file,
      kind: "asset" as const,
      description: a.description,
      from: a.from,
    })),
    ...chain.inheritedScripts.map((s) => ({
      path: s.file,
      kind: "script" as const,
      description: s.description,
      from: s.from,
    })),
  ];
  return { files, truncated: false };
}

function treeInfo(catalog: Catalog, skill: TreeNode): SkillDetail["tree"] {
  const tree = skill.tree;
  const chain = effectiveChain(catalog, skill);
  const children = catalog.skills
    .filter((s): s is TreeNode => s.kind === "tree-node" && s.source === skill.source && s.tree.parent === tree.path)
    .map((s) => ({ id: s.id, path: s.tree.path, description: s.description }))
    .sort((a, b) => a.path.localeCompare(b.path));
  return {
    path: tree.path,
    inherit: tree.inherit,
    priority: tree.priority,
    keywords: skill.keywords,
    chain: chain.map((s) => ({ id: s.id, path: s.tree.path })),
    children,
  };
}
