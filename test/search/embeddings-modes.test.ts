import { afterAll, describe, expect, test } from "bun:test";
import { closeAfterEach } from "../helpers/closers.ts";
import { embeddingServer } from "../helpers/embedding-server.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { type ConnectOptions, connect } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

function server(options: Parameters<typeof embeddingServer>[0] = {}) {
  const s = embeddingServer(options);
  closers.push(s.stop);
  return s;
}

function skills() {
  const dir = tempDir();
  writeSkill(dir, "pdf-invoices", {
    description: "Extract invoice numbers from PDF files",
    extra: "metadata:\n  skillhub:\n    category: documents\n    tags: [pdf, invoice]",
  });
  writeSkill(dir, "sql-tuning", { description: "Speed up slow SQL queries with EXPLAIN" });
  writeSkill(dir, "git-commits", { description: "Write clear git commit messages" });
  writeSkill(dir, "bar-charts", { description: "Draw bar charts from spreadsheets" });
  return dir;
}

interface Answer {
  skills: { name: string; score: number; matched?: string }[];
  search_mode?: string;
  fallback_reason?: string;
}

/** An in-memory MCP session; `waitForVectors` resolves when the background embedding is over. */
async function open(env: Record<string, string>, hub: ConnectOptions["hub"] = {}) {
  const session = await connect({
    flags: { "skills-dir": [skills()] },
    env,
    hub: { ...hub, embedding: { sleep: async () => {}, ...hub?.embedding } },
  });
  closers.push(session.close);
  const search = async (query: string, args: Record<string, unknown> = {}) =>
    (await session.call("search_skills", { query, ...args })).structuredContent as unknown as Answer;
  return { ...session, search, waitForVectors: () => session.hub.search.vectorsSettled() };
}

const local = (url: string, over: Record<string, string> = {}) => ({
  EMBEDDING_PROVIDER: "openai-compatible",
  EMBEDDING_BASE_URL: `${url}/v1`,
  ...over,
});

describe("search modes (SEARCH_MODE)", () => {
  test("hybrid is the default with a provider; full text answers, and says why, until the vectors are ready", async () => {
    const s = server({ delayMs: 300 });
    const { search, waitForVectors } = await open(local(s.url));
    const early = await search("invoice numbers in PDF files");
    expect(early.search_mode).toBe("fts");
    expect(early.fallback_reason).toContain("vectors not ready yet (0 of 4 skills embedded)");
    expect(early.skills[0]?.name).toBe("pdf-invoices");
    await waitForVectors();
    s.setDelay(0);
    const ready = await search("invoice numbers in PDF files");
    expect(ready).toMatchObject({ search_mode: "hybrid" });
    expect(ready.fallback_reason).toBeUndefined();
    expect(ready.skills[0]).toMatchObject({ name: "pdf-invoices", score: 1 });
    for (const hit of ready.skills) expect(hit.score).toBeGreaterThan(0);
    for (const hit of ready.skills) expect(hit.score).toBeLessThanOrEqual(1);
  });

  test("vector: cosine similarity as the score, the search limit applies", async () => {
    const s = server();
    const { search, waitForVectors } = await open(local(s.url, { SEARCH_MODE: "vector" }));
    await waitForVectors();
    const answer = await search("slow sql queries", { limit: 2 });
    expect(answer.search_mode).toBe("vector");
    expect(answer.skills).toHaveLength(2);
    expect(answer.skills[0]?.name).toBe("sql-tuning");
    expect(answer.skills[0]?.score).toBeLessThan(1);
    expect(answer.skills[0]?.score).toBeGreaterThan(answer.skills[1]?.score ?? 1);
  });

  test("each hit says why: the words it matched, and how close in meaning when vectors found it", async () => {
    const s = server();
    const hybrid = await open(local(s.url));
    await hybrid.waitForVectors();
    const both = await hybrid.search("invoice numbers in PDF files");
    expect(both.search_mode).toBe("hybrid");
    expect(both.skills[0]?.name).toBe("pdf-invoices");
    expect(both.skills[0]?.matched).toMatch(
      /^name: invoice, PDF; description: invoice, numbers, PDF, files; tags: invoice, PDF; similar in meaning \(0\.\d\d\)$/,
    );
    // A skill only the vectors found names no word.
    const meaningOnly = both.skills.find((h) => h.name === "git-commits");
    expect(meaningOnly?.matched).toMatch(/^similar in meaning \((0|-0)\.\d\d\)$/);
    const vector = await open(local(s.url, { SEARCH_MODE: "vector" }));
    await vector.waitForVectors();
    const answer = await vector.search("slow sql queries");
    expect(answer.skills[0]?.matched).toMatch(/^similar in meaning \(0\.\d\d\)$/);
  });

  test("a 500 on the query falls back to full text with the reason; the next search uses vectors again", async () => {
    const s = server();
    const { search, waitForVectors } = await open(local(s.url));
    await waitForVectors();
    s.fail({ status: 500 }, { status: 500 });
    const failed = await search("bar charts");
    expect(failed.search_mode).toBe("fts");
    expect(failed.fallback_reason).toMatch(
      /^query embedding failed: HTTP 500 from http:\/\/127\.0\.0\.1:\d+: scripted 500$/,
    );
    expect(failed.skills[0]?.name).toBe("bar-charts");
    expect((await search("bar charts")).search_mode).toBe("hybrid");
  });

  test("a query over EMBEDDING_TIMEOUT_SECONDS falls back to full text", async () => {
    const s = server();
    const { search, waitForVectors } = await open(
      local(s.url, { EMBEDDING_TIMEOUT_SECONDS: "0.2", SEARCH_MODE: "vector" }),
    );
    await waitForVectors();
    // The server would answer after 10 s: a full-text answer with this reason means the query gave up first.
    s.setDelay(10_000);
    const answer = await search("git commit messages");
    expect(answer.search_mode).toBe("fts");
    expect(answer.fallback_reason).toContain("did not answer within 0.2 s");
  });

  test("when embedding the skills fails, full text answers; a later search retries and recovers", async () => {
    const s = server();
    s.fail(...Array.from({ length: 5 }, () => ({ status: 503 })));
    const { search, waitForVectors, logger } = await open(local(s.url), { embedding: { retryAfterFailureMs: 0 } });
    await waitForVectors();
    const down = await search("slow sql");
    expect(down.search_mode).toBe("fts");
    expect(down.fallback_reason).toContain("embeddings unavailable: HTTP 503");
    expect(logger.lines.some((l) => l.includes("WARN") && l.includes("HTTP 503"))).toBe(true);
    await waitForVectors();
    expect((await search("slow sql")).search_mode).toBe("hybrid");
  });

  test("429 while embedding the skills is retried after Retry-After", async () => {
    const s = server();
    s.fail({ status: 429, retryAfter: "1" });
    const waits: number[] = [];
    const { search, waitForVectors } = await open(local(s.url), {
      embedding: { sleep: async (ms: number) => void waits.push(ms) },
    });
    await waitForVectors();
    expect(waits).toEqual([1000]);
    expect((await search("slow sql")).search_mode).toBe("hybrid");
  });
});

