import { describe, expect, test } from "bun:test";
import { assembleTree, resourceFolderOf, type TreeFile, type TreeProbe } from "../../src/skills/tree-assemble.ts";
import { parseTreeNode } from "../../src/skills/tree-node.ts";

/** No folder or file exists beside the nodes: assembly asks nothing else of the disk. */
const noDisk: TreeProbe = { isDirectory: () => false, isFile: () => false, realpath: (p) => p };

const file = (rel: string, frontmatter = `keywords: [${rel.replace(/\W/g, "")}]\ndescription: d`): TreeFile => ({
  file: `/r/${rel}`,
  rel,
  size: 1,
  mtimeMs: 0,
  ctimeMs: 0,
  ino: 0,
  parse: parseTreeNode(`/r/${rel}`, `---\n${frontmatter}\n---\nbody\n`, "h"),
});

describe("tree assembly: resource folders", () => {
  test("a file's resource folder is the outermost of its folders that a node declares, whatever the file order", () => {
    const folders = new Set(["a", "a/b", "c/d"]);
    expect(resourceFolderOf("a/b/c.md", folders)).toBe("a");
    expect(resourceFolderOf("a/x.md", folders)).toBe("a");
    expect(resourceFolderOf("c/d/e/f.md", folders)).toBe("c/d");
    expect(resourceFolderOf("c/e.md", folders)).toBeUndefined();
    expect(resourceFolderOf("a.md", folders)).toBeUndefined();
    expect(resourceFolderOf("ab/c.md", folders)).toBeUndefined();

    // Nested folders listed inner first: every file below a.md's folder is a.md's, named so.
    const files = [file("a/b/c/d.md"), file("a/b/c.md"), file("a/b.md"), file("a.md"), file("e/f.md"), file("e.md")];
    const { nodes, diagnostics } = assembleTree("/r", files, noDisk);
    expect(nodes.map((n) => n.name)).toEqual(["a", "e"]);
    expect(diagnostics.map((d) => [d.code, d.file, d.message.split(",")[0]])).toEqual([
      ["in-resource-folder", "/r/a/b/c/d.md", "inside the resource folder of a.md"],
      ["in-resource-folder", "/r/a/b/c.md", "inside the resource folder of a.md"],
      ["in-resource-folder", "/r/a/b.md", "inside the resource folder of a.md"],
      ["in-resource-folder", "/r/e/f.md", "inside the resource folder of e.md"],
    ]);
  });

  test("many nodes in one folder: each its own node, each beside the others, none inside another's folder", () => {
    const files = Array.from({ length: 5000 }, (_, i) => file(`t/n${i}.md`));
    files.push(file("t/n1/inner.md"), file("t/n10/inner.md"));
    const { nodes, diagnostics } = assembleTree("/r", files, noDisk);
    expect(nodes).toHaveLength(5000);
    expect(diagnostics.map((d) => d.message.split(",")[0])).toEqual([
      "inside the resource folder of t/n1.md",
      "inside the resource folder of t/n10.md",
    ]);
  });
});
