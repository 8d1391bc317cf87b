import type { SkillTreeNode } from "../../catalog/tree-listing.ts";

/** A tree cut to fit: the nodes kept, how many there were, and the kept nodes that lost children. */
export interface FittedTree {
  tree: SkillTreeNode;
  shown: number;
  total: number;
  /** Kept nodes some of whose children were left out, breadth first: `shown` of `total` children kept. */
  cut: { path: string; shown: number; total: number }[];
}

/**
 * `tree` with as many nodes as fit `room` characters of compact JSON, taken breadth first (the top levels
 * first, each node's children in order), so every node kept has its parent kept. The root is always kept,
 * however long. Pure; linear in the number of nodes.
 */
export function fitTree(tree: SkillTreeNode, room: number): FittedTree {
  const copies = new Map<SkillTreeNode, SkillTreeNode>();
  const copy = (node: SkillTreeNode): SkillTreeNode => {
    const kept = { ...node, children: [] };
    copies.set(node, kept);
    return kept;
  };
  const root = copy(tree);
  let used = ownChars(tree);
  let total = 1;
  let full = false;
  const queue: SkillTreeNode[] = [tree];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as SkillTreeNode;
    const parent = copies.get(node);
    for (const child of node.children) {
      total++;
      queue.push(child);
      if (full || parent === undefined) continue;
      // A child adds its own JSON and the comma before it, when it is not its parent's first.
      const chars = ownChars(child) + (parent.children.length > 0 ? 1 : 0);
      if (used + chars > room) {
        full = true;
        continue;
      }
      used += chars;
      parent.children.push(copy(child));
    }
  }
  const cut: FittedTree["cut"] = [];
  for (const node of queue) {
    const kept = copies.get(node);
    if (kept !== undefined && kept.children.length < node.children.length)
      cut.push({ path: node.path, shown: kept.children.length, total: node.children.length });
  }
  return { tree: root, shown: copies.size, total, cut };
}

/** Characters of a node's compact JSON with no children. */
function ownChars(node: SkillTreeNode): number {
  return JSON.stringify({ ...node, children: [] }).length;
}
