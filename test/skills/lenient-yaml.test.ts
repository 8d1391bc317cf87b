import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readConfigFile } from "../../src/config/load.ts";
import { parseLenientYaml } from "../../src/skills/lenient-yaml.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("parseLenientYaml", () => {
  test("plain YAML parses without recovery", () => {
    expect(parseLenientYaml("name: a\ndescription: b\n")).toEqual({
      ok: true,
      data: { name: "a", description: "b" },
      recovered: [],
    });
  });

  test("an unquoted ': ' inside a value is recovered and reported", () => {
    const result = parseLenientYaml("name: pdf\ndescription: Use when: the user has a PDF\n");
    expect(result).toEqual({
      ok: true,
      data: { name: "pdf", description: "Use when: the user has a PDF" },
      recovered: ["description"],
    });
  });

  test("values starting with a reserved character are recovered", () => {
    const result = parseLenientYaml("name: x\ndescription: @mentions in Slack\n");
    expect(result.ok && result.data).toEqual({ name: "x", description: "@mentions in Slack" });
  });

  test("broken YAML that cannot be repaired is an error with a message", () => {
    const result = parseLenientYaml("name: [unclosed\ndescription: x\n");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.length).toBeGreaterThan(5);
  });

  test("an error's line is the file's (the frontmatter starts on line 2), with no dangling colon", () => {
    const result = parseLenientYaml("name: b\ndescription: fine\nmetadata:\n  a: b: c\n  d: [\n");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toEndWith(" at line 5, column 6");
      expect(result.error).not.toContain("line 4");
    }
  });

  test("a quote or bracket left open is placed where it opens, not where the frontmatter ends lines later", () => {
    const at = (text: string) => {
      const result = parseLenientYaml(text);
      return result.ok ? "parsed" : (result.error.match(/at line \d+, column \d+$/)?.[0] ?? result.error);
    };
    // File lines: 1 is `---`; `key: "unterminated` is line 6; the parser ran out of text on line 8.
    expect(at('name: bad\ndescription: >\n  text\n\nkey: "unterminated\nz: 1\n')).toBe("at line 6, column 6");
    expect(at("name: bad\ndescription: |\n  one\nfoo: [x\nbar: 1\n")).toBe("at line 5, column 6");
    expect(at("name: bad\ndescription: 'it''s\nz: 1\n")).toBe("at line 3, column 14");
    // A closed quote, an escaped one inside, is no opening: the parser's own position stands.
    expect(at('name: "a \\" b"\ndescription: ok\n  bad: indent\n')).toBe("at line 3, column 14");
  });

  test("a user's config.yaml: the same positions, in the file's own lines", () => {
    const file = write(join(tempDir(), "config.yaml"), 'log_level: INFO\nsearch:\n  x: "abc\nother: 1\n');
    expect(() => readConfigFile(file)).toThrow(
      `${file} is not valid YAML: Missing closing "quote at line 3, column 6.`,
    );
  });

  test("a YAML alias bomb is refused, not expanded", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
      "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]",
      "description: boom",
    ].join("\n");
    const result = parseLenientYaml(bomb);
    expect(result.ok).toBe(false);
  });

  test("block scalars and quoted strings keep their text", () => {
    const result = parseLenientYaml('name: "x"\ndescription: |\n  line one\n  line two\n');
    expect(result.ok && result.data).toEqual({ name: "x", description: "line one\nline two\n" });
  });
});
