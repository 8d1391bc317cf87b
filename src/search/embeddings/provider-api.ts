import type { Config } from "../../config/schema.ts";
import type { RetryPolicy } from "./http.ts";

/** A provider that sends requests (every EMBEDDING_PROVIDER but `none`). */
export type RemoteProvider = Exclude<Config["embedding"]["provider"], "none">;

/** Everything a provider needs, defaults applied. Holds the key: never log it whole (see `describeEmbedding`). */
export interface EmbeddingSettings {
  provider: RemoteProvider;
  /** Undefined only for openai-compatible without EMBEDDING_MODEL: the request then names no model. */
  model?: string;
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey?: string;
  /** Milliseconds one request may take. */
  timeoutMs: number;
  /** Texts per request. */
  batchSize: number;
}

/** Skills are embedded as documents, queries as queries (Gemini tunes vectors for each). */
export type EmbedPurpose = "document" | "query";

export interface EmbedCall {
  purpose: EmbedPurpose;
  policy: RetryPolicy;
  signal?: AbortSignal;
}

/**
 * One remote embedding API. `embed` makes one request (callers batch) and
 * returns one vector per text, in order. EMBEDDING_PROVIDER=none has no
 * provider at all: nothing is ever constructed that could send a request.
 */
export interface EmbeddingProvider {
  readonly settings: EmbeddingSettings;
  embed(texts: readonly string[], call: EmbedCall): Promise<Float32Array[]>;
}
