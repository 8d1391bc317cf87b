import type { Config } from "../../config/schema.ts";
import { geminiProvider } from "./gemini.ts";
import type { HttpDeps } from "./http.ts";
import { openAiProvider } from "./openai.ts";
import type { EmbeddingProvider, EmbeddingSettings, RemoteProvider } from "./provider-api.ts";

type EmbeddingConfig = Config["embedding"];

/** What SkillHub knows of one provider: its defaults, which variables it reads, and how to talk to it. */
export interface ProviderEntry {
  /** The model when EMBEDDING_MODEL is unset; undefined: the server's own default (no model is named). */
  defaultModel?: string;
  /** The model as the API names it (Gemini's `models/` prefix is added by the request). Default: as given. */
  modelName?: (model: string) => string;
  /** Where requests go (before the trailing slash is cut). */
  baseUrl: (config: EmbeddingConfig) => string;
  /** The key sent with each request, if any. */
  apiKey: (config: EmbeddingConfig) => string | undefined;
  /** Vectors depend on the server too: two local servers may serve different models under one name. */
  serverInIdentity?: boolean;
  create: (settings: EmbeddingSettings, deps: HttpDeps) => EmbeddingProvider;
}

/**
 * Every remote provider, by EMBEDDING_PROVIDER value: adding one is an entry here (and its value in the
 * config schema's EMBEDDING_PROVIDERS, which the type below keeps in step).
 */
export const PROVIDERS: Readonly<Record<RemoteProvider, ProviderEntry>> = {
  openai: {
    defaultModel: "text-embedding-3-small",
    baseUrl: (c) => c.base_url ?? c.openai_base_url ?? "https://api.openai.com/v1",
    apiKey: (c) => c.api_key ?? c.openai_api_key,
    create: openAiProvider,
  },
  gemini: {
    // text-embedding-004 is being retired in favour of gemini-embedding-001.
    defaultModel: "gemini-embedding-001",
    modelName: (model) => model.replace(/^models\//, ""),
    baseUrl: (c) => c.base_url ?? "https://generativelanguage.googleapis.com/v1beta",
    apiKey: (c) => c.api_key ?? c.gemini_api_key,
    create: geminiProvider,
  },
  "openai-compatible": {
    // The schema requires base_url for this provider.
    baseUrl: (c) => c.base_url ?? "",
    // Security: only EMBEDDING_API_KEY is sent to such a server, never OPENAI_API_KEY, which belongs to another service.
    apiKey: (c) => c.api_key,
    serverInIdentity: true,
    create: openAiProvider,
  },
};

export function createProvider(settings: EmbeddingSettings, deps: HttpDeps): EmbeddingProvider {
  return PROVIDERS[settings.provider].create(settings, deps);
}