describe("EMBEDDING_PROVIDER=none: nothing leaves the machine", () => {
  test("the default makes no request, even with a base URL and keys in the environment", async () => {
    const s = server();
    const { search } = await open({
      EMBEDDING_BASE_URL: `${s.url}/v1`,
      OPENAI_BASE_URL: `${s.url}/v1`,
      OPENAI_API_KEY: "sk-unused-123456",
    });
    const answer = await search("invoice numbers");
    expect(answer).toMatchObject({ search_mode: "fts" });
    expect(answer.fallback_reason).toBeUndefined();
    expect(answer.skills[0]?.name).toBe("pdf-invoices");
    await Bun.sleep(50);
    expect(s.hits).toBe(0);
  });

  test("SEARCH_MODE=hybrid without a provider: full text, and the reason", async () => {
    const s = server();
    const { search, logger } = await open({ SEARCH_MODE: "hybrid", EMBEDDING_BASE_URL: `${s.url}/v1` });
    const answer = await search("invoice numbers");
    expect(answer).toMatchObject({
      search_mode: "fts",
      fallback_reason: "no embedding provider is configured (EMBEDDING_PROVIDER=none)",
    });
    expect(logger.lines.some((l) => l.includes("SEARCH_MODE=hybrid needs an embedding provider"))).toBe(true);
    expect(s.hits).toBe(0);
  });

  test("SEARCH_MODE=fts with a provider never embeds anything", async () => {
    const s = server();
    const { search, waitForVectors } = await open(local(s.url, { SEARCH_MODE: "fts" }));
    await waitForVectors();
    expect((await search("invoice numbers")).search_mode).toBe("fts");
    expect(s.hits).toBe(0);
  });
});

describe("providers through the server", () => {
  test("openai: OPENAI_BASE_URL and OPENAI_API_KEY are used; the key is never logged", async () => {
    const key = "sk-proj-SECRET-0123456789";
    const s = server({ key });
    const { search, waitForVectors, logger } = await open({
      EMBEDDING_PROVIDER: "openai",
      OPENAI_API_KEY: key,
      OPENAI_BASE_URL: `${s.url}/v1`,
      LOG_LEVEL: "DEBUG",
    });
    await waitForVectors();
    expect((await search("commit messages")).search_mode).toBe("hybrid");
    expect(
      s.requests.every(
        (r) => r.format === "openai" && r.model === "text-embedding-3-small" && r.credential === `Bearer ${key}`,
      ),
    ).toBe(true);
    expect(logger.lines.some((l) => l.includes("embeddings: openai text-embedding-3-small at http://127.0.0.1"))).toBe(
      true,
    );
    expect(logger.lines.join("\n")).not.toContain(key);
  });

  test("gemini: batchEmbedContents with GEMINI_API_KEY", async () => {
    const s = server({ key: "g-key-0123456789" });
    const { search, waitForVectors } = await open({
      EMBEDDING_PROVIDER: "gemini",
      GEMINI_API_KEY: "g-key-0123456789",
      EMBEDDING_BASE_URL: `${s.url}/v1beta`,
    });
    await waitForVectors();
    const answer = await search("charts from spreadsheets");
    expect(answer.search_mode).toBe("hybrid");
    expect(answer.skills[0]?.name).toBe("bar-charts");
    expect(s.requests.map((r) => r.path)).toContain("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(s.requests.at(-1)?.taskTypes).toEqual(["RETRIEVAL_QUERY"]);
  });
});
