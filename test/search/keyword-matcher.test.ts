import { describe, expect, test } from "bun:test";
import { decideMatch, keywordMatches, type Scored, scoreKeywords, tokenize } from "../../src/search/keyword-matcher.ts";

const DEFAULTS = { min_score: 0.2, max_results: 3, ambiguity_threshold: 0.1 };

describe("tokenize", () => {
  test.each([
    ["Create a React component for the authentication", ["create", "react", "component", "authentication"]],
    ["créer un composant React avec l'authentification", ["créer", "composant", "react", "authentification"]],
    ["Set up the front-end: React, Vue & CSS!", ["set", "front-end", "react", "vue", "css"]],
    ["react React REACT", ["react"]],
    ["ui/react/auth", ["ui", "react", "auth"]],
    ["- item -- --flag", ["item", "flag"]],
    ["  \n\t ", []],
    ["the of to in for with le la les de du et ou en", []],
    ["Node.js v20 (LTS)", ["node", "js", "v20", "lts"]],
  ])("%p → %p", (input, expected) => {
    expect(tokenize(input)).toEqual(expected);
  });
});

describe("keyword matching (documented table)", () => {
  test.each([
    ["react", "react", true, "exact"],
    ["authentication", "auth", true, "token contains keyword"],
    ["auth", "authentication", true, "keyword contains token"],
    ["react", "reactjs", true, "keyword contains token"],
    ["go", "golang", false, "short token: exact only"],
    ["ts", "ts", true, "both short, exact"],
    ["js", "json", false, "short token: exact only"],
    ["build", "ui", false, "short keyword: exact only"],
    ["請求書を処理したい", "請求", true, "two CJK characters are a word inside a phrase"],
    ["経理", "経理部の月次処理", true, "two CJK characters are a word inside the keyword"],
    ["請求書を処理したい", "書", false, "one CJK character: exact only"],
    ["𠮷野家の牛丼", "𠮷", false, "one CJK character of two UTF-16 units: exact only"],
  ])("token %p, keyword %p → %p (%s)", (token, keyword, expected) => {
    expect(keywordMatches(token, keyword)).toBe(expected);
  });
});

describe("scoreKeywords (documented formula)", () => {
  test.each([
    // tokens, keywords, priority, score, matched
    [
      ["create", "react", "component", "authentication"],
      ["react", "auth", "component", "login"],
      0,
      0.75,
      ["react", "auth", "component"],
    ],
    [
      ["create", "react", "component", "authentication"],
      ["react", "auth", "component", "login"],
      10,
      0.76,
      ["react", "auth", "component"],
    ],
    [["react"], ["React", "JSX"], 0, 0.5, ["react"]],
    [["go"], ["golang", "go"], 0, 0.5, ["go"]],
    [["vue"], ["react", "jsx"], 0, 0, []],
    [["vue"], [], 3, 0.003, []],
  ])("%p × %p (priority %p) → %p", (tokens, keywords, priority, score, matched) => {
    const result = scoreKeywords(tokens, keywords, priority);
    expect(result.score).toBeCloseTo(score, 10);
    expect(result.matched).toEqual(matched);
  });

  test("score range: 0 to 1 + priority × 0.001", () => {
    expect(scoreKeywords(["a-b"], ["a-b"], 0).score).toBe(1);
    expect(scoreKeywords(["react"], ["react"], 100).score).toBeCloseTo(1.1, 10);
  });
});

describe("decideMatch", () => {
  const scored = (entries: [string, number, number?][]): Scored<string>[] =>
    entries.map(([item, score, matched = 1]) => ({
      item,
      score,
      matched: Array.from({ length: matched }, (_, i) => `k${i}`),
    }));

  test("no candidate at or above min_score → no_match, with the closest one", () => {
    expect(
      decideMatch(
        scored([
          ["a", 0.19],
          ["b", 0.1],
        ]),
        DEFAULTS,
      ),
    ).toEqual({ kind: "no_match", closest: scored([["a", 0.19]])[0] });
    expect(decideMatch([], DEFAULTS)).toEqual({ kind: "no_match" });
  });

  test("exactly min_score counts; a priority alone (no keyword matched) never does", () => {
    expect(decideMatch(scored([["a", 0.2]]), DEFAULTS)).toMatchObject({ kind: "match", best: { item: "a" } });
    expect(decideMatch(scored([["p", 0.5, 0]]), DEFAULTS)).toEqual({ kind: "no_match" });
  });

  test("one result → match; gap >= threshold → match; gap < threshold → ambiguous, up to max_results", () => {
    expect(decideMatch(scored([["a", 0.5]]), DEFAULTS)).toMatchObject({ kind: "match", best: { item: "a" } });
    expect(
      decideMatch(
        scored([
          ["b", 0.5],
          ["a", 0.6],
        ]),
        DEFAULTS,
      ),
    ).toMatchObject({ kind: "match", best: { item: "a" } });
    const ambiguous = decideMatch(
      scored([
        ["a", 0.55],
        ["b", 0.5],
        ["c", 0.5],
        ["d", 0.45],
        ["e", 0.1],
      ]),
      DEFAULTS,
    );
    expect(ambiguous.kind).toBe("ambiguous");
    expect(ambiguous.kind === "ambiguous" && ambiguous.candidates.map((c) => c.item)).toEqual(["a", "b", "c"]);
  });

  test("priority breaks a tie: 0.751 vs 0.75 is still ambiguous (gap 0.001), but wins the order", () => {
    const out = decideMatch(
      scored([
        ["low", 0.75],
        ["high", 0.751],
      ]),
      DEFAULTS,
    );
    expect(out.kind === "ambiguous" && out.candidates.map((c) => c.item)).toEqual(["high", "low"]);
  });

  test("thresholds come from config.matching", () => {
    const strict = { min_score: 0.6, max_results: 2, ambiguity_threshold: 0.3 };
    expect(decideMatch(scored([["a", 0.5]]), strict).kind).toBe("no_match");
    const out = decideMatch(
      scored([
        ["a", 0.9],
        ["b", 0.7],
        ["c", 0.65],
      ]),
      strict,
    );
    expect(out.kind === "ambiguous" && out.candidates.map((c) => c.item)).toEqual(["a", "b"]);
  });
});
