import { describe, expect, test } from "bun:test";
import { normaliseQuery, processTerm, splitWords, stem } from "../../src/search/text.ts";

describe("search text", () => {
  test("queries are trimmed and whitespace collapsed", () => {
    expect(normaliseQuery("  extract \n invoice\t numbers  ")).toBe("extract invoice numbers");
  });

  test("the stemmer maps inflections to one form", () => {
    const same = [
      ["pdfs", "pdf"],
      ["tests", "testing", "tested", "test"],
      ["debugging", "debug"],
      ["queries", "query"],
      ["creates", "created", "creating", "create"],
      ["images", "image"],
      // Four-letter words lose their final e too.
      ["code", "coding", "coded", "codes"],
      ["type", "typing", "types"],
    ];
    for (const group of same) expect(new Set(group.map(stem)).size).toBe(1);
    expect(stem("analysis")).toBe("analysis");
    expect(stem("css")).toBe("css");
    expect(stem("k8s")).toBe("k8s");
  });

  test("stop words are dropped, other terms lower-cased and stemmed", () => {
    expect(["I", "want", "to", "Extracting", "tables"].map(processTerm)).toEqual([
      null,
      null,
      null,
      "extract",
      processTerm("table"),
    ]);
  });

  test("words split on punctuation, hyphens and underscores", () => {
    expect(splitWords("pdf-invoice_extractor: v2.0 (beta)")).toEqual([
      "pdf",
      "invoice",
      "extractor",
      "v2",
      "0",
      "beta",
    ]);
  });
});
