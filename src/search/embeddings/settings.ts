import type { Config } from "../../config/schema.ts";
import { trimEndChar } from "../../util/trim-char.ts";

export type SearchMode = "fts" | "vector" | "hybrid";
export type RemoteProvider = "openai" | "gemini" | "openai-compatible";

/** Models used when EMBEDDING_MODEL is unset. openai-compatible: whatever the server serves by default. */
export const DEFAULT_MODELS: Readonly<Record<Exclude<RemoteProvider, "openai-compatible">, string>> = {
  openai: "text-embedding-3-small",
  // text-embedding-004 is being retired in favour of gemini-embedding-001.
  gemini: "gemini-embedding-001",
};

export const DEFAULT_BASE_URLS: Readonly<Record<Exclude<RemoteProvider, "openai-compatible">, string>> = {
  openai: "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com/v1beta",
};

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

/** The embedding settings in force, or undefined with EMBEDDING_PROVIDER=none (nothing is ever sent). */
export function embeddingSettings(config: Config["embedding"]): EmbeddingSettings | undefined {
  if (config.provider === "none") return undefined;
  const common = { timeoutMs: Math.round(config.timeout_seconds * 1000), batchSize: config.batch_size };
  const trim = (url: string) => trimEndChar(url, "/");
  switch (config.provider) {
    case "openai":
      return {
        ...common,
        provider: "openai",
        model: config.model ?? DEFAULT_MODELS.openai,
        baseUrl: trim(config.base_url ?? config.openai_base_url ?? DEFAULT_BASE_URLS.openai),
        apiKey: config.api_key ?? config.openai_api_key,
      };
    case "gemini":
      return {
        ...common,
        provider: "gemini",
        model: (config.model ?? DEFAULT_MODELS.gemini).replace(/^models\//, ""),
        baseUrl: trim(config.base_url ?? DEFAULT_BASE_URLS.gemini),
        apiKey: config.api_key ?? config.gemini_api_key,
      };
    case "openai-compatible":
      // The schema requires base_url for this provider. Security: only EMBEDDING_API_KEY is sent to
      // such a server, never OPENAI_API_KEY, which belongs to another service.
      return {
        ...common,
        provider: "openai-compatible",
        model: config.model,
        baseUrl: trim(config.base_url ?? ""),
        apiKey: config.api_key,
      };
  }
}

/** SEARCH_MODE, else hybrid with embeddings and fts without (DESIGN §7.3). */
export function searchMode(config: Config): SearchMode {
  return config.search.mode ?? (config.embedding.provider === "none" ? "fts" : "hybrid");
}

/**
 * What vectors depend on: provider and model, plus the server for
 * openai-compatible (two local servers may serve different models under one
 * name). A change invalidates the vector cache (seed 000 §4.2).
 */
export function vectorIdentity(settings: EmbeddingSettings): string {
  const model = settings.model ?? "(server default)";
  return settings.provider === "openai-compatible"
    ? `${settings.provider}/${model}@${settings.baseUrl}`
    : `${settings.provider}/${model}`;
}

/** For logs and `doctor`: provider, model and where requests go; never the key. */
export function describeEmbedding(settings: EmbeddingSettings | undefined): string {
  if (!settings) return "none (nothing leaves this machine)";
  return `${settings.provider} ${settings.model ?? "(server default model)"} at ${withoutUserInfo(settings.baseUrl)}${settings.apiKey ? " (key set)" : ""}`;
}

/** Security: a password in the URL (http://user:pass@host) is not shown either. */
function withoutUserInfo(url: string): string {
  return url.replace(/^(https?:\/\/)[^/@\s]*@/i, "$1***@");
}
