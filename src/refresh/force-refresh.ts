import type { CatalogStore } from "../catalog/store.ts";
import type { GitSync } from "./git/git-sync.ts";
import type { RepoReport } from "./git/git-sync-types.ts";
import type { Refresher } from "./refresher.ts";

/** What `refresh_skills` and `skillhub sync` report. */
export type RefreshOutcome =
  | { mode: "local"; success: true; skills_reindexed: number }
  | {
      mode: "git";
      success: boolean;
      /** Another sync was running: nothing was done. */
      busy: boolean;
      /** The (first) repository's commit after the sync. */
      commit_hash: string | null;
      /** Files changed, summed over the repositories. */
      files_changed: number;
      skills_reindexed: number;
      last_sync: string | null;
      repos: RepoReport[];
    };

export interface ForceRefreshDeps {
  git?: GitSync;
  refresher: Refresher;
  store: CatalogStore;
}

/**
 * Pull the repositories when there are any, then always
 * rescan every folder. A call while a sync runs returns at once with
 * `busy`; a repository pulled by one a moment ago is not pulled again (its
 * report's `rested`: forced-fetches.ts).
 */
export async function forceRefresh(deps: ForceRefreshDeps, reason = "refresh_skills"): Promise<RefreshOutcome> {
  if (!deps.git) {
    await deps.refresher.rescan(reason);
    return { mode: "local", success: true, skills_reindexed: deps.store.catalog.skills.length };
  }
  const sync = await deps.git.refresh(reason, { forced: true });
  if (!sync.busy) await deps.refresher.rescan(reason);
  return {
    mode: "git",
    success: sync.success,
    busy: sync.busy,
    commit_hash: sync.repos[0]?.commit_hash ?? null,
    files_changed: sync.repos.reduce((n, r) => n + r.files_changed, 0),
    skills_reindexed: deps.store.catalog.skills.length,
    last_sync: sync.last_sync,
    repos: sync.repos,
  };
}
