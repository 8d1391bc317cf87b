import { EmbeddingError } from "./errors.ts";
import { type HttpDeps, postJson } from "./http.ts";
import type { EmbedCall, EmbeddingProvider, EmbeddingSettings } from "./provider-api.ts";
import { toVectors } from "./vectors.ts";

interface GeminiResponse {
  embeddings?: { values?: unknown }[];
}

/**
 * The Gemini API's batchEmbedContents: POST
 * {base}/models/{model}:batchEmbedContents with
 * `{ requests: [{ model: "models/{model}", content: { parts: [{ text }] }, taskType }] }`,
 * answered by `{ embeddings: [{ values }] }` in request order. The key goes in
 * the x-goog-api-key header, never in the URL (URLs end up in logs).
 */
export function geminiProvider(settings: EmbeddingSettings, deps: HttpDeps): EmbeddingProvider {
  const model = settings.model ?? "";
  const url = `${settings.baseUrl}/models/${encodeURIComponent(model)}:batchEmbedContents`;
  const headers: Record<string, string> = settings.apiKey ? { "x-goog-api-key": settings.apiKey } : {};
  return {
    settings,
    async embed(texts: readonly string[], call: EmbedCall): Promise<Float32Array[]> {
      const taskType = call.purpose === "query" ? "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT";
      const body = {
        requests: texts.map((text) => ({ model: `models/${model}`, content: { parts: [{ text }] }, taskType })),
      };
      const json = (await postJson(
        { url, headers, body, timeoutMs: settings.timeoutMs, secrets: [settings.apiKey], signal: call.signal },
        call.policy,
        deps,
      )) as GeminiResponse;
      if (!Array.isArray(json?.embeddings))
        throw new EmbeddingError("EMBEDDING_BAD_RESPONSE", `${url} answered without an embeddings list`);
      return toVectors(
        json.embeddings.map((e) => e.values),
        texts.length,
        url,
      );
    },
  };
}
