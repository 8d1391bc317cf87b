/**
 * A test double of a remote embedding API: a real HTTP server on a free
 * loopback port speaking OpenAI's `/embeddings` and the Gemini API's
 * `:batchEmbedContents` formats, returning deterministic vectors (hashed bag
 * of words and character trigrams, so that texts sharing words are close).
 * Not a language model: it knows no synonyms.
 */

export interface RecordedRequest {
  format: "openai" | "gemini";
  path: string;
  model: string | undefined;
  inputs: string[];
  /** Gemini's taskType per input. */
  taskTypes: string[];
  /** Authorization (OpenAI) or x-goog-api-key (Gemini) header, as received. */
  credential: string | null;
}

export interface Scripted {
  status: number;
  body?: string;
  retryAfter?: string;
}

export interface EmbeddingServerOptions {
  /** Vector length. Default 256. */
  dims?: number;
  /** The key the server expects (Bearer for OpenAI, x-goog-api-key for Gemini); unset = any. */
  key?: string;
  /** Milliseconds before each answer. Default 0. */
  delayMs?: number;
}

const STOP = new Set(
  "a an and are as at be by for from how i in into is it of on or the to with what when use using".split(" "),
);

/** The double's vector for `text` under `model` (another model gives other vectors). */
export function hashEmbedding(text: string, model = "", dims = 256): number[] {
  const vector = new Array<number>(dims).fill(0);
  const add = (feature: string, weight: number) => {
    const h = BigInt(Bun.hash(`${model}\u0000${feature}`));
    const index = Number(h % BigInt(dims));
    vector[index] = (vector[index] ?? 0) + ((h >> 32n) & 1n ? weight : -weight);
  };
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (STOP.has(raw)) continue;
    const word = raw.length > 4 ? raw.replace(/(ing|ed|es|s)$/, "") : raw;
    add(`w:${word}`, 1);
    const padded = `^${word}$`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.3);
  }
  return vector;
}

export function embeddingServer(options: EmbeddingServerOptions = {}) {
  const dims = options.dims ?? 256;
  const requests: RecordedRequest[] = [];
  const script: Scripted[] = [];
  let hits = 0;
  const state = { delayMs: options.delayMs ?? 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      hits++;
      const url = new URL(request.url);
      const gemini = /\/models\/([^/:]+):batchEmbedContents$/.exec(url.pathname);
      const openai = url.pathname.endsWith("/embeddings");
      if (request.method !== "POST" || (!gemini && !openai))
        return Response.json({ error: { message: "not found" } }, { status: 404 });
      const body = (await request.json()) as Record<string, unknown>;
      const record: RecordedRequest = gemini
        ? geminiRecord(url.pathname, gemini[1] as string, body, request)
        : openAiRecord(url.pathname, body, request);
      requests.push(record);
      // A client that gave up (timeout) ends the wait, so stopping the server is not held up.
      if (state.delayMs > 0)
        await Promise.race([
          Bun.sleep(state.delayMs),
          new Promise((resolve) => request.signal.addEventListener("abort", resolve)),
        ]);
      const next = script.shift();
      if (next) {
        const headers: Record<string, string> = next.retryAfter === undefined ? {} : { "retry-after": next.retryAfter };
        return new Response(next.body ?? JSON.stringify({ error: { message: `scripted ${next.status}` } }), {
          status: next.status,
          headers,
        });
      }
      if (options.key !== undefined && record.credential !== (gemini ? options.key : `Bearer ${options.key}`)) {
        return Response.json({ error: { message: "invalid API key" } }, { status: 401 });
      }
      const vectors = record.inputs.map((text) => hashEmbedding(text, record.model ?? "", dims));
      if (gemini) return Response.json({ embeddings: vectors.map((values) => ({ values })) });
      // Shuffled on purpose: clients must order by `index`.
      const data = vectors.map((embedding, index) => ({ object: "embedding", index, embedding })).reverse();
      return Response.json({ object: "list", data, model: record.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    /** Every HTTP request received, whatever its path. */
    get hits() {
      return hits;
    },
    /** Texts embedded as documents or queries, over all requests. */
    inputs: () => requests.flatMap((r) => r.inputs),
    /** The next answers are these, in order, instead of vectors. */
    fail: (...answers: Scripted[]) => void script.push(...answers),
    setDelay: (ms: number) => {
      state.delayMs = ms;
    },
    reset: () => {
      requests.length = 0;
      hits = 0;
    },
    stop: () => server.stop(true),
  };
}

export type EmbeddingServer = ReturnType<typeof embeddingServer>;

function openAiRecord(path: string, body: Record<string, unknown>, request: Request): RecordedRequest {
  const input = body.input;
  const inputs = Array.isArray(input) ? input.map(String) : [String(input)];
  return {
    format: "openai",
    path,
    model: typeof body.model === "string" ? body.model : undefined,
    inputs,
    taskTypes: [],
    credential: request.headers.get("authorization"),
  };
}

function geminiRecord(path: string, model: string, body: Record<string, unknown>, request: Request): RecordedRequest {
  const items = (Array.isArray(body.requests) ? body.requests : []) as {
    model?: string;
    content?: { parts?: { text?: string }[] };
    taskType?: string;
  }[];
  return {
    format: "gemini",
    path,
    model,
    inputs: items.map((r) => (r.content?.parts ?? []).map((p) => p.text ?? "").join("")),
    taskTypes: items.map((r) => r.taskType ?? ""),
    credential: request.headers.get("x-goog-api-key"),
  };
}
