import { z } from "zod";
import { once } from "../util/once.ts";
import { fraction, httpUrl, positiveInt } from "./schema-values.ts";

/**
 * The settings of search and of optional embeddings: part of the configuration's schema
 * (schema.ts), each built on first use; defaults in defaults.ts.
 */

export const SEARCH_MODES = ["fts", "vector", "hybrid"] as const;
export const EMBEDDING_PROVIDERS = ["none", "openai", "gemini", "openai-compatible"] as const;

export const SearchConfig = once(() =>
  z.strictObject({
    /** Default number of results (SEARCH_LIMIT). Default 10. */
    limit: positiveInt().max(100),
    /** Keep hits with score/top >= threshold when more than 5 (SEARCH_THRESHOLD). Default 0.2. */
    threshold: fraction(),
    /** fts, vector or hybrid (SEARCH_MODE). Unset: hybrid with embeddings, else fts. */
    mode: z.enum(SEARCH_MODES).optional(),
    /** Force an index rebuild at start-up (--reindex). */
    reindex: z.boolean(),
    /** Use the persisted index as it is (--skip-auto-reindex). */
    skip_auto_reindex: z.boolean(),
  }),
);

/**
 * Optional embeddings. A provider other than `none` sends skill
 * metadata and queries to an embedding API; the refinement below stops start-up
 * (exit 2) when the chosen provider lacks its key or base URL. Messages never
 * contain a key: they name the variables to set.
 */
export const EmbeddingConfig = once(() =>
  z
    .strictObject({
      /** none (default: nothing leaves the machine), openai, gemini or openai-compatible (EMBEDDING_PROVIDER). */
      provider: z.enum(EMBEDDING_PROVIDERS),
      /** EMBEDDING_MODEL. Unset: text-embedding-3-small (openai), gemini-embedding-001 (gemini), the server's default (openai-compatible). */
      model: z.string().min(1).optional(),
      /** EMBEDDING_BASE_URL: the API's base URL; required for openai-compatible, overrides the others' default. */
      base_url: httpUrl().optional(),
      /** EMBEDDING_API_KEY: a key for any provider; wins over the provider's own variable. */
      api_key: z.string().min(1).optional(),
      /** OPENAI_API_KEY: the openai provider's key. */
      openai_api_key: z.string().min(1).optional(),
      /** GEMINI_API_KEY: the gemini provider's key. */
      gemini_api_key: z.string().min(1).optional(),
      /** OPENAI_BASE_URL: the openai provider's base URL. Default https://api.openai.com/v1. */
      openai_base_url: httpUrl().optional(),
      /** Seconds one embedding request may take (EMBEDDING_TIMEOUT_SECONDS). Default 10. */
      timeout_seconds: z.number().min(0.1),
      /** Texts sent per request (EMBEDDING_BATCH_SIZE). Default 64. */
      batch_size: positiveInt().max(2048),
    })
    .superRefine((e, ctx) => {
      const missing = (message: string) => ctx.addIssue({ code: "custom", path: ["provider"], message });
      if (e.provider === "openai" && !e.api_key && !e.openai_api_key) {
        missing(
          "the openai provider needs an API key: set OPENAI_API_KEY (or EMBEDDING_API_KEY), or EMBEDDING_PROVIDER=none to keep search local",
        );
      }
      if (e.provider === "gemini" && !e.api_key && !e.gemini_api_key) {
        missing(
          "the gemini provider needs an API key: set GEMINI_API_KEY (or EMBEDDING_API_KEY), or EMBEDDING_PROVIDER=none to keep search local",
        );
      }
      if (e.provider === "openai-compatible" && !e.base_url) {
        missing(
          "the openai-compatible provider needs the server's URL: set EMBEDDING_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama)",
        );
      }
    }),
);
