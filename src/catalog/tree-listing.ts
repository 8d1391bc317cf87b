import type { Skill, TreeNode } from "../skills/skill.ts";
import { INDEX_SEGMENT, nodeDisplayName, ROOT_PATH } from "../skills/tree-paths.ts";
import { trimChar } from "../util/trim-char.ts";
import type { Catalog } from "./catalog.ts";

/** One node of list_skills' tree. */
export interface SkillTreeNode {
  name: string;
  /** Skill path; "" for the synthetic root above several trees, or for a folder without `_index.md`. */
  path: string;
  description: string;
  keywords: readonly string[];
  assetCount: number;
  scriptCount: number;
  children: SkillTreeNode[];
}

export type SubtreeResult =
  | { kind: "ok"; tree: SkillTreeNode }
  | { kind: "none" }
  | { kind: "not-found"; top: string[] }
  | { kind: "disabled"; skill: Skill };

/** Normalise a list_skills `path` argument: trim, no leading/trailing "/", no ".md". */
export function normaliseTreePath(path: string): string {
  return trimChar(path.trim(), "/").replace(/\.md$/i, "");
}

const byPath = (a: SkillTreeNode, b: SkillTreeNode) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The served tree nodes as one tree, optionally cut at `path` ("" / "_root" /
 * "root": everything; "ui": `ui/_index` and below, or everything under "ui/"
 * when it has no `_index.md` or it is disabled). Disabled nodes are left out
 * and their enabled descendants move up to the nearest enabled ancestor; a
 * disabled node asked for by its own path is `disabled`. A node's asset and script counts are of its
 * declared files that `exists` (get_skill lists only those; a declared file missing on disk has a
 * diagnostic). Pure but for `exists`.
 */
export function buildSkillTree(
  catalog: Catalog,
  enabled: (skill: Skill) => boolean,
  path = "",
  exists: (node: TreeNode, file: string) => boolean = () => true,
): SubtreeResult {
  const nodes = catalog.skills.filter((s): s is TreeNode => s.kind === "tree-node");
  if (nodes.length === 0) return { kind: "none" };
  const served = new Map(nodes.map((s) => [s.id.toLowerCase(), s]));
  const children = new Map<string, TreeNode[]>();
  const tops: TreeNode[] = [];
  for (const s of nodes) {
    const parentId = s.tree.parent === undefined ? undefined : `${s.source}:${s.tree.parent}`.toLowerCase();
    if (parentId === undefined || !served.has(parentId)) tops.push(s);
    else {
      const siblings = children.get(parentId);
      if (siblings === undefined) children.set(parentId, [s]);
      else siblings.push(s);
    }
  }
  const view = (s: TreeNode): SkillTreeNode[] => {
    const kids = (children.get(s.id.toLowerCase()) ?? []).flatMap(view).sort(byPath);
    if (!enabled(s)) return kids;
    return [
      {
        name: nodeDisplayName(s.tree.path),
        path: s.tree.path,
        description: s.description,
        keywords: s.keywords,
        assetCount: s.tree.assets.filter((d) => exists(s, d.file)).length,
        scriptCount: s.tree.scripts.filter((d) => exists(s, d.file)).length,
        children: kids,
      },
    ];
  };
  const container = (name: string, p: string, kids: SkillTreeNode[]): SkillTreeNode => ({
    name,
    path: p,
    description: "",
    keywords: [],
    assetCount: 0,
    scriptCount: 0,
    children: kids.sort(byPath),
  });

  const wanted = normaliseTreePath(path);
  if (wanted === "" || wanted === ROOT_PATH || wanted === "root") {
    const all = tops.flatMap(view);
    const [only] = all;
    return { kind: "ok", tree: all.length === 1 && only?.path === ROOT_PATH ? only : container("root", "", all) };
  }
  const key = wanted.toLowerCase();
  // Asking for a node by its own path ("api/auth", "api/_index"): that node, or SKILL_DISABLED.
  const exact = nodes.find((s) => s.key === key);
  if (exact) {
    const [tree] = view(exact);
    return tree && enabled(exact) ? { kind: "ok", tree } : { kind: "disabled", skill: exact };
  }
  // A folder ("api"): its `_index` node when enabled; otherwise, as for a folder without
  // `_index.md`, its enabled nodes under a container named after it.
  const index = nodes.find((s) => s.key === `${key}/${INDEX_SEGMENT}`);
  if (index && enabled(index)) {
    const [tree] = view(index);
    if (tree) return { kind: "ok", tree };
  }
  const under = nodes.filter((s) => s.key.startsWith(`${key}/`));
  const underIds = new Set(under.map((s) => s.id.toLowerCase()));
  const heads = under.filter((s) => {
    const parentId = s.tree.parent === undefined ? undefined : `${s.source}:${s.tree.parent}`.toLowerCase();
    return parentId === undefined || !underIds.has(parentId);
  });
  const kids = heads.flatMap(view);
  if (kids.length === 0 && index) return { kind: "disabled", skill: index };
  if (kids.length === 0) {
    return {
      kind: "not-found",
      top: [...new Set(nodes.filter((s) => enabled(s)).map((s) => s.tree.path.split("/")[0] as string))].sort(),
    };
  }
  return { kind: "ok", tree: container(wanted.split("/").pop() ?? wanted, wanted, kids) };
}
