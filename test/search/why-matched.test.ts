import { describe, expect, test } from "bun:test";
import { whyMatched } from "../../src/search/why-matched.ts";
import { fakeSkill } from "../helpers/skill.ts";

const hit = (description: string, matched: string[]) => ({
  skill: fakeSkill("notes", { description }),
  score: 1,
  terms: matched,
  matched,
});

describe("why a hit matched", () => {
  test("a word found in the description is said to be there, a typo of it too", () => {
    const words = "Extract invoices and receipts from scanned documents";
    expect(whyMatched("invoices")(hit(words, ["invoic"]))).toBe("description: invoices");
    expect(whyMatched("recepts")(hit(words, ["recept"]))).toBe("description: recepts");
  });

  test("a long query over a huge field: the first 32 matched words, read in the field's first 4,096 characters", () => {
    const vocabulary = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}x`);
    const filler = "lorem ".repeat(1000);
    const description = `${vocabulary.join(" ")} ${filler} farawayword`;
    const matched = [...vocabulary, "farawayword"];
    const line = whyMatched(matched.join(" "))(hit(description, matched)) as string;
    expect(line).toBe(`description: ${vocabulary.slice(0, 32).join(", ")}`);
    const far = whyMatched("farawayword")(hit(description, ["farawayword"]));
    expect(far).toBe("text: farawayword");
  });
});
