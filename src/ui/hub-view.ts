import { describeFilter, filterActive, isEnabled, passesFilter } from "../catalog/filters.ts";
import { effectiveChain } from "../catalog/tree-chain.ts";
import { buildSkillTree, type SkillTreeNode } from "../catalog/tree-listing.ts";
import { withoutCredentials } from "../refresh/git/git-url.ts";
import { searchMode } from "../search/embeddings/settings.ts";
import type { Hub } from "../server/hub.ts";
import { hideServerPaths } from "../server/path-sweep/hide-server-paths.ts";
import { type ServerPaths, serverPaths } from "../server/server-paths.ts";
import { isServable } from "../tools/support/asset-read.ts";
import type { Diagnostic } from "../util/diagnostic.ts";
import { scrubUrlCredentials } from "../util/url-credentials.ts";
import { VERSION } from "../version.ts";

/** What the overview shows: where skills come from, counts, git sync, analytics, the hub's settings. */
export function overview(hub: Hub) {
  const catalog = hub.catalog;
  const problems = catalog.diagnostics.filter((d) => d.code !== "shadowed");
  const errors = problems.filter((d) => d.severity === "error").length;
  const c = hub.config;
  return {
    version: VERSION,
    generation: catalog.generation,
    projectRoot: hub.projectRoot,
    counts: {
      skills: catalog.skills.length,
      treeNodes: catalog.skills.filter((s) => s.kind === "tree-node").length,
      shadowed: catalog.shadowed.length,
      disabled: filterActive(hub.filter) ? catalog.skills.filter((s) => !passesFilter(s, hub.filter)).length : 0,
      errors,
      warnings: problems.length - errors,
    },
    sources: catalog.sources,
    git: gitStatus(hub),
    analytics: hub.analytics.describe,
    settings: {
      tools: hub.tools().map((t) => t.name),
      filters: describeFilter(hub.filter),
      search: searchMode(c),
      rescan: c.sources.rescan_seconds > 0 ? `every ${c.sources.rescan_seconds} s` : "off",
      watcher: c.sources.watch ? "on" : "off",
    },
  };
}

/**
 * The team repositories and their last sync, as `doctor` reports them: the local copy's commit, and the
 * last sync's failure while the copy is kept at an older commit.
 * Security: credentials written into a repository URL are never shown.
 */
export function gitStatus(hub: Hub) {
  if (!hub.git) return { configured: false as const, repos: [] };
  const c = hub.config;
  const repos = hub.git.status();
  const paths = repos.some((r) => r.state?.last_error) ? serverPaths(hub) : undefined;
  return {
    configured: true as const,
    branch: c.git.branch,
    interval: c.refresh.enabled ? `every ${c.refresh.interval_minutes} min` : "off",
    gitFound: Bun.which("git") !== null,
    lastSync: hub.git.lastSyncTime,
    repos: repos.map((r) => ({
      name: r.name,
      url: withoutCredentials(r.url),
      branch: r.branch,
      dir: r.dir,
      commit: r.state?.commit ?? null,
      lastSync: r.state?.last_sync ?? null,
      lastError: r.state?.last_error && paths ? failureForViewer(r.state.last_error, paths) : null,
    })),
  };
}

/**
 * Security: a sync's failure as the page shows it to whoever opens it, maybe on another machine: the
 * server's folders (SkillHub's home, where the copies are, the user's home, the project) named as a
 * remote MCP client is told them, and no credential of a URL (git's messages are scrubbed already;
 * this holds for any message).
 */
function failureForViewer(failure: { code: string; message: string; at: string }, paths: ServerPaths) {
  // Its folders only: the operator may read the server's other paths (a repository's own folder); a client's
  // view hides them with every answer's (client-view.ts).
  const message = hideServerPaths(scrubUrlCredentials(failure.message), { ...paths, others: undefined });
  return { code: failure.code, at: failure.at, message };
}

/** One page of the catalog's diagnostics (warnings and errors; shadowing is on the skills' rows). */
export function diagnosticsPage(diagnostics: readonly Diagnostic[], severity: string | undefined, page = 1, per = 100) {
  const wanted = diagnostics.filter(
    (d) => d.code !== "shadowed" && (severity === undefined || severity === "" || d.severity === severity),
  );
  const pages = Math.max(1, Math.ceil(wanted.length / per));
  const p = Math.min(pages, Math.max(1, page));
  return { total: wanted.length, page: p, pages, items: wanted.slice((p - 1) * per, p * per) };
}

export interface TreeViewNode extends SkillTreeNode {
  /** Qualified id for the skill page; absent for a folder without `_index.md`. */
  id?: string;
  inherit?: boolean;
  /** Skill paths whose content this node carries, root first. */
  chain: string[];
  children: TreeViewNode[];
}

/** The served tree nodes as trees, each node with its keywords and its inherited chain. */
export function treeView(hub: Hub): { tree?: TreeViewNode } {
  const catalog = hub.catalog;
  const built = buildSkillTree(catalog, (s) => isEnabled(s, hub.filter), "", isServable);
  if (built.kind !== "ok") return {};
  const byPath = new Map(catalog.skills.filter((s) => s.kind === "tree-node").map((s) => [s.tree.path, s] as const));
  const decorate = (node: SkillTreeNode): TreeViewNode => {
    const skill = node.path === "" ? undefined : byPath.get(node.path);
    return {
      ...node,
      ...(skill ? { id: skill.id, inherit: skill.tree.inherit } : {}),
      chain: skill ? effectiveChain(catalog, skill).map((s) => s.tree.path) : [],
      children: node.children.map(decorate),
    };
  };
  return { tree: decorate(built.tree) };
}
