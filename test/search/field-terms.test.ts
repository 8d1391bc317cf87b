import { describe, expect, test } from "bun:test";
import { fieldTerms, TermCounter } from "../../src/search/field-terms.ts";

/** `text` fed in pieces of `size` characters. */
function chunked(text: string, size: number, maxChars?: number) {
  const counter = new TermCounter(maxChars);
  for (let at = 0; at < text.length; at += size) counter.push(text.slice(at, at + size));
  return counter.end();
}

const TEXTS = [
  "",
  "word",
  "  leading and trailing  ",
  "# Extract tables\n\nFrom PDF files: invoices, receipts — and naïve café menus.\n",
  "emoji 🎉 separators ✓ and CJK 表格提取 mixed-with_hyphens and don't",
  "no-separator-at-the-end",
  // Symbols are not MiniSearch separators: "`python" is one token, whatever the chunking.
  "run `python -m pip` then `templates/x` ~home $HOME +1",
  `${"Long body of repeated words about kubernetes deployments. ".repeat(300)}final-sentinel`,
];

describe("TermCounter: a body in chunks counts as MiniSearch counts it whole", () => {
  test("same term frequencies and field length whatever the chunk size", () => {
    for (const text of TEXTS) {
      const whole = fieldTerms(text);
      for (const size of [1, 2, 3, 7, 64, 1000, 100_000]) {
        const got = chunked(text, size);
        expect(got.length).toBe(whole.length);
        expect([...got.counts].sort()).toEqual([...whole.counts].sort());
      }
    }
  });

  test("maxChars: only that many characters are taken, and push says when to stop", () => {
    const counter = new TermCounter(10);
    expect(counter.push("alpha beta")).toBe(false);
    expect(counter.push(" gamma")).toBe(false);
    expect([...counter.end().counts.keys()].sort()).toEqual(["alpha", "beta"]);
    // "alpha beta g": the cut word is what MiniSearch would see in the first 12 characters.
    expect(chunked("alpha beta gamma", 3, 12)).toEqual(fieldTerms("alpha beta g"));
  });
});
