import { describe, expect, test } from "bun:test";
import { parseAgentSkill, skillBody } from "../../src/skills/agent-skill.ts";
import { frontmatterOf } from "../../src/skills/frontmatter.ts";

const parse = (text: string, dir = "/skills/pdf") =>
  parseAgentSkill({ file: `${dir}/SKILL.md`, dir, text, size: text.length, mtimeMs: 1, ctimeMs: 1, ino: 1 });
const codes = (text: string, dir?: string) => parse(text, dir).diagnostics.map((d) => d.code);

describe("parseAgentSkill", () => {
  test("reads name, description and skillhub metadata", () => {
    const { skill, diagnostics } = parse(
      "---\nname: pdf\ndescription: PDF tools\nmetadata:\n  skillhub:\n    category: ' Documents '\n    tags: [PDF, Extract]\n    alwaysApply: true\n---\n# PDF\n## Usage\n```\n# not a heading\n```\n",
    );
    expect(diagnostics).toEqual([]);
    expect(skill?.name).toBe("pdf");
    expect(skill?.key).toBe("pdf");
    expect(skill?.category).toBe("documents");
    expect(skill?.tags).toEqual(["pdf", "extract"]);
    expect(skill?.alwaysApply).toBe(true);
  });

  test("the flat, strictly valid form: skillhub.category, skillhub.tags (comma list), skillhub.alwaysApply", () => {
    const { skill, diagnostics } = parse(
      '---\nname: pdf\ndescription: PDF tools\nmetadata:\n  skillhub.category: Documents\n  skillhub.tags: "PDF, extract"\n  skillhub.alwaysApply: "true"\n---\n# PDF\n',
    );
    expect(diagnostics).toEqual([]);
    expect(skill?.category).toBe("documents");
    expect(skill?.tags).toEqual(["pdf", "extract"]);
    expect(skill?.alwaysApply).toBe(true);
  });

  test("tags: the first 256 are read, a longer list is named in a warning", () => {
    const tags = Array.from({ length: 300 }, (_, i) => `t${i}`);
    const { skill, diagnostics } = parse(
      `---\nname: pdf\ndescription: PDF tools\nmetadata:\n  skillhub.tags: "${tags.join(", ")}"\n---\n# PDF\n`,
    );
    expect(skill?.tags).toEqual(tags.slice(0, 256));
    expect(diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual([
      "too-many-entries: tags lists 300 entries, more than the 256 a skill may have; only the first 256 are read.",
    ]);
  });

  test("a category or tag over 100 characters is ignored, with a warning; one of 100 is read", () => {
    const long = "x".repeat(101);
    const hundred = "y".repeat(100);
    for (const where of ["category", "metadata:\n  skillhub:\n    category"]) {
      const { skill, diagnostics } = parse(`---\nname: pdf\ndescription: PDF tools\n${where}: ${long}\n---\n# PDF\n`);
      expect(skill?.category).toBeUndefined();
      expect(diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual([
        `invalid-field: category '${"x".repeat(40)}…' is over 100 characters; ignored.`,
      ]);
    }
    const { skill, diagnostics } = parse(
      `---\nname: pdf\ndescription: PDF tools\ncategory: ${hundred}\nmetadata:\n  skillhub.tags: "ok, ${long}, ${hundred}"\n---\n`,
    );
    expect(skill?.category).toBe(hundred);
    expect(skill?.tags).toEqual(["ok", hundred]);
    // Characters, not UTF-16 units: 60 emoji are 60 characters.
    const emoji = "🦀".repeat(60);
    expect(parse(`---\nname: pdf\ndescription: PDF tools\ncategory: ${emoji}\n---\n`).skill?.category).toBe(emoji);
    expect(diagnostics.map((d) => d.message)).toEqual([`tag '${"x".repeat(40)}…' is over 100 characters; ignored.`]);
  });

  test("a name that breaks the rules or its folder's says how to fix it", () => {
    const messages = (text: string, dir: string) => parse(text, dir).diagnostics.map((d) => d.message);
    expect(messages("---\nname: My Skill\ndescription: d\n---\n", "/s/my-skill")).toEqual([
      "name 'My Skill' is not 1-64 lower-case letters, digits and single hyphens (write 'my-skill'); SkillHub serves it as written.",
      "name 'My Skill' differs from its folder 'my-skill' (set `name: my-skill`, or rename the folder); SkillHub serves it as 'My Skill'.",
    ]);
    // The folder's name, when it keeps the rule: following either hint ends both warnings.
    expect(messages("---\nname: My Foo\ndescription: d\n---\n", "/s/foo")[0]).toContain("(write 'foo')");
    // A folder that breaks the rule too is renamed; a name with nothing to keep gets no spelling.
    expect(messages("---\nname: '!!'\ndescription: d\n---\n", "/s/My Folder")).toEqual([
      "name '!!' is not 1-64 lower-case letters, digits and single hyphens; SkillHub serves it as written.",
      "name '!!' differs from its folder 'My Folder' (rename the folder to match); SkillHub serves it as '!!'.",
    ]);
  });

  test("a description that is there but is no text says what it is: a list, a mapping, empty", () => {
    const message = (text: string) => parse(text).diagnostics.map((d) => `${d.code}: ${d.message}`);
    expect(message("---\nname: pdf\ndescription:\n  - Fill forms\n  - Merge files\n---\n")).toEqual([
      "missing-description: the description is a list, not text; agents choose skills by it. Skill not served.",
    ]);
    expect(message("---\nname: pdf\ndescription:\n  forms: fill\n---\n")).toEqual([
      "missing-description: the description is a mapping (indented 'key: value' lines), not text; agents choose skills by it. Skill not served.",
    ]);
    expect(message("---\nname: pdf\ndescription: ''\n---\n")).toEqual([
      "missing-description: the description is empty; agents choose skills by it. Skill not served.",
    ]);
    expect(message("---\nname: pdf\n---\n")).toEqual([
      "missing-description: frontmatter has no description; agents choose skills by it. Skill not served.",
    ]);
    // A number is text as written.
    expect(parse("---\nname: pdf\ndescription: 42\n---\n").skill?.description).toBe("42");
  });

  test("a missing description is said with the name's problems, so one validation lists them all", () => {
    const result = parse("---\nname: bar\n---\n", "/s/foo");
    expect(result.skill).toBeUndefined();
    expect(result.diagnostics.map((d) => `${d.code} ${d.severity}`)).toEqual([
      "missing-description error",
      "name-mismatch warning",
    ]);
    // Not served: no word of how it would be.
    expect(result.diagnostics[1]?.message).toBe(
      "name 'bar' differs from its folder 'foo' (set `name: foo`, or rename the folder).",
    );
  });

  test("no frontmatter, unclosed frontmatter, bad YAML and a missing description skip the skill with a diagnostic", () => {
    expect(parse("# no frontmatter").skill).toBeUndefined();
    expect(codes("# no frontmatter")).toEqual(["no-frontmatter"]);
    expect(codes("---\nname: pdf\n")).toEqual(["unclosed-frontmatter"]);
    expect(codes("---\nname: [pdf\n---\n")).toEqual(["yaml-error"]);
    expect(codes("---\nname: pdf\n---\n")).toEqual(["missing-description"]);
    expect(codes("---\nname: pdf\ndescription: '   '\n---\n")).toEqual(["missing-description"]);
    expect(codes("---\n- a\n- b\n---\n")).toEqual(["invalid-frontmatter"]);
    for (const text of ["# x", "---\nname: pdf\n---\n"]) {
      for (const d of parse(text).diagnostics) {
        expect(d.severity).toBe("error");
        expect(d.file).toBe("/skills/pdf/SKILL.md");
        expect(d.message).toContain("not served");
      }
    }
  });

  test("a missing name falls back to the folder name, with a warning", () => {
    const { skill, diagnostics } = parse("---\ndescription: x\n---\nbody");
    expect(skill?.name).toBe("pdf");
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([["missing-name", "warning"]]);
  });

  test("names breaking the spec or the folder are served with warnings", () => {
    const { skill } = parse("---\nname: Ahrefs Automation\ndescription: x\n---\n", "/s/ahrefs-automation");
    expect(skill?.name).toBe("Ahrefs Automation");
    expect(skill?.key).toBe("ahrefs automation");
    expect(codes("---\nname: Ahrefs Automation\ndescription: x\n---\n", "/s/ahrefs-automation")).toEqual([
      "invalid-name",
      "name-mismatch",
    ]);
    expect(codes("---\nname: -21risk-automation\ndescription: x\n---\n", "/s/-21risk-automation")).toEqual([
      "invalid-name",
    ]);
    expect(codes("---\nname: a--b\ndescription: x\n---\n", "/s/a--b")).toEqual(["invalid-name"]);
  });

  test("unquoted ': ' is recovered with a warning and the skill is served", () => {
    const { skill, diagnostics } = parse("---\nname: pdf\ndescription: Use when: you have PDFs\n---\n");
    expect(skill?.description).toBe("Use when: you have PDFs");
    expect(diagnostics.map((d) => d.code)).toEqual(["yaml-recovered"]);
  });

  test("long descriptions and bodies are warnings", () => {
    const long = `---\nname: pdf\ndescription: ${"x".repeat(1100)}\n---\n${"line\n".repeat(600)}`;
    expect(codes(long)).toEqual(["description-too-long", "body-too-long"]);
    expect(parse(long).skill).toBeDefined();
  });

  test("unknown keys used by real clients are kept in the frontmatter", () => {
    const { skill, diagnostics } = parse(
      "---\nname: pdf\ndescription: x\nmodel: opus\nuser-invocable: false\nallowed-tools: Read Write\n---\n",
    );
    expect(diagnostics).toEqual([]);
    expect(skill && frontmatterOf(skill)).toMatchObject({
      model: "opus",
      "user-invocable": false,
      "allowed-tools": "Read Write",
    });
  });

  test("a frontmatter whose aliases make a loop is served; the loop is kept as a note (JSON cannot hold it)", () => {
    const { skill, diagnostics } = parse(
      "---\nname: pdf\ndescription: x\nmetadata: &m\n  tags: [a]\n  self: *m\nshared: &s [1]\ntwice: *s\n---\n",
    );
    expect(diagnostics).toEqual([]);
    expect(skill && frontmatterOf(skill)).toEqual({
      name: "pdf",
      description: "x",
      metadata: { tags: ["a"], self: "[circular alias]" },
      // An alias used twice without a loop is kept whole, both times.
      shared: [1],
      twice: [1],
    });
  });

  test("skillBody returns the body without frontmatter, newlines kept", () => {
    expect(skillBody("---\nname: a\ndescription: b\n---\n\n# Title\n\ntext\n")).toBe("# Title\n\ntext\n");
  });
});
