import { describe, expect, test } from "bun:test";
import { embeddingText } from "../../src/search/embeddings/document-text.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { searchName } from "../../src/search/search-name.ts";
import type { Skill, TreeNode } from "../../src/skills/skill.ts";
import { fakeSkill } from "../helpers/skill.ts";

function node(path: string, description = `About ${path}.`): TreeNode {
  return fakeSkill(path, {
    kind: "tree-node",
    description,
    tree: { path, rel: `${path}.md`, inherit: true, priority: 0, assets: [], scripts: [] },
  }) as TreeNode;
}

describe("searchName: one name for full text and embeddings", () => {
  test("an Agent Skill is searched by its name; a tree node by its path as words", () => {
    expect(searchName(fakeSkill("pdf-tools"))).toBe("pdf-tools");
    expect(searchName(node("ui/react/_index"))).toBe("ui react");
    expect(searchName(node("api/auth_flow"))).toBe("api auth flow");
    expect(searchName(node("_root"))).toBe("root");
    expect(searchName(node("a/_b"))).toBe("a b");
  });

  test("embeddings send the search name (before: slashes and a leading space differed from full text)", () => {
    for (const skill of [node("ui/react/_index"), node("_root"), fakeSkill("pdf-tools")] as Skill[])
      expect(embeddingText(skill).split("\n")[0]).toBe(searchName(skill));
  });

  test("full text finds a tree node by the words of its search name", () => {
    const index = FullTextIndex.empty();
    // Neither description holds the word searched for: only the name can match.
    const react = node("ui/react/_index", "Component conventions.");
    const root = node("_root", "House rules.");
    index.sync([react, root], () => "");
    expect(index.search("react").map((h) => h.id)).toEqual([react.id]);
    expect(index.search("root").map((h) => h.id)).toEqual([root.id]);
  });
});
