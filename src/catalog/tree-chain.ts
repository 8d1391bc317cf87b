import type { Skill, TreeNode } from "../skills/skill.ts";
import type { AssetDecl, ScriptDecl } from "../skills/tree-node.ts";
import type { Catalog } from "./catalog.ts";

/** Deeper than any real tree; guards against a malformed chain. */
const MAX_CHAIN = 64;

/** A tree node's parent in the same source, shadowed or not; undefined for a top node. */
export function treeParent(catalog: Catalog, skill: TreeNode): TreeNode | undefined {
  const parent = skill.tree.parent;
  if (parent === undefined) return undefined;
  const found = catalog.get(`${skill.source}:${parent}`);
  return found?.kind === "tree-node" && found.source === skill.source && found.tree.path === parent ? found : undefined;
}

/**
 * The node and its ancestors, root first, whatever `inherit` says.
 *
 * Server filters (SKILLHUB_ENABLED_SKILLS / _CATEGORIES) are deliberately not
 * applied here: an enabled node carries its ancestors' content and inherited
 * assets and scripts even when those ancestors are disabled, because they are
 * part of what the node means. The filter decides which nodes can be asked
 * for and listed (tools check it on the node asked for), not what a node is.
 */
export function treeChain(catalog: Catalog, skill: TreeNode): TreeNode[] {
  const chain: TreeNode[] = [skill];
  const seen = new Set([skill.id]);
  for (
    let node = treeParent(catalog, skill);
    node && !seen.has(node.id) && chain.length < MAX_CHAIN;
    node = treeParent(catalog, node)
  ) {
    seen.add(node.id);
    chain.push(node);
  }
  return chain.reverse();
}

/**
 * The chain that counts for content and files: the whole chain with `inherit: true`, only the node
 * without (and an Agent Skill alone).
 */
export function effectiveChain(catalog: Catalog, skill: TreeNode): TreeNode[];
export function effectiveChain(catalog: Catalog, skill: Skill): Skill[];
export function effectiveChain(catalog: Catalog, skill: Skill): Skill[] {
  return skill.kind === "tree-node" && skill.tree.inherit ? treeChain(catalog, skill) : [skill];
}

export type InheritedAsset = AssetDecl & { from: string };
export type InheritedScript = ScriptDecl & { from: string };

export interface ChainFiles {
  assets: AssetDecl[];
  scripts: ScriptDecl[];
  inheritedAssets: InheritedAsset[];
  inheritedScripts: InheritedScript[];
}

/**
 * Walk the chain root → node, keyed by file path; a more
 * specific node's declaration replaces an ancestor's. Own files have no
 * `from`; inherited ones say which node (skill path) they come from.
 */
export function chainFiles(catalog: Catalog, skill: TreeNode): ChainFiles {
  const assets = new Map<string, { decl: AssetDecl; from?: string }>();
  const scripts = new Map<string, { decl: ScriptDecl; from?: string }>();
  for (const node of effectiveChain(catalog, skill)) {
    const from = node === skill ? undefined : node.tree.path;
    place(assets, node.tree.assets, from);
    place(scripts, node.tree.scripts, from);
  }
  const own = <T>(map: Map<string, { decl: T; from?: string }>) =>
    [...map.values()].filter((v) => v.from === undefined).map((v) => v.decl);
  const inherited = <T>(map: Map<string, { decl: T; from?: string }>) =>
    [...map.values()].filter((v) => v.from !== undefined).map((v) => ({ ...v.decl, from: v.from as string }));
  return {
    assets: own(assets),
    scripts: own(scripts),
    inheritedAssets: inherited(assets),
    inheritedScripts: inherited(scripts),
  };
}

/** Every file a node's tools serve (get_asset): its own and inherited declarations, sorted. */
export function declaredFiles(catalog: Catalog, skill: TreeNode): string[] {
  const f = chainFiles(catalog, skill);
  return [
    ...new Set([...f.assets, ...f.scripts, ...f.inheritedAssets, ...f.inheritedScripts].map((d) => d.file)),
  ].sort();
}

/** delete + set: a winner takes the place of its own level, so own files keep their declared order. */
function place<T extends { file: string }>(
  map: Map<string, { decl: T; from?: string }>,
  list: readonly T[],
  from: string | undefined,
): void {
  for (const decl of list) {
    map.delete(decl.file);
    map.set(decl.file, { decl, from });
  }
}

export interface ChainHit {
  kind: "asset" | "script";
  decl: AssetDecl | ScriptDecl;
  /** The node that declares the file. */
  owner: TreeNode;
  /** The owner's skill path when it is an ancestor; undefined when the queried node declares it. */
  from?: string;
}

/**
 * `findAssetInChain`: the node's own assets and scripts first,
 * then (with `inherit: true`) each ancestor up to the root. `file` is a
 * normalised relative path ("assets/x.json").
 */
export function findFileInChain(catalog: Catalog, skill: TreeNode, file: string): ChainHit | undefined {
  const chain = effectiveChain(catalog, skill).reverse();
  for (const node of chain) {
    const from = node === skill ? undefined : node.tree.path;
    const asset = node.tree.assets.find((a) => a.file === file);
    if (asset) return { kind: "asset", decl: asset, owner: node, from };
    const script = node.tree.scripts.find((s) => s.file === file);
    if (script) return { kind: "script", decl: script, owner: node, from };
  }
  return undefined;
}
