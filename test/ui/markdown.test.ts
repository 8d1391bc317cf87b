import { describe, expect, test } from "bun:test";
import { externalUrl } from "../../src/ui/escape.ts";
import { renderMarkdown } from "../../src/ui/markdown.ts";
import { pageLinkPolicy } from "../../src/ui/markdown-links.ts";

const files = { file: (p: string) => `#/skill/x/file/${p}` };

describe("renderMarkdown: what skills use", () => {
  test("headings (one level down: the page has its own <h1>), paragraphs, emphasis, code", () => {
    expect(renderMarkdown("###### Six")).toBe("<h6>Six</h6>");
    expect(renderMarkdown("# Title\n\nSome **bold** and *it* and `a<b>`.")).toBe(
      "<h2>Title</h2>\n<p>Some <strong>bold</strong> and <em>it</em> and <code>a&lt;b&gt;</code>.</p>",
    );
  });

  test("relative links lead only to the skill's own files; any other stays text", () => {
    const links = pageLinkPolicy({ skillId: "s:pdf", dir: "docs/", files: ["docs/reference.md", "logo.png"] });
    expect(
      renderMarkdown(
        "[r](reference.md#columns) [l](../logo.png) [m](missing.md) [o](../../other/SKILL.md) [s](../SKILL.md) [d](.)",
        links,
      ),
    ).toBe(
      '<p><a href="#/skill/s%3Apdf/file/docs/reference.md">r</a> <a href="#/skill/s%3Apdf/file/logo.png">l</a> m o <a href="#/skill/s%3Apdf">s</a> d</p>',
    );
    // A listing that stopped short (no `files`): any path inside the folder, none outside it.
    const unlisted = pageLinkPolicy({ skillId: "s:pdf", dir: "" });
    expect(renderMarkdown("[a](deep/x.md) [b](../x.md)", unlisted)).toBe(
      '<p><a href="#/skill/s%3Apdf/file/deep/x.md">a</a> b</p>',
    );
  });

  test("fenced code keeps its text, escaped, with a cleaned language class", () => {
    expect(renderMarkdown('```js"><x\nif (a < b) alert("x")\n```')).toBe(
      '<pre><code class="language-jsx">if (a &lt; b) alert(&quot;x&quot;)</code></pre>',
    );
  });

  test("lists, nested lists, ordered start", () => {
    expect(renderMarkdown("- a\n- b\n  - c\n\n3. x\n4. y")).toBe(
      '<ul>\n<li>a</li>\n<li>b\n<ul>\n<li>c</li>\n</ul></li>\n</ul>\n<ol start="3">\n<li>x</li>\n<li>y</li>\n</ol>',
    );
  });

  test("tables, quotes, rules", () => {
    const html = renderMarkdown("| a | b |\n|---|--:|\n| 1 | 2 |\n\n> note\n\n---");
    expect(html).toContain("<th>a</th>");
    expect(html).toContain('<td class="align-right">2</td>');
    expect(html).toContain("<blockquote><p>note</p></blockquote>");
    expect(html).toContain("<hr>");
  });

  test("relative links go to the skill's file view; external ones open a new unrelated page", () => {
    expect(renderMarkdown("[ref](docs/ref.md) and [site](https://example.com/a?b=1&c=2)", files)).toBe(
      '<p><a href="#/skill/x/file/docs/ref.md">ref</a> and <a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow" target="_blank">site</a></p>',
    );
  });
});

