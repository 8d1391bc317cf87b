import { describe, expect, test } from "bun:test";
import { adversarialSkills, MIB, skillFileOf } from "../../bench/fuzz/adversarial-text.ts";
import { normaliseTreePath } from "../../src/catalog/tree-listing.ts";
import { tokenize } from "../../src/search/keyword-matcher.ts";
import { acronyms } from "../../src/search/text.ts";
import { parseAgentSkill } from "../../src/skills/agent-skill.ts";
import { parseLenientYaml, quoteBrokenValues, STRICT_PARSER_MAX_CHARS } from "../../src/skills/lenient-yaml.ts";
import { parseTreeNode } from "../../src/skills/tree-node.ts";

// Every regex that sees skill content must be linear. These tests pin the output on 1 MiB
// lines; the generous timeout only detects a hang. The time budget is measured by `make bench-parse`.
const HANG = 120_000;

describe("parsers on 1 MiB adversarial lines", () => {
  test(
    "quoteBrokenValues: a description of 1 MiB spaces and one broken line are repaired correctly",
    () => {
      const spaces = " ".repeat(MIB);
      const { text, keys } = quoteBrokenValues(`description: a${spaces}b\nnote: Use when: broken`);
      expect(keys).toEqual(["note"]);
      expect(text.endsWith('note: "Use when: broken"')).toBe(true);
      const yaml = parseLenientYaml(`name: x\ndescription: a${spaces}b\nnote: Use when: broken\n`);
      expect(yaml).toMatchObject({ ok: true, recovered: ["note"] });
      expect((yaml as { data: { description: string } }).data.description).toBe(`a${spaces}b`);
    },
    HANG,
  );

  for (const c of adversarialSkills()) {
    test(
      `parseAgentSkill: ${c.name}`,
      () => {
        const result = parseAgentSkill(skillFileOf(c, "/skills"));
        // Never throws; either a skill or diagnostics that say why not.
        expect(result.skill !== undefined || result.diagnostics.length > 0).toBe(true);
        if (c.description !== undefined) expect(result.skill?.description).toBe(c.description);
        const tree = parseTreeNode(`/t/${c.name}.md`, c.text);
        expect(tree.kind).toBeDefined();
      },
      HANG,
    );
  }

  test(
    "tokenize, acronyms and tree paths on 1 MiB runs give the right answer",
    () => {
      expect(tokenize(`${"-".repeat(MIB)}zz ${"-".repeat(MIB)} front-end`)).toEqual(["zz", "front-end"]);
      expect(acronyms(`${"A ".repeat(MIB / 2)}`).length).toBeGreaterThan(0);
      expect(acronyms(`${"Ab-".repeat(MIB / 3)}`).every((a) => a.acronym.length >= 3)).toBe(true);
      expect(acronyms("You Need A Budget")).toEqual([{ acronym: "ynab", words: ["You", "Need", "A", "Budget"] }]);
      expect(normaliseTreePath(`${"/".repeat(MIB)}ui/react${"/".repeat(MIB)}x`)).toBe(`ui/react${"/".repeat(MIB)}x`);
      expect(normaliseTreePath("//ui/react/auth.md/")).toBe("ui/react/auth");
      expect(normaliseTreePath("/ui/react/auth.md")).toBe("ui/react/auth");
    },
    HANG,
  );
});

describe("frontmatter too large for the strict YAML parser", () => {
  test("anchors in a frontmatter over the strict parser's limit are refused with a message, not parsed", () => {
    const yaml = parseLenientYaml(`name: a\ndescription: ${"*a &b ".repeat(5000)}\n`);
    expect(yaml).toEqual({
      ok: false,
      error: `frontmatter over ${STRICT_PARSER_MAX_CHARS} characters uses YAML anchors or aliases; not parsed`,
    });
    // Small frontmatter keeps the strict parser and its alias cap.
    expect(parseLenientYaml("a: &x 1\nb: *x\n")).toEqual({ ok: true, data: { a: 1, b: 1 }, recovered: [] });
  });
});
