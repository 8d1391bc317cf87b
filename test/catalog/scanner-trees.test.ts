import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { treeChain } from "../../src/catalog/tree-chain.ts";
import { buildSourceList } from "../../src/sources/source-list.ts";
import { cleanupTemp, labelOfDir, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { writeExampleTree, writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);

const LIMITS = { maxDepth: 8, maxDirs: 20_000 };
const scan = (dirs: string[], scanner = new Scanner()) =>
  scanner.scan(
    buildSourceList({ dirs, onlyDirs: true, projectDir: null, homeDir: "/nonexistent", hubHome: "/nonexistent" }),
    LIMITS,
  );
const problems = (catalog: ReturnType<typeof scan>, root: string) =>
  catalog.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file.slice(root.length + 1)}`).sort();

describe("tree nodes in the scanner", () => {
  test("every node of the example tree, with skill paths, parents and resource folders; Agent Skills alongside", () => {
    const root = writeExampleTree(tempDir());
    writeSkill(root, "git", { description: "Git workflow" });
    const catalog = scan([root]);
    expect(problems(catalog, root)).toEqual([]);
    const nodes = catalog.skills.filter((s) => s.kind === "tree-node");
    expect(nodes.map((s) => [s.name, s.tree?.parent ?? null])).toEqual([
      ["_root", null],
      ["api/_index", "_root"],
      ["api/auth", "api/_index"],
      ["api/database", "api/_index"],
      ["deploy/_index", "_root"],
      ["deploy/docker", "deploy/_index"],
      ["no-inherit", "_root"],
      ["ui/_index", "_root"],
      ["ui/react/_index", "ui/_index"],
      ["ui/react/auth", "ui/react/_index"],
      ["ui/react/testing", "ui/react/_index"],
      ["ui/vue/_index", "ui/_index"],
      ["ui/vue/composition", "ui/vue/_index"],
    ]);
    expect(catalog.get("git")?.kind).toBe("agent-skill");
    const auth = catalog.get("UI/React/Auth");
    expect(auth).toMatchObject({
      id: `${labelOfDir(root)}:ui/react/auth`,
      file: join(root, "ui/react/auth.md"),
      dir: join(root, "ui/react/auth"),
      keywords: ["react", "auth", "authentication", "login", "component"],
    });
    expect(auth?.tree).toMatchObject({
      path: "ui/react/auth",
      rel: "ui/react/auth.md",
      inherit: true,
      priority: 10,
      resourceDir: join(root, "ui/react/auth"),
    });
    expect(catalog.get("ui/react/_index")?.tree?.resourceDir).toBe(join(root, "ui/react/_index"));
    expect(catalog.get("ui/react/testing")?.tree?.resourceDir).toBeUndefined();
    expect(catalog.get("no-inherit")?.tree?.inherit).toBe(false);
  });

  test("a README.md beside ordinary Agent Skills makes no noise and no node", () => {
    const root = tempDir();
    writeSkill(root, "pdf");
    write(join(root, "README.md"), "# My skills\n\nA collection.\n");
    write(join(root, "docs/guide.md"), "---\ntitle: Guide\n---\n\nText.\n");
    write(join(root, "pdf/reference.md"), "no frontmatter: a file of the pdf skill\n");
    const catalog = scan([root]);
    expect(catalog.skills.map((s) => s.name)).toEqual(["pdf"]);
    expect(catalog.diagnostics).toEqual([]);
  });

  test("inside a tree, a .md without frontmatter is skipped with a warning; docs and dot-folders stay silent", () => {
    const root = tempDir();
    writeNode(root, "_root.md", { keywords: ["global"] });
    write(join(root, "ui/notes.md"), "# Notes\n");
    write(join(root, "ui/guide.md"), "---\ntitle: Guide\n---\n");
    write(join(root, "README.md"), "# Tree\n");
    write(join(root, ".github/pull_request_template.md"), "## Checklist\n");
    write(join(root, "elsewhere/_index.md"), "no frontmatter\n");
    const catalog = scan([root]);
    expect(catalog.skills.map((s) => s.name)).toEqual(["_root"]);
    expect(problems(catalog, root)).toEqual([
      "warning missing-keywords ui/guide.md",
      "warning no-frontmatter elsewhere/_index.md",
      "warning no-frontmatter ui/notes.md",
    ]);
  });

  test("a node declaring keywords without description is an error and is not served; the rest is", () => {
    const root = tempDir();
    writeNode(root, "_root.md", { keywords: ["global"] });
    writeNode(root, "api/bad.md", { keywords: ["api"], description: null });
    writeNode(root, "api/good.md", { keywords: ["api"] });
    const catalog = scan([root]);
    expect(catalog.skills.map((s) => s.name)).toEqual(["_root", "api/good"]);
    expect(problems(catalog, root)).toEqual(["error missing-description api/bad.md"]);
  });

  test("Markdown inside a node's resource folder belongs to the node", () => {
    const root = tempDir();
    writeNode(root, "auth.md", { keywords: ["auth"], extra: "assets:\n  - file: notes.md\n    description: Notes" });
    write(join(root, "auth/notes.md"), "plain notes\n");
    writeNode(root, "auth/nested.md", { keywords: ["nested"] });
    const catalog = scan([root]);
    expect(catalog.skills.map((s) => s.name)).toEqual(["auth"]);
    expect(problems(catalog, root)).toEqual(["warning in-resource-folder auth/nested.md"]);
  });

  test("missing intermediate parents are skipped", () => {
    const root = tempDir();
    writeNode(root, "_root.md");
    writeNode(root, "ui/_index.md");
    writeNode(root, "ui/react/forms/login.md");
    writeNode(root, "api/auth.md");
    const catalog = scan([root]);
    expect(catalog.get("ui/react/forms/login")?.tree?.parent).toBe("ui/_index");
    expect(catalog.get("api/auth")?.tree?.parent).toBe("_root");
    expect(treeChain(catalog, catalog.get("ui/react/forms/login") as never).map((s) => s.name)).toEqual([
      "_root",
      "ui/_index",
      "ui/react/forms/login",
    ]);
  });

  test("declared but missing files: a warning each, the node is still served", () => {
    const root = tempDir();
    writeNode(root, "a.md", { extra: "assets:\n  - file: assets/gone.png\n    description: Gone" });
    writeNode(root, "b.md", { extra: "scripts:\n  - file: scripts/gone.sh\n    description: Gone" });
    write(join(root, "b/other.txt"), "x");
    const catalog = scan([root]);
    expect(catalog.skills.map((s) => s.name)).toEqual(["a", "b"]);
    expect(catalog.diagnostics.map((d) => d.message)).toEqual([
      "declares asset 'assets/gone.png' but the resource folder a/ does not exist; served without it.",
      "declares script 'scripts/gone.sh' but b/scripts/gone.sh does not exist; served without it.",
    ]);
    expect(catalog.diagnostics.every((d) => d.code === "missing-file" && d.severity === "warning")).toBe(true);
  });

  test("Security: a declared asset symlinked outside its resource folder is flagged at scan time", () => {
    const root = tempDir();
    const outside = write(join(tempDir(), "secret.txt"), "secret");
    writeNode(root, "a.md", { extra: "assets:\n  - file: link.txt\n    description: Link" });
    write(join(root, "a/placeholder"), "");
    symlinkSync(outside, join(root, "a/link.txt"));
    expect(problems(scan([root]), root)).toEqual(["warning unsafe-path a.md"]);
  });

  test("two sources with trees: the first wins each path; the second keeps its own chain", () => {
    const first = tempDir();
    const second = tempDir();
    writeNode(first, "_root.md", { body: "first root\n" });
    writeNode(second, "_root.md", { body: "second root\n" });
    writeNode(second, "x/leaf.md");
    const catalog = scan([first, second]);
    const two = labelOfDir(second);
    expect(catalog.get("_root")?.source).toBe(labelOfDir(first));
    expect(catalog.shadowed.map((s) => s.skill.id)).toEqual([`${two}:_root`]);
    const chain = treeChain(catalog, catalog.get("x/leaf") as never);
    expect(chain.map((s) => s.id)).toEqual([`${two}:_root`, `${two}:x/leaf`]);
  });

  test("unchanged files are not read again; a changed node is", () => {
    const root = tempDir();
    const file = writeNode(root, "_root.md", { keywords: ["one"] });
    const reads: string[] = [];
    const scanner = new Scanner(undefined, (f) => (reads.push(f), readFileSync(f, "utf8")));
    scan([root], scanner);
    scan([root], scanner);
    expect(reads).toEqual([file]);
    writeNode(root, "_root.md", { keywords: ["one", "two", "three"] });
    expect(scan([root], scanner).get("_root")?.keywords).toEqual(["one", "two", "three"]);
    expect(reads).toEqual([file, file]);
  });
});
