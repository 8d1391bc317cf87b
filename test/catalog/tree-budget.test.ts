import { describe, expect, test } from "bun:test";
import { estimateTokens, fitSections } from "../../src/catalog/tree-budget.ts";

const section = (rel: string, body: string) => ({ path: rel.replace(/\.md$/, ""), rel, body });

describe("fitSections (truncation over the token limit)", () => {
  test("under the budget, or a budget of 0: untouched", () => {
    const sections = [section("_root.md", "a\n".repeat(10)), section("x.md", "b")];
    expect(fitSections(sections, 1000)).toEqual({ sections, cuts: [] });
    expect(fitSections(sections, 0)).toEqual({ sections, cuts: [] });
  });

  test("the node's own section first, then the nearest parent; _root is cut first, at a line end", () => {
    const root = section("_root.md", "root line\n".repeat(100));
    const mid = section("ui/_index.md", "ui rules\n");
    const own = section("ui/form.md", "form rules\n");
    const { sections, cuts } = fitSections([root, mid, own], 400);
    expect(sections.map((s) => s.rel)).toEqual(["_root.md", "ui/_index.md", "ui/form.md"]);
    expect(sections[1]).toEqual(mid);
    expect(sections[2]).toEqual(own);
    const cutRoot = sections[0]?.body ?? "";
    expect(cutRoot).toMatch(
      /^(root line\n)*root line\n\n\[… \d+ characters of _root\.md cut: the content is over the size limit …\]$/,
    );
    expect(sections.reduce((n, s) => n + s.body.length, 0)).toBeLessThanOrEqual(400);
    expect(cuts).toEqual([{ rel: "_root.md", kept: cutRoot.indexOf("\n\n["), total: 1000 }]);
  });

  test("a budget smaller than the node's own rules: ancestors left out, the node cut; overhead counts", () => {
    const { sections, cuts } = fitSections(
      [section("_root.md", "r".repeat(50)), section("n.md", "n".repeat(500))],
      200,
      20,
    );
    expect(sections.map((s) => s.rel)).toEqual(["n.md"]);
    expect((sections[0]?.body.length ?? 0) + 20).toBeLessThanOrEqual(200);
    expect(cuts.map((c) => [c.rel, c.kept === 0])).toEqual([
      ["_root.md", true],
      ["n.md", false],
    ]);
  });

  test("tokens are estimated as characters / 4, rounded up", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcde")).toBe(2);
    expect(estimateTokens("x".repeat(32_000))).toBe(8_000);
  });
});
