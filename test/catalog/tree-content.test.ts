import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Catalog } from "../../src/catalog/catalog.ts";
import { Scanner } from "../../src/catalog/scanner.ts";
import { chainFiles, findFileInChain } from "../../src/catalog/tree-chain.ts";
import { renderTreeContent, resolveTreeContent } from "../../src/catalog/tree-content.ts";
import type { TreeNode } from "../../src/skills/skill.ts";
import { buildSourceList } from "../../src/sources/source-list.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { writeExampleTree, writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);

function catalogOf(root: string): Catalog {
  return new Scanner().scan(
    buildSourceList({ dirs: [root], onlyDirs: true, projectDir: null, homeDir: "/x", hubHome: "/x" }),
    { maxDepth: 8, maxDirs: 1000 },
  );
}
const node = (catalog: Catalog, path: string) => catalog.get(path) as TreeNode;

describe("content resolution", () => {
  test("the aggregation format: most general first, one header per level, (from file)", () => {
    const catalog = catalogOf(writeExampleTree(tempDir()));
    expect(resolveTreeContent(catalog, node(catalog, "ui/react/auth"))).toBe(
      [
        "=== GLOBAL RULES (from _root.md) ===",
        "",
        "Global rules.",
        "",
        "=== UI (from ui/_index.md) ===",
        "",
        "UI rules.",
        "",
        "=== UI > REACT (from ui/react/_index.md) ===",
        "",
        "React rules.",
        "",
        "=== UI > REACT > AUTH (from ui/react/auth.md) ===",
        "",
        "Auth rules.",
      ].join("\n"),
    );
    expect(resolveTreeContent(catalog, node(catalog, "_root"))).toBe(
      "=== GLOBAL RULES (from _root.md) ===\n\nGlobal rules.",
    );
  });

  test("inherit: false → only the node's own content, no header", () => {
    const catalog = catalogOf(writeExampleTree(tempDir()));
    expect(resolveTreeContent(catalog, node(catalog, "no-inherit"))).toBe("Standalone only.");
  });

  test("an Agent Skill gives its body; an unreadable ancestor is left out", () => {
    const root = tempDir();
    writeSkill(root, "git", { body: "# Git\n" });
    writeNode(root, "_root.md", { body: "root\n" });
    writeNode(root, "a.md", { body: "leaf\n" });
    const catalog = catalogOf(root);
    expect(resolveTreeContent(catalog, node(catalog, "git"))).toBe("# Git\n");
    rmSync(join(root, "_root.md"));
    expect(resolveTreeContent(catalog, node(catalog, "a"))).toBe("=== A (from a.md) ===\n\nleaf");
  });

  test("renderTreeContent is pure", () => {
    expect(renderTreeContent([{ path: "x/_index", rel: "x/_index.md", body: "X\n\n" }])).toBe(
      "=== X (from x/_index.md) ===\n\nX",
    );
  });
});

describe("assets and scripts along the chain", () => {
  test("inherited files: most specific wins, `from` names the ancestor", () => {
    const catalog = catalogOf(writeExampleTree(tempDir()));
    const files = chainFiles(catalog, node(catalog, "ui/react/auth"));
    expect(files.assets.map((a) => a.file)).toEqual([
      "assets/AuthProvider.tsx.template",
      "assets/auth-config.example.ts",
      "assets/auth-flow.svg",
      "assets/component-base.tsx.template",
    ]);
    expect(files.inheritedAssets).toEqual([
      { file: "assets/hooks.md", description: "Hook conventions", type: "other", from: "ui/react/_index" },
    ]);
    expect(files.inheritedScripts).toEqual([
      {
        file: "scripts/lint-component.sh",
        description: "Lint a React component",
        execution: "claude",
        args: [],
        from: "ui/react/_index",
      },
    ]);
    expect(chainFiles(catalog, node(catalog, "no-inherit"))).toEqual({
      assets: [],
      scripts: [],
      inheritedAssets: [],
      inheritedScripts: [],
    });
  });

  test("chain lookup: own first, then up the parents; nothing inherited with inherit: false", () => {
    const catalog = catalogOf(writeExampleTree(tempDir()));
    const auth = node(catalog, "ui/react/auth");
    expect(findFileInChain(catalog, auth, "assets/component-base.tsx.template")).toMatchObject({
      kind: "asset",
      owner: { name: "ui/react/auth" },
      from: undefined,
    });
    expect(findFileInChain(catalog, auth, "scripts/lint-component.sh")).toMatchObject({
      kind: "script",
      owner: { name: "ui/react/_index" },
      from: "ui/react/_index",
    });
    expect(findFileInChain(catalog, auth, "assets/nothing")).toBeUndefined();
    expect(findFileInChain(catalog, node(catalog, "api/auth"), "assets/api-schema.openapi.yaml")?.from).toBe(
      "api/_index",
    );
  });
});
