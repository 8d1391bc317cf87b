import { describe, expect, test } from "bun:test";
import { linkTarget, relativeLinks } from "../../src/skills/markdown-links.ts";

describe("relativeLinks", () => {
  test("inline links, images and reference definitions, each with its line, as the file they name", () => {
    const text = [
      "See [the guide](./reference/guide.md) and ![a chart](images/flow%20chart.png).",
      '[API](<references/my api.md#auth> "Title") [run](scripts/run.py?x=1)',
      "[ref]: ../_shared/ooxml.md",
    ].join("\n");
    expect(relativeLinks(text)).toEqual([
      { target: "./reference/guide.md", line: 1 },
      { target: "images/flow chart.png", line: 1 },
      { target: "references/my api.md", line: 2 },
      { target: "scripts/run.py", line: 2 },
      { target: "../_shared/ooxml.md", line: 3 },
    ]);
  });

  test("URLs, anchors, absolute paths, footnotes and code are no links to a skill's files", () => {
    const text = [
      "[site](https://example.com/a.md) [plain](http://x.y) [mail](mailto:a@b.c) [data](data:text/plain,x)",
      "[top](#top) [root](/etc/passwd) [unc](\\\\host\\x) [none](<>)",
      "[^1]: A footnote, not a link definition.",
      "`[span](span.md)` and ``a ` [double](double.md) `` but [after](after.md)",
      "```md",
      "[fenced](fenced.md)",
      "~~~",
      "[still fenced](still.md)",
      "````",
      "[closed](closed.md)",
      "~~~~",
      "[tilde](tilde.md)",
      "~~~~~",
      "`unclosed [open](open.md)",
    ].join("\n");
    expect(relativeLinks(text)).toEqual([
      { target: "after.md", line: 4 },
      { target: "closed.md", line: 10 },
      { target: "open.md", line: 14 },
    ]);
  });
});

describe("linkTarget", () => {
  test("the path before a section or query, out of <…>, %-escapes decoded; undecodable as written", () => {
    expect(linkTarget("references/api.md#auth")).toBe("references/api.md");
    expect(linkTarget("<my notes.md>")).toBe("my notes.md");
    expect(linkTarget("my%20notes.md?raw=1")).toBe("my notes.md");
    expect(linkTarget("bad%zz.md")).toBe("bad%zz.md");
  });
});
