import { describe, expect, test } from "bun:test";
import { plainExcerpt } from "../../src/ui/plain-excerpt.ts";

describe("a search excerpt as the page shows it", () => {
  test("Markdown's markup goes, its text stays, on one line", () => {
    const excerpt = [
      "## Extract invoice totals",
      "",
      "Use **pdfplumber** and `extract_tables()`; see [the guide](docs/guide.md) or ![logo](logo.png).",
      "- first *step*",
      "1. [x] second step",
      "> a quoted __note__ about snake_case_names",
      "```python",
      "| column | total |",
      "|---|---|",
      "---",
    ].join("\n");
    expect(plainExcerpt(excerpt)).toBe(
      "Extract invoice totals Use pdfplumber and extract_tables(); see the guide or logo. first step second step a quoted note about snake_case_names column total",
    );
  });

  test("plain text stays as it is; a long hostile line is read in one pass", () => {
    expect(plainExcerpt("Fill PDF forms: totals, dates and names.")).toBe("Fill PDF forms: totals, dates and names.");
    expect(plainExcerpt(`${"[".repeat(5000)}x`)).toHaveLength(2000);
    expect(plainExcerpt("- ".repeat(3000))).toBe("");
  });
});
