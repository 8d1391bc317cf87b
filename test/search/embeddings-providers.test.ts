import { afterAll, describe, expect, test } from "bun:test";
import { configDefaults } from "../../src/config/defaults.ts";
import { EmbeddingConfig } from "../../src/config/schema.ts";
import { EmbeddingError } from "../../src/search/embeddings/errors.ts";
import {
  BACKGROUND_RETRY,
  defaultHttpDeps,
  type HttpDeps,
  QUERY_RETRY,
  retryAfter,
} from "../../src/search/embeddings/http.ts";
import { createProvider } from "../../src/search/embeddings/provider.ts";
import { type EmbeddingSettings, embeddingSettings } from "../../src/search/embeddings/settings.ts";
import { embeddingServer, hashEmbedding } from "../helpers/embedding-server.ts";

const servers: { stop: () => void }[] = [];
afterAll(() => {
  for (const s of servers) s.stop();
});

function server(options: Parameters<typeof embeddingServer>[0] = {}) {
  const s = embeddingServer(options);
  servers.push(s);
  return s;
}

/** Waits recorded instead of slept, so retry tests take no time. */
function fastDeps(over: Partial<HttpDeps> = {}) {
  const waits: number[] = [];
  const deps: HttpDeps = { ...defaultHttpDeps, sleep: async (ms) => void waits.push(ms), ...over };
  return { deps, waits };
}

const settings = (over: Partial<EmbeddingSettings>): EmbeddingSettings => ({
  provider: "openai",
  model: "text-embedding-3-small",
  baseUrl: "http://127.0.0.1:1",
  timeoutMs: 5000,
  batchSize: 64,
  ...over,
});

const doc = { purpose: "document" as const, policy: BACKGROUND_RETRY };
const query = { purpose: "query" as const, policy: QUERY_RETRY };

describe("provider settings", () => {
  test("defaults per provider; openai-compatible sends only EMBEDDING_API_KEY, never OPENAI_API_KEY", () => {
    const parse = (v: object) =>
      embeddingSettings(EmbeddingConfig().parse({ ...configDefaults("/h").embedding, ...v }));
    expect(parse({})).toBeUndefined();
    // A timeout past what a timer takes (about 24.8 days) would fire at once: it waits as long as one can.
    expect(parse({ provider: "openai", openai_api_key: "sk-1", timeout_seconds: 3_000_000 })?.timeoutMs).toBe(
      2 ** 31 - 1,
    );
    expect(parse({ provider: "openai", openai_api_key: "sk-1" })).toMatchObject({
      model: "text-embedding-3-small",
      baseUrl: "https://api.openai.com/v1",
      apiKey: "sk-1",
    });
    expect(parse({ provider: "openai", openai_api_key: "sk-1", openai_base_url: "http://proxy/v1/" })?.baseUrl).toBe(
      "http://proxy/v1",
    );
    expect(parse({ provider: "gemini", gemini_api_key: "g-1" })).toMatchObject({
      model: "gemini-embedding-001",
      baseUrl: "https://generativelanguage.googleapis.com/v1beta",
      apiKey: "g-1",
    });
    expect(parse({ provider: "gemini", gemini_api_key: "g-1", model: "models/text-embedding-004" })?.model).toBe(
      "text-embedding-004",
    );
    const local = parse({
      provider: "openai-compatible",
      base_url: "http://127.0.0.1:11434/v1",
      openai_api_key: "sk-1",
    });
    expect(local).toMatchObject({ model: undefined, apiKey: undefined, baseUrl: "http://127.0.0.1:11434/v1" });
    expect(parse({ provider: "openai", openai_api_key: "sk-1", api_key: "sk-2" })?.apiKey).toBe("sk-2");
  });
});

describe("OpenAI format", () => {
  test("POST {base}/embeddings with model and an input array; vectors in input order; Bearer key", async () => {
    const s = server({ key: "sk-test-123456" });
    const provider = createProvider(settings({ baseUrl: `${s.url}/v1`, apiKey: "sk-test-123456" }), defaultHttpDeps);
    const vectors = await provider.embed(["pdf tables", "git commits"], doc);
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]).toMatchObject({
      path: "/v1/embeddings",
      model: "text-embedding-3-small",
      inputs: ["pdf tables", "git commits"],
      credential: "Bearer sk-test-123456",
    });
    expect(Array.from(vectors[0] as Float32Array)).toEqual(
      hashEmbedding("pdf tables", "text-embedding-3-small").map(Math.fround),
    );
    expect(Array.from(vectors[1] as Float32Array)).toEqual(
      hashEmbedding("git commits", "text-embedding-3-small").map(Math.fround),
    );
  });

  test("openai-compatible without a model or key sends neither", async () => {
    const s = server();
    const provider = createProvider(
      settings({ provider: "openai-compatible", model: undefined, baseUrl: `${s.url}/v1` }),
      defaultHttpDeps,
    );
    await provider.embed(["x"], doc);
    expect(s.requests[0]).toMatchObject({ model: undefined, credential: null });
  });

  test("a 401 is not retried, and the key never appears in the error, even when echoed", async () => {
    const s = server();
    s.fail({
      status: 401,
      body: JSON.stringify({ error: { message: "Incorrect API key provided: sk-live-abcdef123456" } }),
    });
    const { deps, waits } = fastDeps();
    const provider = createProvider(settings({ baseUrl: s.url, apiKey: "sk-live-abcdef123456" }), deps);
    const error = (await provider.embed(["x"], doc).catch((e) => e)) as EmbeddingError;
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error.code).toBe("EMBEDDING_HTTP_ERROR");
    expect(error.status).toBe(401);
    expect(error.message).toContain("HTTP 401");
    expect(error.message).not.toContain("sk-live-abcdef123456");
    expect(waits).toEqual([]);
    expect(s.requests).toHaveLength(1);
  });

  test("a wrong answer shape is EMBEDDING_BAD_RESPONSE", async () => {
    const s = server();
    s.fail(
      { status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: [1, "x"] }] }) },
      { status: 200, body: "<html>" },
    );
    const provider = createProvider(settings({ baseUrl: s.url }), defaultHttpDeps);
    expect(((await provider.embed(["x"], doc).catch((e) => e)) as EmbeddingError).code).toBe("EMBEDDING_BAD_RESPONSE");
    expect(((await provider.embed(["x"], doc).catch((e) => e)) as EmbeddingError).code).toBe("EMBEDDING_BAD_RESPONSE");
  });
});

