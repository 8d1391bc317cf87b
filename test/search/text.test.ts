import { describe, expect, test } from "bun:test";
import { foldWidth, normaliseQuery, processTerm, processTerms, splitWords, stem } from "../../src/search/text.ts";

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

  test("CJK text becomes overlapping pairs of characters; other scripts in the same word stay words", () => {
    expect(processTerms("請求書")).toEqual(["請求", "求書"]);
    expect(processTerms("日本語のPDFから請求書を抽出")).toEqual([
      "日本",
      "本語",
      "語の",
      "pdf",
      "から",
      "ら請",
      "請求",
      "求書",
      "書を",
      "を抽",
      "抽出",
    ]);
    expect(processTerms("表")).toEqual(["表"]);
    expect(processTerms("データベース")).toEqual(["デー", "ータ", "タベ", "ベー", "ース"]);
    expect(processTerms("파일을")).toEqual(["파일", "일을"]);
    expect(processTerms("Extracting")).toEqual(["extract"]);
    expect(processTerms("the")).toEqual([]);
  });

  test("the index reads a longer CJK run's characters on their own too; a query, its pairs only", () => {
    expect(processTerms("图表", true)).toEqual(["图表", "图", "表"]);
    expect(processTerms("𠮷野", true)).toEqual(["𠮷野", "𠮷", "野"]);
    expect(processTerms("表", true)).toEqual(["表"]);
    expect(processTerms("图表")).toEqual(["图表"]);
  });

  test("full-width letters and digits are the ASCII words", () => {
    expect(foldWidth("ＰＤＦ２０２４")).toBe("PDF2024");
    expect(foldWidth("ＰＤＦ").length).toBe(3);
    expect(processTerm("ＰＤＦｓ")).toBe("pdf");
    expect(processTerms("ＰＤＦの請求書")).toEqual(["pdf", "の請", "請求", "求書"]);
  });

  test("a pair is two characters, not two UTF-16 units: Han beyond the first plane stays whole", () => {
    // 𠮷 (U+20BB7) is one character written as two UTF-16 units.
    expect(processTerms("𠮷野家")).toEqual(["𠮷野", "野家"]);
    expect(processTerms("𠮷")).toEqual(["𠮷"]);
    for (const term of processTerms("𠀋𡈽𡌛")) expect(term.isWellFormed()).toBe(true);
  });
});
