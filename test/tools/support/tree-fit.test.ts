import { describe, expect, test } from "bun:test";
import type { SkillTreeNode } from "../../../src/catalog/tree-listing.ts";
import { fitTree } from "../../../src/tools/support/tree-fit.ts";

const node = (path: string, children: SkillTreeNode[] = []): SkillTreeNode => ({
  name: path,
  path,
  description: "",
  keywords: [],
  assetCount: 0,
  scriptCount: 0,
  children,
});
const size = (n: SkillTreeNode) => JSON.stringify(n).length;
const paths = (n: SkillTreeNode): string[] => [n.path, ...n.children.flatMap(paths)];

describe("a tree cut to fit a number of characters", () => {
  const tree = node("r", [node("a", [node("a1"), node("a2")]), node("b", [node("b1")]), node("c")]);

  test("whole when it fits: the same nodes, nothing cut", () => {
    const fitted = fitTree(tree, size(tree));
    expect(fitted.tree).toEqual(tree);
    expect(fitted).toMatchObject({ shown: 7, total: 7, cut: [] });
  });

  test("breadth first: every child of the root before any grandchild, each within the room, parents kept", () => {
    const topLevels = node("r", [node("a"), node("b"), node("c")]);
    const room = size(topLevels) + size(node("a1"));
    const fitted = fitTree(tree, room);
    expect(paths(fitted.tree)).toEqual(["r", "a", "a1", "b", "c"]);
    expect(size(fitted.tree)).toBe(room);
    expect(fitted).toMatchObject({
      shown: 5,
      total: 7,
      cut: [
        { path: "a", shown: 1, total: 2 },
        { path: "b", shown: 0, total: 1 },
      ],
    });
    // One character less: a1 no longer fits, nor anything after it.
    expect(paths(fitTree(tree, room - 1).tree)).toEqual(["r", "a", "b", "c"]);
  });

  test("the root is kept however small the room", () => {
    const fitted = fitTree(tree, 0);
    expect(fitted.tree).toEqual(node("r"));
    expect(fitted).toMatchObject({ shown: 1, total: 7, cut: [{ path: "r", shown: 0, total: 3 }] });
  });
});
