import type { Config } from "../../config/schema.ts";
import { timerDelay } from "../../util/timer-limit.ts";
import { trimEndChar } from "../../util/trim-char.ts";
import { PROVIDERS } from "./provider.ts";
import type { EmbeddingSettings } from "./provider-api.ts";

export type SearchMode = "fts" | "vector" | "hybrid";
/** Where the settings type lives (provider-api.ts), re-exported for the callers of embeddingSettings. */
export type { EmbeddingSettings } from "./provider-api.ts";

/** The embedding settings in force, or undefined with EMBEDDING_PROVIDER=none (nothing is ever sent). */
export function embeddingSettings(config: Config["embedding"]): EmbeddingSettings | undefined {
  if (config.provider === "none") return undefined;
  const entry = PROVIDERS[config.provider];
  const model = config.model ?? entry.defaultModel;
  return {
    provider: config.provider,
    model: model !== undefined && entry.modelName ? entry.modelName(model) : model,
    baseUrl: trimEndChar(entry.baseUrl(config), "/"),
    apiKey: entry.apiKey(config),
    // A longer delay would fire at once.
    timeoutMs: timerDelay(Math.round(config.timeout_seconds * 1000)),
    batchSize: config.batch_size,
  };
}

/** SEARCH_MODE, else hybrid with embeddings and fts without. */
export function searchMode(config: Config): SearchMode {
  return config.search.mode ?? (config.embedding.provider === "none" ? "fts" : "hybrid");
}

/**
 * What vectors depend on: provider and model, plus the server for
 * openai-compatible (two local servers may serve different models under one
 * name). A change invalidates the vector cache.
 */
export function vectorIdentity(settings: EmbeddingSettings): string {
  const model = settings.model ?? "(server default)";
  return PROVIDERS[settings.provider].serverInIdentity
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
