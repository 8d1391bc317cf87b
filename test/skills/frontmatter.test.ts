import { describe, expect, test } from "bun:test";
import { splitFrontmatter } from "../../src/skills/frontmatter.ts";

describe("splitFrontmatter", () => {
  test("stops at the first closing --- so horizontal rules in the body survive", () => {
    const split = splitFrontmatter("---\nname: a\ndescription: b\n---\n# Title\n\n---\n\nmore\n---\nend");
    expect(split).toEqual({
      kind: "ok",
      frontmatter: "name: a\ndescription: b\n",
      body: "# Title\n\n---\n\nmore\n---\nend",
    });
  });

  test("handles CRLF and a byte-order mark", () => {
    const split = splitFrontmatter("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\nline 2\r\n");
    expect(split).toEqual({ kind: "ok", frontmatter: "name: a\ndescription: b\n", body: "body\nline 2\n" });
  });

  test("no frontmatter and unclosed frontmatter are told apart", () => {
    expect(splitFrontmatter("# just markdown\n").kind).toBe("none");
    expect(splitFrontmatter("---\nname: a\nno end").kind).toBe("unclosed");
    expect(splitFrontmatter("").kind).toBe("none");
  });

  test("a closing line at end of file without a newline, and trailing spaces on fences", () => {
    expect(splitFrontmatter("--- \nname: a\n---")).toEqual({ kind: "ok", frontmatter: "name: a\n", body: "" });
  });

  test("empty frontmatter is still frontmatter", () => {
    expect(splitFrontmatter("---\n---\nbody")).toEqual({ kind: "ok", frontmatter: "", body: "body" });
  });

  test("blank lines between the frontmatter and the body are dropped, and only those", () => {
    expect(splitFrontmatter("---\nname: a\n---\n\n\n# Title\n\n\ntext\n")).toEqual({
      kind: "ok",
      frontmatter: "name: a\n",
      body: "# Title\n\n\ntext\n",
    });
    expect(splitFrontmatter("---\nname: a\n---\n\n\n").body).toBe("");
    expect(splitFrontmatter("---\nname: a\n---\r\n\r\n body").body).toBe(" body");
  });
});
