import { afterAll, describe, expect, test } from "bun:test";
import { run } from "../../src/cli.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { embeddingServer } from "../helpers/embedding-server.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

const servers: { stop: () => void }[] = [];
afterAll(async () => {
  for (const s of servers) s.stop();
  await cleanupTemp();
});

function failure(env: Record<string, string>, files: { path: string; data: unknown }[] = []): ConfigError {
  try {
    resolveConfig({ env, files, homeDir: "/home/u", cwd: "/home/u" });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

async function cli(argv: string[], env: Record<string, string>) {
  let out = "";
  let err = "";
  const home = tempDir("skillhub-cli-home-");
  const code = await run(
    argv,
    { HOME: home, SKILLHUB_RESCAN_SECONDS: "0", SKILLHUB_WATCH: "0", ...env },
    { out: (t) => void (out += t), err: (t) => void (err += t), cwd: home },
  );
  return { code, out, err };
}

describe("embedding configuration", () => {
  test("a missing key or base URL for the chosen provider is a configuration error naming what to set", () => {
    expect(failure({ EMBEDDING_PROVIDER: "openai" }).message).toBe(
      'Invalid configuration: EMBEDDING_PROVIDER (environment variable) (config key embedding.provider) = "openai": the openai provider needs an API key: set OPENAI_API_KEY (or EMBEDDING_API_KEY), or EMBEDDING_PROVIDER=none to keep search local.',
    );
    expect(failure({ EMBEDDING_PROVIDER: "gemini", OPENAI_API_KEY: "sk-wrong-provider" }).message).toContain(
      "set GEMINI_API_KEY",
    );
    expect(failure({ EMBEDDING_PROVIDER: "openai-compatible" }).message).toContain("set EMBEDDING_BASE_URL");
    expect(failure({}, [{ path: "/c.yaml", data: { embedding: { provider: "openai" } } }]).message).toContain(
      "embedding.provider in /c.yaml",
    );
    expect(() =>
      resolveConfig({ env: { EMBEDDING_PROVIDER: "gemini", EMBEDDING_API_KEY: "k-123456" }, homeDir: "/h", cwd: "/h" }),
    ).not.toThrow();
    expect(() =>
      resolveConfig({
        env: { EMBEDDING_PROVIDER: "openai-compatible", EMBEDDING_BASE_URL: "http://127.0.0.1:8080/v1" },
        homeDir: "/h",
        cwd: "/h",
      }),
    ).not.toThrow();
  });

  test("keys are never echoed, from the environment or a config file; URLs must be http(s)", () => {
    const env = failure({
      EMBEDDING_PROVIDER: "openai",
      OPENAI_API_KEY: "sk-live-0123456789",
      EMBEDDING_TIMEOUT_SECONDS: "soon",
    });
    expect(env.message).toContain("EMBEDDING_TIMEOUT_SECONDS");
    expect(env.message).not.toContain("sk-live-0123456789");
    const file = failure({}, [{ path: "/c.yaml", data: { embedding: { api_key: ["sk-file-0123456789"] } } }]);
    expect(file.message).toContain("<redacted>");
    expect(file.message).not.toContain("sk-file-0123456789");
    expect(
      failure({ EMBEDDING_PROVIDER: "openai-compatible", EMBEDDING_BASE_URL: "localhost:11434" }).message,
    ).toContain("expected an http:// or https:// URL");
  });

  test("the CLI exits 2 with the message on stderr, before scanning or serving", async () => {
    for (const argv of [["serve"], ["search", "invoices"]]) {
      const result = await cli(argv, { EMBEDDING_PROVIDER: "gemini", EMBEDDING_API_KEY: "" });
      expect(result.code).toBe(2);
      expect(result.out).toBe("");
      expect(result.err).toContain("the gemini provider needs an API key: set GEMINI_API_KEY");
    }
  });
});

describe("skillhub search with embeddings", () => {
  test("waits for the vectors, then answers in hybrid mode; --json says so", async () => {
    const s = embeddingServer();
    servers.push(s);
    const dir = tempDir();
    writeSkill(dir, "pdf-invoices", { description: "Extract invoice numbers from PDF files" });
    writeSkill(dir, "sql-tuning", { description: "Speed up slow SQL queries" });
    const env = { EMBEDDING_PROVIDER: "openai-compatible", EMBEDDING_BASE_URL: `${s.url}/v1` };
    const json = await cli(["search", "invoice numbers", "--json", "--skills-dir", dir], env);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out);
    expect(parsed.search_mode).toBe("hybrid");
    expect(parsed.skills[0].name).toBe("pdf-invoices");
    s.fail({ status: 400, body: JSON.stringify({ error: { message: "model not found" } }) });
    const fallback = await cli(["search", "invoice numbers", "--skills-dir", dir], env);
    expect(fallback.code).toBe(0);
    expect(fallback.out).toContain("pdf-invoices");
    expect(fallback.err).toMatch(
      /full-text results: embeddings unavailable: HTTP 400 from http:\/\/127\.0\.0\.1:\d+: model not found/,
    );
  });

  test("doctor shows the search mode and where embeddings go, never the key", async () => {
    const result = await cli(["doctor", "--skills-dir", tempDir()], {
      EMBEDDING_PROVIDER: "openai",
      OPENAI_API_KEY: "sk-doctor-0123456789",
    });
    expect(result.out).toContain(
      "search: hybrid; embeddings: openai text-embedding-3-small at https://api.openai.com/v1 (key set)",
    );
    expect(result.out).not.toContain("sk-doctor-0123456789");
    const none = await cli(["doctor", "--skills-dir", tempDir()], {});
    expect(none.out).toContain("search: fts; embeddings: none (nothing leaves this machine)");
  });
});