describe("Gemini format", () => {
  test("batchEmbedContents with models/{model}, parts text and task types; key in x-goog-api-key, not the URL", async () => {
    const s = server({ key: "g-key-123456" });
    const provider = createProvider(
      settings({
        provider: "gemini",
        model: "gemini-embedding-001",
        baseUrl: `${s.url}/v1beta`,
        apiKey: "g-key-123456",
      }),
      defaultHttpDeps,
    );
    const docs = await provider.embed(["invoice pdf", "slow sql"], doc);
    await provider.embed(["find invoices"], query);
    expect(s.requests[0]).toMatchObject({
      format: "gemini",
      path: "/v1beta/models/gemini-embedding-001:batchEmbedContents",
      inputs: ["invoice pdf", "slow sql"],
      taskTypes: ["RETRIEVAL_DOCUMENT", "RETRIEVAL_DOCUMENT"],
      credential: "g-key-123456",
    });
    expect(s.requests[1]?.taskTypes).toEqual(["RETRIEVAL_QUERY"]);
    expect(s.requests[0]?.path).not.toContain("key");
    expect(Array.from(docs[1] as Float32Array)).toEqual(
      hashEmbedding("slow sql", "gemini-embedding-001").map(Math.fround),
    );
  });
});

describe("time limits and retries", () => {
  test("a request over timeout_seconds fails with EMBEDDING_TIMEOUT, promptly", async () => {
    // The server would answer after 10 s: a timeout error proves the call gave up first, whatever the clock.
    const s = server({ delayMs: 10_000 });
    const provider = createProvider(settings({ baseUrl: s.url, timeoutMs: 150 }), defaultHttpDeps);
    const error = (await provider.embed(["x"], query).catch((e) => e)) as EmbeddingError;
    expect(error.code).toBe("EMBEDDING_TIMEOUT");
    expect(error.message).toContain("0.15 s");
    expect(s.requests).toHaveLength(1);
  });

  test("background requests retry a timeout; query requests do not", async () => {
    const s = server({ delayMs: 400 });
    const { deps, waits } = fastDeps();
    const provider = createProvider(settings({ baseUrl: s.url, timeoutMs: 100 }), deps);
    expect(((await provider.embed(["x"], doc).catch((e) => e)) as EmbeddingError).code).toBe("EMBEDDING_TIMEOUT");
    expect(waits).toEqual([500, 1000, 2000, 4000]);
  });

  test("429 honours Retry-After (seconds or HTTP date); 5xx backs off exponentially", async () => {
    const s = server();
    const now = Date.parse("2030-01-01T00:00:00Z");
    const { deps, waits } = fastDeps({ now: () => now });
    const provider = createProvider(settings({ baseUrl: s.url }), deps);
    s.fail(
      { status: 429, retryAfter: "3" },
      { status: 429, retryAfter: "Tue, 01 Jan 2030 00:00:07 GMT" },
      { status: 503 },
      { status: 500 },
    );
    const vectors = await provider.embed(["pdf"], doc);
    expect(vectors).toHaveLength(1);
    expect(waits).toEqual([3000, 7000, 2000, 4000]);
    expect(s.requests).toHaveLength(5);
  });

  test("a query gives up at once when Retry-After is longer than it may wait, and after 2 attempts", async () => {
    const s = server();
    const { deps, waits } = fastDeps();
    const provider = createProvider(settings({ baseUrl: s.url }), deps);
    s.fail({ status: 429, retryAfter: "30" });
    expect(((await provider.embed(["q"], query).catch((e) => e)) as EmbeddingError).status).toBe(429);
    expect(waits).toEqual([]);
    s.fail({ status: 500 }, { status: 502 });
    expect(((await provider.embed(["q"], query).catch((e) => e)) as EmbeddingError).status).toBe(502);
    expect(waits).toEqual([200]);
  });

  test("an unreachable server is EMBEDDING_UNREACHABLE", async () => {
    const s = server();
    const url = s.url;
    s.stop();
    const provider = createProvider(settings({ baseUrl: url }), defaultHttpDeps);
    expect(((await provider.embed(["q"], query).catch((e) => e)) as EmbeddingError).code).toBe("EMBEDDING_UNREACHABLE");
  });

  test("Retry-After parsing", () => {
    expect(retryAfter(null, 0)).toBeUndefined();
    expect(retryAfter("1.5", 0)).toBe(1500);
    expect(retryAfter("Thu, 01 Jan 1970 00:00:10 GMT", 4000)).toBe(6000);
    expect(retryAfter("Thu, 01 Jan 1970 00:00:01 GMT", 4000)).toBe(0);
    expect(retryAfter("soon", 0)).toBeUndefined();
  });
});
