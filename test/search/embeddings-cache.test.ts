import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadVectorCache, saveVectorCache } from "../../src/search/embeddings/vector-cache.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { embeddingServer } from "../helpers/embedding-server.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

function server() {
  const s = embeddingServer();
  closers.push(s.stop);
  return s;
}

function skills(dir = tempDir()) {
  writeSkill(dir, "pdf-invoices", {
    description: "Extract invoice numbers from PDF files",
    extra: "metadata:\n  skillhub:\n    category: Documents\n    tags: [pdf, invoice]",
    body: "# Steps\n\nBODY-ONLY-WORDS: run /opt/secret/extract.py\n",
  });
  writeSkill(dir, "sql-tuning", { description: "Speed up slow SQL queries" });
  writeSkill(dir, "git-commits", { description: "Write good commit messages" });
  writeSkill(dir, "charts", { description: "Draw bar and line charts" });
  writeSkill(dir, "slides", { description: "Make slide decks" });
  return dir;
}

/** A started hub on `dir` with openai-compatible embeddings at `url`; resolves once the vectors are settled. */
async function run(dir: string, home: string, env: Record<string, string>) {
  const { hub, logger } = testHub({
    home,
    flags: { "skills-dir": [dir] },
    env,
    hub: { embedding: { saveDelayMs: 0 } },
  });
  void hub.start();
  await hub.ready;
  await hub.search.vectorsSettled();
  return { hub, logger };
}

const local = (url: string, over: Record<string, string> = {}) => ({
  EMBEDDING_PROVIDER: "openai-compatible",
  EMBEDDING_BASE_URL: `${url}/v1`,
  EMBEDDING_BATCH_SIZE: "2",
  ...over,
});

describe("vector cache", () => {
  test("batches of EMBEDDING_BATCH_SIZE; a restart embeds nothing again; a changed skill alone is re-embedded", async () => {
    const s = server();
    const dir = skills();
    const home = tempDir();
    const first = await run(dir, home, local(s.url));
    expect(s.requests.map((r) => r.inputs.length)).toEqual([2, 2, 1]);
    expect(first.hub.search.status.vectors).toMatchObject({ state: "ready", embedded: 5, total: 5, fromCache: 0 });
    first.hub.close();
    expect(
      readdirSync(join(home, ".skillhub", "index")).filter((f) => f.startsWith("vectors-") && f.endsWith(".bin")),
    ).toHaveLength(1);

    s.reset();
    const second = await run(dir, home, local(s.url));
    expect(s.requests).toHaveLength(0);
    expect(second.hub.search.status.vectors).toMatchObject({ state: "ready", embedded: 5, fromCache: 5 });
    const outcome = await second.hub.search.query("invoice pdf", { limit: 3, threshold: 0 });
    expect(outcome.mode).toBe("hybrid");
    expect(s.requests).toHaveLength(1);
    second.hub.close();

    // The body is not embedded: editing it costs no request. The description is: one text, one request.
    writeSkill(dir, "charts", { description: "Draw bar and line charts", body: "# New body\n" });
    writeSkill(dir, "slides", { description: "Make slide decks and keynote presentations" });
    s.reset();
    const third = await run(dir, home, local(s.url));
    expect(s.inputs()).toEqual(["slides\nMake slide decks and keynote presentations"]);
    third.hub.close();
  });

  test("only name, description, tags and category are sent; never the body or a path", async () => {
    const s = server();
    const { hub } = await run(skills(), tempDir(), local(s.url, { EMBEDDING_BATCH_SIZE: "64" }));
    await hub.search.query("extract invoice numbers", { limit: 3, threshold: 0 });
    hub.close();
    const sent = s.inputs();
    expect(sent).toContain(
      "pdf-invoices\nExtract invoice numbers from PDF files\ntags: pdf, invoice\ncategory: documents",
    );
    expect(sent).toContain("sql-tuning\nSpeed up slow SQL queries");
    expect(sent).toContain("extract invoice numbers");
    expect(sent.join("\n")).not.toMatch(/BODY-ONLY|secret|SKILL\.md/);
    // No path either: the skills live under the temp folder (make test may point TMPDIR elsewhere than /tmp).
    expect(sent.join("\n")).not.toContain(tmpdir());
  });

  test("a changed model or provider invalidates every vector", async () => {
    const s = server();
    const dir = skills();
    const home = tempDir();
    (await run(dir, home, local(s.url, { EMBEDDING_MODEL: "nomic-embed-text" }))).hub.close();
    s.reset();
    (await run(dir, home, local(s.url, { EMBEDDING_MODEL: "nomic-embed-text" }))).hub.close();
    expect(s.inputs()).toHaveLength(0);
    const other = await run(dir, home, local(s.url, { EMBEDDING_MODEL: "mxbai-embed-large" }));
    expect(s.inputs()).toHaveLength(5);
    expect(other.logger.lines.some((l) => l.includes("made with openai-compatible/nomic-embed-text"))).toBe(true);
    other.hub.close();
    s.reset();
    const gemini = await run(dir, home, {
      EMBEDDING_PROVIDER: "gemini",
      EMBEDDING_BASE_URL: `${s.url}/v1beta`,
      GEMINI_API_KEY: "g-key-123456",
      EMBEDDING_MODEL: "mxbai-embed-large",
    });
    expect(s.requests.every((r) => r.format === "gemini")).toBe(true);
    expect(s.inputs()).toHaveLength(5);
    gemini.hub.close();
  });

  test("a corrupt cache is ignored with a warning and rebuilt", async () => {
    const s = server();
    const dir = skills();
    const home = tempDir();
    (await run(dir, home, local(s.url))).hub.close();
    const folder = join(home, ".skillhub", "index");
    const file = join(folder, readdirSync(folder).find((f) => f.startsWith("vectors-")) as string);
    writeFileSync(file, "SKHV garbage");
    s.reset();
    const again = await run(dir, home, local(s.url));
    expect(s.inputs()).toHaveLength(5);
    expect(again.logger.lines.some((l) => l.includes("WARN") && l.includes("vector cache"))).toBe(true);
    again.hub.close();
    expect(loadVectorCache(file, `openai-compatible/(server default)@${s.url}/v1`).ok).toBe(true);
  });

  test("the file holds float32 vectors and is refused under another identity", () => {
    const file = join(tempDir(), "v.bin");
    const vectors = new Map([
      ["a", Float32Array.from([0.6, 0.8, 0])],
      ["b", Float32Array.from([0, 0, 1])],
    ]);
    saveVectorCache(file, "openai/m1", 3, vectors);
    const loaded = loadVectorCache(file, "openai/m1");
    expect(loaded.ok && [...loaded.vectors.keys()]).toEqual(["a", "b"]);
    expect(loaded.ok && Array.from(loaded.vectors.get("a") as Float32Array)).toEqual([0.6, 0.8, 0].map(Math.fround));
    const other = loadVectorCache(file, "openai/m2");
    expect(other.ok).toBe(false);
    expect(!other.ok && other.reason).toContain("made with openai/m1");
    expect(loadVectorCache(join(tempDir(), "none.bin"), "x")).toMatchObject({ ok: false, missing: true });
  });
});
