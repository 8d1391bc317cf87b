import { describe, expect, test } from "bun:test";
import {
  deriveParentPath,
  nodeDisplayName,
  resolveParentPath,
  sectionHeader,
  skillPathOf,
} from "../../src/skills/tree-paths.ts";

describe("skill paths", () => {
  test.each([
    ["_root.md", "_root"],
    ["ui/_index.md", "ui/_index"],
    ["ui/react/_index.md", "ui/react/_index"],
    ["ui/react/auth.md", "ui/react/auth"],
    ["no-inherit.md", "no-inherit"],
    ["ui\\react\\auth.md", "ui/react/auth"],
  ])("%p → %p", (rel, path) => expect(skillPathOf(rel)).toBe(path));
});

describe("parent resolution", () => {
  test.each([
    ["_root", null],
    ["ui/_index", "_root"],
    ["ui/react/_index", "ui/_index"],
    ["ui/react/auth", "ui/react/_index"],
    ["no-inherit", "_root"],
    ["_index", "_root"],
  ])("derived parent of %p is %p", (path, parent) => expect(deriveParentPath(path)).toBe(parent));

  test("the examples table: every derived parent exists → resolved = derived", () => {
    const all = new Set(["_root", "ui/_index", "ui/react/_index", "ui/react/auth", "no-inherit"]);
    const has = (p: string) => all.has(p);
    expect(resolveParentPath("_root", has)).toEqual({ skipped: [] });
    expect(resolveParentPath("ui/react/auth", has)).toEqual({ parent: "ui/react/_index", skipped: [] });
    expect(resolveParentPath("no-inherit", has)).toEqual({ parent: "_root", skipped: [] });
  });

  test("missing intermediates: walk up until an existing node, or none", () => {
    const has = (p: string) => ["_root", "ui/_index"].includes(p);
    expect(resolveParentPath("ui/react/forms/login", has)).toEqual({
      parent: "ui/_index",
      skipped: ["ui/react/forms/_index", "ui/react/_index"],
    });
    expect(resolveParentPath("api/auth", (p) => p === "_root")).toEqual({ parent: "_root", skipped: ["api/_index"] });
    expect(resolveParentPath("api/auth", () => false)).toEqual({ skipped: ["api/_index", "_root"] });
  });
});

describe("section headers", () => {
  test.each([
    ["_root", "GLOBAL RULES"],
    ["ui/_index", "UI"],
    ["ui/react/_index", "UI > REACT"],
    ["ui/react/auth", "UI > REACT > AUTH"],
    ["no-inherit", "NO-INHERIT"],
    ["my  docs/leaf", "MY DOCS > LEAF"],
  ])("%p → %p", (path, header) => expect(sectionHeader(path)).toBe(header));

  test("list_skills names: root, the folder of an _index, else the file", () => {
    expect(["_root", "ui/_index", "ui/react/auth", "no-inherit"].map(nodeDisplayName)).toEqual([
      "root",
      "ui",
      "auth",
      "no-inherit",
    ]);
  });
});
