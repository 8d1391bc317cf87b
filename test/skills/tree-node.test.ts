import { describe, expect, test } from "bun:test";
import { LIST_MAX, WORD_MAX_CHARS } from "../../src/skills/frontmatter.ts";
import { parseTreeNode } from "../../src/skills/tree-node.ts";

const parse = (frontmatter: string, body = "Body.\n") =>
  parseTreeNode("/t/x.md", `---\n${frontmatter}\n---\n\n${body}`);
const codes = (r: ReturnType<typeof parse>) => r.diagnostics.map((d) => `${d.severity} ${d.code}`);

describe("tree node frontmatter", () => {
  test("defaults: inherit true, priority 0, no assets or scripts; keywords lower-cased and de-duplicated", () => {
    const r = parse("keywords: [React, hook, react]\ndescription: React rules");
    expect(r.kind).toBe("node");
    if (r.kind !== "node") return;
    expect(r.node).toMatchObject({
      keywords: ["react", "hook"],
      description: "React rules",
      inherit: true,
      priority: 0,
      assets: [],
      scripts: [],
    });
    expect(r.diagnostics).toEqual([]);
  });

  test("asset and script defaults: type other, execution claude, args required unless said", () => {
    const r = parse(
      [
        "keywords: [a]",
        "description: d",
        "inherit: false",
        "priority: 7",
        "assets:",
        "  - file: ./assets/x.json",
        "    description: X",
        "scripts:",
        "  - file: scripts/run.sh",
        "    description: Run",
        "    args:",
        "      - name: dir",
        "        description: Where",
        "      - name: mode",
        "        description: How",
        "        required: false",
        "        default: 3",
      ].join("\n"),
    );
    expect(r.kind === "node" && r.node).toMatchObject({
      inherit: false,
      priority: 7,
      assets: [{ file: "assets/x.json", description: "X", type: "other" }],
      scripts: [
        {
          file: "scripts/run.sh",
          description: "Run",
          execution: "claude",
          args: [
            { name: "dir", description: "Where", required: true },
            { name: "mode", description: "How", required: false, default: "3" },
          ],
        },
      ],
    });
  });

  test("keywords must be a non-empty list, description a non-empty string: otherwise an error, not served", () => {
    expect(codes(parse("keywords: []\ndescription: d"))).toEqual(["error missing-keywords"]);
    expect(parse("keywords: []\ndescription: d").kind).toBe("invalid");
    expect(codes(parse("keywords: [a]"))).toEqual(["error missing-description"]);
    expect(codes(parse('keywords: [a]\ndescription: "  "'))).toEqual(["error missing-description"]);
    expect(parse("keywords: [a]\ndescription: [one, two]").diagnostics[0]?.message).toStartWith(
      "the description is a list, not text;",
    );
  });

  test("not a tree node: no frontmatter, broken YAML, no keywords key (reported only inside a tree)", () => {
    expect(parseTreeNode("/t/x.md", "# Just a README\n")).toMatchObject({
      kind: "other",
      diagnostics: [{ code: "no-frontmatter", severity: "warning" }],
    });
    expect(parse("title: [unclosed")).toMatchObject({ kind: "other", diagnostics: [{ code: "yaml-error" }] });
    expect(parse("title: Guide")).toMatchObject({
      kind: "other",
      diagnostics: [{ code: "missing-keywords", severity: "warning" }],
    });
  });

  test("lenient optional fields: bad values are warnings and fall back to defaults", () => {
    const r = parse(
      'keywords: a, b\ndescription: d\ninherit: "no"\npriority: high\nassets:\n  - file: x.png\n    type: picture\n  - description: no file\nscripts:\n  - file: s.sh\n    execution: remote',
    );
    expect(r.kind === "node" && r.node).toMatchObject({
      keywords: ["a", "b"],
      inherit: false,
      priority: 0,
      assets: [{ file: "x.png", description: "", type: "other" }],
      scripts: [{ file: "s.sh", execution: "claude" }],
    });
    expect(codes(r)).toEqual([
      "warning invalid-field",
      "warning invalid-field",
      "warning invalid-field",
      "warning invalid-field",
    ]);
  });

  test("category and tags: top-level, else metadata.skillhub; lower-cased; none by default", () => {
    const node = (fm: string) => {
      const r = parse(`keywords: [a]\ndescription: d\n${fm}`);
      return r.kind === "node" ? { category: r.node.category, tags: r.node.tags, codes: codes(r) } : undefined;
    };
    expect(node("category: Frontend\ntags: [React, forms, react]")).toEqual({
      category: "frontend",
      tags: ["react", "forms"],
      codes: [],
    });
    expect(node("metadata:\n  skillhub:\n    category: Backend\n    tags: API, rest")).toEqual({
      category: "backend",
      tags: ["api", "rest"],
      codes: [],
    });
    expect(node("category: ui\ntags: [x]\nmetadata:\n  skillhub:\n    category: backend\n    tags: [y]")).toEqual({
      category: "ui",
      tags: ["x"],
      codes: [],
    });
    expect(node("priority: 1")).toEqual({ category: undefined, tags: [], codes: [] });
    expect(node("category: [a, b]\ntags: {x: 1}")).toEqual({
      category: undefined,
      tags: [],
      codes: ["warning invalid-field", "warning invalid-field"],
    });
    const long = "z".repeat(WORD_MAX_CHARS + 1);
    expect(node(`category: ${long}\ntags: [ok, ${long}]`)).toEqual({
      category: undefined,
      tags: ["ok"],
      codes: ["warning invalid-field", "warning invalid-field"],
    });
  });

  test("Security: traversal, absolute, drive-letter and NUL paths in declarations are dropped with a warning", () => {
    const r = parse(
      'keywords: [a]\ndescription: d\nassets:\n  - file: ../../etc/passwd\n  - file: /etc/passwd\n  - file: "C:\\\\Windows\\\\win.ini"\n  - file: "a\\0b"\n  - file: ok.txt',
    );
    expect(r.kind === "node" && r.node.assets.map((a) => a.file)).toEqual(["ok.txt"]);
    expect(codes(r)).toEqual([
      "warning unsafe-path",
      "warning unsafe-path",
      "warning unsafe-path",
      "warning unsafe-path",
    ]);
  });

  test("Security: keywords past the first 256 are not read, with a too-many-keywords warning naming the count", () => {
    expect(LIST_MAX).toBe(256);
    const listed = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    const r = parse(`keywords: "${listed.join(",")}"\ndescription: d`);
    expect(r.kind === "node" && r.node.keywords).toEqual(listed.slice(0, 256));
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.file, d.message])).toEqual([
      [
        "warning",
        "too-many-keywords",
        "/t/x.md",
        "keywords lists 1000 entries, more than the 256 a tree node may have; only the first 256 are read.",
      ],
    ]);
    // Exactly the bound: every keyword, no warning.
    const full = parse(`keywords: [${listed.slice(0, 256).join(", ")}]\ndescription: d`);
    expect(full.kind === "node" && full.node.keywords.length).toBe(256);
    expect(full.diagnostics).toEqual([]);
  });

  test("keywords de-duplicated in first-seen order over a long list; a keyword over 100 characters is ignored", () => {
    const listed = Array.from({ length: 200 }, (_, i) => `W${i % 50}`);
    const r = parse(`keywords: [${listed.join(", ")}]\ndescription: d`);
    expect(r.kind === "node" && r.node.keywords).toEqual(Array.from({ length: 50 }, (_, i) => `w${i}`));
    const long = "x".repeat(WORD_MAX_CHARS + 1);
    const capped = parse(`keywords: [ok, ${long}, ${"y".repeat(WORD_MAX_CHARS)}]\ndescription: d`);
    expect(capped.kind === "node" && capped.node.keywords).toEqual(["ok", "y".repeat(WORD_MAX_CHARS)]);
    expect(capped.diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual([
      `invalid-field: keyword '${"x".repeat(40)}…' is over 100 characters; ignored.`,
    ]);
    const only = parse(`keywords: [${long}]\ndescription: d`);
    expect(codes(only)).toEqual(["warning invalid-field", "error missing-keywords"]);
  });

  test("Security: tags, assets, scripts and a script's args past the first 256 are not read, with a warning", () => {
    const n = LIST_MAX + 4;
    const many = (line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join("\n");
    const r = parse(
      [
        "keywords: [a]",
        "description: d",
        `tags: [${Array.from({ length: n }, (_, i) => `t${i}`).join(", ")}]`,
        "assets:",
        many((i) => `  - file: a${i}.txt`),
        "scripts:",
        "  - file: run.sh",
        "    args:",
        many((i) => `      - name: x${i}`),
        many((i) => `  - file: s${i}.sh`),
      ].join("\n"),
    );
    expect(r.kind).toBe("node");
    if (r.kind !== "node") return;
    expect(r.node.tags).toHaveLength(256);
    expect(r.node.assets.map((a) => a.file).slice(-1)).toEqual(["a255.txt"]);
    expect(r.node.scripts).toHaveLength(256);
    expect(r.node.scripts[0]?.args.map((a) => a.name).slice(-1)).toEqual(["x255"]);
    expect(r.diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual([
      `too-many-entries: assets lists ${n} entries, more than the 256 a tree node may have; only the first 256 are read.`,
      `too-many-entries: scripts lists ${n + 1} entries, more than the 256 a tree node may have; only the first 256 are read.`,
      `too-many-entries: script 'run.sh' args lists ${n} entries, more than the 256 a tree node may have; only the first 256 are read.`,
      `too-many-entries: tags lists ${n} entries, more than the 256 a tree node may have; only the first 256 are read.`,
    ]);
  });
});
