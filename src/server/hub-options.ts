import type { AnalyticsOverrides } from "../analytics/setup.ts";
import type { Scanner } from "../catalog/scanner.ts";
import type { Config } from "../config/schema.ts";
import type { ExecHost } from "../exec/host.ts";
import type { WatchFn } from "../refresh/folder-watchers.ts";
import type { GitSyncOptions } from "../refresh/git/git-sync-types.ts";
import type { CreateSearchOptions, EmbeddingOverrides } from "../search/create-search.ts";
import type { UsageStore } from "../usage/usage-store.ts";
import type { Diagnostic } from "../util/diagnostic.ts";
import type { Logger } from "../util/logger.ts";
import type { MemoryRelease } from "../util/release-memory.ts";
import type { ConfigReload } from "./repo-config.ts";

/** How a Hub is made: the configuration, and what tests inject. */
export interface HubOptions {
  config: Config;
  logger: Logger;
  env: Record<string, string | undefined>;
  homeDir: string;
  cwd: string;
  /** Whether MCP roots may set the project root (stdio: yes; a shared HTTP server: no). Default true. */
  acceptRoots?: boolean;
  /** Log skipped skills and a summary when the catalog changes (servers). Default true. */
  announceDiagnostics?: boolean;
  watchFn?: WatchFn;
  /** Gives memory back after big jobs once enabled (a server enables it). Default: a new, disabled one. */
  memory?: MemoryRelease;
  /** Injected for tests that must fake file-system failures. */
  scanner?: Scanner;
  /** The clock (ms) of rescans and of report_usage's limit per client. Default Date.now. */
  now?: () => number;
  /** How long a first start's tools/list waits for the first scan (ms). Default 800; tests shorten it. */
  listingWaitMs?: number;
  /** How long a listing a small snapshot of the last run could answer waits for the first scan (ms). Default 200. */
  snapshotListingWaitMs?: number;
  /** Overrides for git sync (interval, spawn, environment) in tests. */
  git?: Partial<GitSyncOptions>;
  /** Overrides for embedding requests (fetch, sleep, clock, timers) and the vector index in tests. */
  embedding?: EmbeddingOverrides;
  /** Overrides of the search service's pacing in tests (early answers, the pause between slices). */
  search?: CreateSearchOptions["service"];
  /** Overrides for the analytics publisher (fetch, timers, clock) in tests. */
  analytics?: AnalyticsOverrides;
  /** Overrides for script and command execution (environment, grace period, spawn) in tests. */
  exec?: Partial<ExecHost>;
  /**
   * Read the configuration again (cli.ts): after the first clone and after a sync, what the repositories'
   * config.yaml files set applies (hub.ts reconfigure). Unset: the configuration stays as given.
   */
  reloadConfig?: ConfigReload;
  /** Where loads are counted. Default: <home>/usage.json (one-shot commands count in memory only). */
  usage?: UsageStore;
  /** Diagnostics of no skill file, in every catalog: a project's skillhub.yaml that cannot be used (cli.ts). */
  notes?: readonly Diagnostic[];
}
