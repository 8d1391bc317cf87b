/**
 * The embedding side of `make eval`: which provider to evaluate (the one the
 * server would use, from the same environment variables, or the local test
 * double with --provider local-hash), and rankers for the vector and hybrid
 * modes built from SkillHub's own modules.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { Catalog } from "../../src/catalog/catalog.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { defaultHttpDeps } from "../../src/search/embeddings/http.ts";
import { createProvider } from "../../src/search/embeddings/provider.ts";
import { describeEmbedding, embeddingSettings } from "../../src/search/embeddings/settings.ts";
import { vectorCachePath } from "../../src/search/embeddings/vector-cache.ts";
import { VectorIndex } from "../../src/search/embeddings/vector-index.ts";
import { scoreFullText } from "../../src/search/engine.ts";
import type { FullTextIndex } from "../../src/search/fulltext.ts";
import { type SearchMode, searchByMode } from "../../src/search/modes.ts";
import { createLogger } from "../../src/util/logger.ts";
import { embeddingServer } from "../../test/helpers/embedding-server.ts";

export type AsyncRanker = (query: string) => Promise<string[]>;

export interface EmbeddingEval {
  /** One line for the report: what was evaluated, or why nothing was. */
  label: string;
  rankers?: { vector: AsyncRanker; hybrid: AsyncRanker };
  close(): void;
}

/**
 * The provider to evaluate: `--provider local-hash` starts the test double
 * (hashed bag of words on a loopback port: a test double, not a language
 * model); otherwise EMBEDDING_PROVIDER and its variables, as for the server.
 * Vectors of a real provider are cached under SKILLHUB_HOME like the server's.
 */
export async function embeddingEval(
  catalog: Catalog,
  index: FullTextIndex,
  corporaDirs: readonly string[],
  argv: readonly string[],
): Promise<EmbeddingEval> {
  const flag = argv.indexOf("--provider");
  const wanted = flag >= 0 ? argv[flag + 1] : undefined;
  const double = wanted === "local-hash" ? embeddingServer() : undefined;
  if (wanted !== undefined && !double)
    throw new Error(
      `--provider ${wanted}: only local-hash (the test double) is built in; real providers come from EMBEDDING_PROVIDER`,
    );
  const env = double
    ? { EMBEDDING_PROVIDER: "openai-compatible", EMBEDDING_BASE_URL: `${double.url}/v1`, EMBEDDING_MODEL: "local-hash" }
    : process.env;
  const { config } = resolveConfig({ env, homeDir: homedir(), cwd: process.cwd() });
  const settings = embeddingSettings(config.embedding);
  if (!settings) {
    return {
      label:
        "Embeddings: none configured (EMBEDDING_PROVIDER=none): vector and hybrid columns skipped. Set EMBEDDING_PROVIDER (as for the server) or pass --provider local-hash (a test double).",
      close: () => {},
    };
  }
  const logger = createLogger({ level: "WARN" });
  const cacheFile = double ? undefined : vectorCachePath(config.cache_path ?? join(config.home, "index"), corporaDirs);
  const vectors = new VectorIndex({
    provider: createProvider(settings, defaultHttpDeps),
    logger,
    cacheFile: () => cacheFile,
    saveDelayMs: 0,
  });
  const started = performance.now();
  await vectors.sync(catalog.skills);
  const status = vectors.status;
  const what = double
    ? "local-hash TEST DOUBLE (hashed bag of words and trigrams, not a language model; figures say nothing about real embeddings)"
    : describeEmbedding(settings);
  const close = () => {
    vectors.close();
    double?.stop();
  };
  if (status.state !== "ready")
    return {
      label: `Embeddings: ${what}: embedding failed (${status.lastError}); vector and hybrid columns skipped.`,
      close,
    };
  const took = ((performance.now() - started) / 1000).toFixed(1);
  const ranker =
    (mode: SearchMode): AsyncRanker =>
    async (query) => {
      const outcome = await searchByMode({
        mode,
        query,
        options: { limit: 10, threshold: 0 },
        skills: catalog.skills,
        fullText: (depth) => scoreFullText(index, catalog, query, { depth }),
        vectors,
      });
      if (outcome.fallbackReason) throw new Error(`${mode} search fell back to full text: ${outcome.fallbackReason}`);
      return outcome.hits.map((h) => h.skill.name);
    };
  return {
    label: `Embeddings: ${what}; ${status.embedded} skills (${status.fromCache} from cache, ${status.requests} requests, ${took} s).`,
    rankers: { vector: ranker("vector"), hybrid: ranker("hybrid") },
    close,
  };
}