describe("renderMarkdown: hostile skills render as text", () => {
  const hostile = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "<iframe src=javascript:alert(1)></iframe>",
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox)",
    "[x](//evil.example/)",
    "![x](javascript:alert(1))",
    '**<svg onload="alert(1)">**',
    "`</code><script>alert(1)</script>`",
    "| <b onmouseover=alert(1)> | b |\n|---|---|\n| <script> | x |",
    "<!-- --><style>body{display:none}</style>",
    '[a](https://ok.example/" onmouseover="alert(1))',
    "[click][x]\n\n[x]: javascript:alert(1)",
    "[click][x]\n\n[x]: <javascript:alert(1)>",
    "[click](&#106;avascript:alert(1))",
    "[click](&#x6A;avascript&colon;alert(1))",
    "<javascript:alert(1)>",
    "<svg onload=alert(1)>",
    '<https://ok.example/"onmouseover=alert(1)>',
    '![i](https://ok.example/a.png "t\\"onerror=alert(1)")',
    '[`a"<b onclick=x>`](https://ok.example/)',
  ];

  for (const input of hostile) {
    test(JSON.stringify(input), () => {
      const html = renderMarkdown(input, files);
      // No tag the renderer did not write itself, no event handler, no script URL as an attribute.
      const tags = [...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => m[1]?.toLowerCase());
      for (const tag of tags)
        expect(["p", "strong", "em", "code", "pre", "a", "table", "thead", "tbody", "tr", "th", "td", "div"]).toContain(
          tag as string,
        );
      expect(html).not.toMatch(/<[^>]*\son\w+=/i);
      expect(html).not.toMatch(/href="(?!https?:|#\/skill\/)/i);
    });
  }

  test("markup in text is shown as the characters it is made of", () => {
    expect(renderMarkdown("<script>alert(1)</script>")).toBe("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
  });

  test("deep nesting and huge inputs stay bounded", () => {
    expect(renderMarkdown(`${"> ".repeat(200)}deep`)).toContain("deep");
    expect(renderMarkdown(`${"- ".repeat(200)}deep`)).toContain("deep");
    const big = renderMarkdown("**a ".repeat(5000));
    expect(big.length).toBeGreaterThan(5000);
  });

  // A hang detector, not a speed budget: these took 27-119 s each (the server stalled meanwhile) when an
  // opener without a closer scanned to the end of the text; one pass takes well under a second.
  test(
    "openers without closers, 512 K characters of each: text, in one pass",
    () => {
      for (const unit of ["**a ", "__a ", "~~a ", "*a ", "_a1_b ", "`a``", "![a", "[a", "[[x]", "<mailto:a"]) {
        const text = unit.repeat(Math.ceil(512_000 / unit.length));
        const html = renderMarkdown(text);
        // (not toMatch: a failure would print half a megabyte)
        expect({ unit, markup: /<(strong|em|del|a)[ >]/.test(html) }).toEqual({ unit, markup: false });
        expect(html.length).toBeGreaterThanOrEqual(text.length);
      }
      // Long lines against the block tests, and openers sharing one far target.
      const long = "a".repeat(256_000);
      for (const text of [
        `\`\`\`${long}\``,
        `# a${" ".repeat(256_000)}x`,
        `|a|\n|-${" ".repeat(256_000)}x`,
        `${"![".repeat(128_000)}](${long}`,
        `[a](${long}`,
      ]) {
        expect(renderMarkdown(text).length).toBeGreaterThan(256_000);
      }
      // One closer at the very end: the first opener takes everything, its content is one pass again.
      expect(renderMarkdown(`${"**a ".repeat(128_000)}x**`)).toStartWith("<p><strong>a **a");
    },
    // A hang detector for a loaded machine, never a speed budget (make bench-parse times the renderer).
    { timeout: 120_000 },
  );

  test("a code span ends at a run of as many backticks; a run without one is text", () => {
    expect(renderMarkdown("`a` and `` b`c ``")).toBe("<p><code>a</code> and <code>b`c</code></p>");
    expect(renderMarkdown("``a` and ```")).toBe("<p>``a` and ```</p>");
    expect(renderMarkdown("`**not bold**`")).toBe("<p><code>**not bold**</code></p>");
  });

  test("fences, headings and separators read as before", () => {
    expect(renderMarkdown("## Title ##")).toBe("<h3>Title</h3>");
    expect(renderMarkdown("#NoSpace")).toBe("<p>#NoSpace</p>");
    expect(renderMarkdown("####### seven")).toBe("<p>####### seven</p>");
    expect(renderMarkdown("# C# #")).toBe("<h2>C#</h2>");
    expect(renderMarkdown("~~~ py extra\nx\n~~~")).toBe('<pre><code class="language-py">x</code></pre>');
    expect(renderMarkdown("``` a`b\nx")).toBe("<p>``` a`b\nx</p>");
    expect(renderMarkdown("| a |\n| :-: |\n| 1 |")).toContain('<td class="align-center">1</td>');
    expect(renderMarkdown("| a |\n| -x |")).not.toContain("<table>");
  });

  test("the cell budget is the document's: many small tables cannot add up", () => {
    const small = `${"|".repeat(65)}\n${"-|".repeat(64)}\n${"|\n".repeat(311)}\n`;
    const html = renderMarkdown(small.repeat(40));
    expect(html.match(/<td>/g)?.length ?? 0).toBeLessThanOrEqual(20_000);
    expect(html.length).toBeLessThan(2_000_000);
  });

  test("a table wider than 64 columns is text; a table stops at 20,000 cells and the rest is text", () => {
    const wide = renderMarkdown(`${"|".repeat(30_000)}\n|-|\n${"|\n".repeat(17_000)}`);
    expect(wide).not.toContain("<table>");
    expect(wide.length).toBeLessThan(200_000);
    const columns = 10;
    const row = (n: number) => `|${Array.from({ length: columns }, () => n).join("|")}|`;
    const long = [row(0), `|${"-|".repeat(columns)}`, ...Array.from({ length: 3000 }, (_, i) => row(i + 1))].join("\n");
    const html = renderMarkdown(long);
    // The header's row and 1,999 body rows: 20,000 cells.
    expect(html.match(/<tr>/g)?.length).toBe(2000);
    expect(html).toContain("<td>1999</td>");
    expect(html).not.toContain("<td>2000</td>");
    expect(html).toContain(row(3000));
  });
});

describe("externalUrl", () => {
  test("only http(s) and mailto", () => {
    expect(externalUrl("https://example.com")).toBe("https://example.com/");
    expect(externalUrl("mailto:a@b.c")).toBe("mailto:a@b.c");
    expect(externalUrl("javascript:alert(1)")).toBeUndefined();
    expect(externalUrl("https://exa mple.com")).toBeUndefined();
    expect(externalUrl("//evil.example")).toBeUndefined();
  });
});
