import { geminiProvider } from "./gemini.ts";
import type { HttpDeps, RetryPolicy } from "./http.ts";
import { openAiProvider } from "./openai.ts";
import type { EmbeddingSettings } from "./settings.ts";

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

export function createProvider(settings: EmbeddingSettings, deps: HttpDeps): EmbeddingProvider {
  return settings.provider === "gemini" ? geminiProvider(settings, deps) : openAiProvider(settings, deps);
}
