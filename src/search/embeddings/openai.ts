import { EmbeddingError } from "./errors.ts";
import { type HttpDeps, postJson } from "./http.ts";
import type { EmbedCall, EmbeddingProvider, EmbeddingSettings } from "./provider-api.ts";
import { toVectors } from "./vectors.ts";

interface OpenAiResponse {
  data?: { embedding?: unknown; index?: unknown }[];
}

/**
 * OpenAI's embeddings endpoint, also spoken by Ollama, llama.cpp's server,
 * vLLM and LM Studio (openai-compatible): POST {base}/embeddings with
 * `{ model, input: [texts] }`, answered by `{ data: [{ index, embedding }] }`.
 */
export function openAiProvider(settings: EmbeddingSettings, deps: HttpDeps): EmbeddingProvider {
  const url = `${settings.baseUrl}/embeddings`;
  const headers: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  return {
    settings,
    async embed(texts: readonly string[], call: EmbedCall): Promise<Float32Array[]> {
      const body = { ...(settings.model ? { model: settings.model } : {}), input: texts, encoding_format: "float" };
      const json = (await postJson(
        { url, headers, body, timeoutMs: settings.timeoutMs, secrets: [settings.apiKey], signal: call.signal },
        call.policy,
        deps,
      )) as OpenAiResponse;
      if (!Array.isArray(json?.data))
        throw new EmbeddingError("EMBEDDING_BAD_RESPONSE", `${url} answered without a data list`);
      // The API keeps input order, but says so through `index`: trust the index.
      const ordered = [...json.data].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
      return toVectors(
        ordered.map((d) => d.embedding),
        texts.length,
        url,
      );
    },
  };
}
