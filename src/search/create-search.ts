import { join } from "node:path";
import type { CatalogStore } from "../catalog/store.ts";
import type { Config } from "../config/schema.ts";
import type { Logger } from "../util/logger.ts";
import { defaultHttpDeps, type HttpDeps } from "./embeddings/http.ts";
import { createProvider } from "./embeddings/provider.ts";
import { embeddingSettings, searchMode } from "./embeddings/settings.ts";
import { vectorCachePath } from "./embeddings/vector-cache.ts";
import { VectorIndex } from "./embeddings/vector-index.ts";
import { SearchService } from "./service.ts";
import type { SearchServiceOptions } from "./service-options.ts";

/** Overrides for embedding requests (fetch, sleep, clock, timers) and the vector index, in tests. */
export type EmbeddingOverrides = Partial<HttpDeps> & { retryAfterFailureMs?: number; saveDelayMs?: number };

export interface CreateSearchOptions {
  config: Config;
  store: CatalogStore;
  logger: Logger;
  /** The source folders now: the persisted index and vector cache are kept per set of folders. */
  sourceDirs: () => string[];
  embedding?: EmbeddingOverrides;
  /** Overrides of the service's pacing in tests (SearchServiceOptions). */
  service?: Pick<SearchServiceOptions, "earlyFromSkills" | "tick">;
  /** The hub's memory release (SearchServiceOptions.memory). */
  memory?: SearchServiceOptions["memory"];
}

/**
 * The search service the configuration asks for: full text, persisted under
 * `cache_path` (default `<home>/index`), plus vectors when an embedding
 * provider is configured and the mode uses them.
 */
export function createSearch(options: CreateSearchOptions): SearchService {
  const { config, sourceDirs } = options;
  const cacheDir = config.cache_path ?? join(config.home, "index");
  return new SearchService({
    store: options.store,
    logger: options.logger,
    cacheDir,
    sourceDirs,
    settings: `${config.embedding.provider}:${config.embedding.model ?? ""}`,
    reindex: config.search.reindex,
    skipAutoReindex: config.search.skip_auto_reindex,
    mode: searchMode(config),
    buildInWorker: true,
    memory: options.memory,
    vectors: vectorIndex(options, () => vectorCachePath(cacheDir, sourceDirs())),
    ...options.service,
  });
}

/** The skills' vectors when embeddings are configured and used; none otherwise, so nothing can be sent. */
function vectorIndex(options: CreateSearchOptions, cacheFile: () => string): VectorIndex | undefined {
  const { config, logger } = options;
  const settings = embeddingSettings(config.embedding);
  const mode = searchMode(config);
  if (!settings) {
    if (mode !== "fts")
      logger.warn(
        `SEARCH_MODE=${mode} needs an embedding provider (EMBEDDING_PROVIDER); search_skills uses full text.`,
      );
    return undefined;
  }
  if (mode === "fts") return undefined;
  const { retryAfterFailureMs, saveDelayMs, ...http } = options.embedding ?? {};
  return new VectorIndex({
    provider: createProvider(settings, { ...defaultHttpDeps, ...http }),
    logger,
    cacheFile,
    now: http.now,
    retryAfterFailureMs,
    saveDelayMs,
  });
}
