import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { closeAfterEach } from "../helpers/closers.ts";
import { corporaFor } from "../helpers/corpora.ts";
import { cleanupTemp, labelOfDir, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect, textOf } from "../helpers/hub.ts";
import { writeExampleTree, writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();
const corpora = corporaFor("list_skills over the real corpora");

async function open(dirs: string[], env: Record<string, string> = {}) {
  const session = await connect({ flags: { "skills-dir": dirs }, env: { SKILLHUB_TOOLS: "all", ...env } });
  closers.push(session.close);
  await session.client.listTools();
  return session;
}

/** A tiny tree: _root, api/_index with one leaf, and a leaf in a folder without _index. */
function smallTree(root: string): string {
  writeNode(root, "_root.md", { keywords: ["global"], description: "Global rules" });
  writeNode(root, "api/_index.md", {
    keywords: ["api"],
    description: "API rules",
    extra: "scripts:\n  - file: gen.sh\n    description: Generate",
  });
  writeNode(root, "api/auth.md", {
    keywords: ["auth", "jwt"],
    description: "API auth",
    extra: "assets:\n  - file: a.json\n    description: A\n  - file: b.json\n    description: B",
  });
  writeNode(root, "docs/howto/write.md", { keywords: ["docs"], description: "Writing docs" });
  for (const file of ["api/_index/gen.sh", "api/auth/a.json", "api/auth/b.json"]) write(join(root, file), "x");
  return root;
}

const leaf = (
  name: string,
  path: string,
  description: string,
  keywords: string[],
  assetCount = 0,
  scriptCount = 0,
) => ({ name, path, description, keywords, assetCount, scriptCount, children: [] });

describe("list_skills with path: the tree", () => {
  test("the whole tree: recursive nodes with name, path, description, keywords, counts, children", async () => {
    const { call } = await open([smallTree(tempDir())]);
    const result = await call("list_skills", { path: "" });
    expect(result.structuredContent).toEqual({
      tree: {
        name: "root",
        path: "_root",
        description: "Global rules",
        keywords: ["global"],
        assetCount: 0,
        scriptCount: 0,
        children: [
          {
            ...leaf("api", "api/_index", "API rules", ["api"], 0, 1),
            children: [leaf("auth", "api/auth", "API auth", ["auth", "jwt"], 2, 0)],
          },
          leaf("write", "docs/howto/write", "Writing docs", ["docs"]),
        ],
      },
      agent_skills: 0,
      diagnostics: { errors: 0, warnings: 0 },
    });
    // No path is the whole tree; the text is JSON.stringify(result).
    const whole = await call("list_skills", {});
    expect(whole.structuredContent).toEqual(result.structuredContent as Record<string, unknown>);
    expect(whole.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }]);
    for (const path of ["/", "_root", "root"])
      expect((await call("list_skills", { path })).structuredContent).toEqual(
        result.structuredContent as Record<string, unknown>,
      );
  });

  test("counts only declared files that exist, as get_skill lists them", async () => {
    const root = tempDir();
    writeNode(root, "_root.md", { keywords: ["global"], description: "Global rules" });
    writeNode(root, "forms.md", {
      keywords: ["forms"],
      description: "Forms",
      extra: [
        "assets:",
        ...["a.json", "b.json", "gone.json"].flatMap((f) => [`  - file: ${f}`, `    description: ${f}`]),
        "scripts:",
        ...["run.sh", "missing.sh"].flatMap((f) => [`  - file: ${f}`, `    description: ${f}`]),
      ].join("\n"),
    });
    for (const file of ["forms/a.json", "forms/b.json", "forms/run.sh"]) write(join(root, file), "x");
    const { call } = await open([root]);
    const node = (await call("list_skills", { path: "forms" })).structuredContent?.tree;
    expect(node).toMatchObject({ assetCount: 2, scriptCount: 1 });
    const served = (await call("get_skill", { context: "forms" })).structuredContent;
    expect([served?.assets.length, served?.scripts.length]).toEqual([2, 1]);
  });

  test("filtered by path: a domain, an _index path, a leaf, a folder without _index", async () => {
    const { call } = await open([smallTree(tempDir())]);
    const api = {
      ...leaf("api", "api/_index", "API rules", ["api"], 0, 1),
      children: [leaf("auth", "api/auth", "API auth", ["auth", "jwt"], 2, 0)],
    };
    expect((await call("list_skills", { path: "api" })).structuredContent?.tree).toEqual(api);
    expect((await call("list_skills", { path: "api/_index" })).structuredContent?.tree).toEqual(api);
    expect((await call("list_skills", { path: "/api/auth.md" })).structuredContent?.tree).toEqual(
      leaf("auth", "api/auth", "API auth", ["auth", "jwt"], 2, 0),
    );
    expect((await call("list_skills", { path: "docs" })).structuredContent?.tree).toEqual({
      ...leaf("docs", "docs", "", []),
      children: [leaf("write", "docs/howto/write", "Writing docs", ["docs"])],
    });
  });

  test("unknown path, no trees at all, and a disabled node", async () => {
    const { call } = await open([smallTree(tempDir())], { SKILLHUB_ENABLED_SKILLS: "_root,api/auth" });
    expect((await call("list_skills", { path: "ui" })).structuredContent).toEqual({
      error: {
        code: "SKILL_NOT_FOUND",
        message: `No node or folder 'ui' in the skill tree. Top level: _root, api. Leave path out for the whole tree.`,
        path: "ui",
      },
    });
    expect((await call("list_skills", { path: "api/_index" })).structuredContent).toMatchObject({
      error: { code: "SKILL_DISABLED" },
    });
    // A disabled node's enabled children move up to the nearest enabled ancestor.
    const tree = (await call("list_skills", { path: "" })).structuredContent?.tree as { children: { path: string }[] };
    expect(tree.children.map((c) => c.path)).toEqual(["api/auth"]);
    const plain = tempDir();
    writeSkill(plain, "git");
    const other = await open([plain]);
    // No tree at all: the default answer is an empty root that says where the skills are, not an error.
    const none = await other.call("list_skills", {});
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent).toEqual({
      tree: { name: "root", path: "", description: "", keywords: [], assetCount: 0, scriptCount: 0, children: [] },
      agent_skills: 1,
      message:
        "There is no skill tree here (no Markdown files with keywords). 1 Agent Skill (SKILL.md) is served: list them with flat: true, or find one with search_skills.",
      diagnostics: { errors: 0, warnings: 0 },
    });
    expect((await other.call("list_skills", { path: "api" })).structuredContent).toMatchObject({
      error: { code: "SKILL_NOT_FOUND", message: expect.stringContaining("no skill trees") },
    });
  });

  test("a tree too large for one answer is cut breadth first to the result budget, and says how to see the rest", async () => {
    const root = tempDir();
    writeNode(root, "_root.md", { keywords: ["global"], description: "Global rules" });
    writeNode(root, "x/_index.md", { keywords: ["x"], description: "X rules" });
    writeNode(root, "y/_index.md", { keywords: ["y"], description: "Y rules" });
    for (let i = 0; i < 1500; i++) writeNode(root, `x/n${i}.md`, { keywords: [`k${i}`], description: `Node ${i}` });
    const { call } = await open([root], { SKILLHUB_RESULT_BUDGET: "20000" });
    const text = textOf(await call("list_skills", {}));
    expect(text.length).toBeLessThanOrEqual(20_000);
    expect(text.length).toBeGreaterThan(15_000);
    type Node = { path: string; children: Node[] };
    const answer = JSON.parse(text) as { tree: Node; message: string };
    // The top levels whole, then as many of x's children as fit, in path order.
    expect(answer.tree.path).toBe("_root");
    expect(answer.tree.children.map((c) => c.path)).toEqual(["x/_index", "y/_index"]);
    const shown = answer.tree.children[0]?.children ?? [];
    const inOrder = Array.from({ length: 1500 }, (_, i) => `x/n${i}`).sort();
    expect(shown.map((c) => c.path)).toEqual(inOrder.slice(0, shown.length));
    expect(shown.length).toBeGreaterThan(100);
    expect(shown.length).toBeLessThan(1500);
    expect(answer.message).toBe(
      `The tree is cut to fit one answer (20000 characters): ${shown.length + 3} of 1503 nodes shown, the top levels first. ` +
        `Left out: ${1500 - shown.length} of 1500 under 'x/_index'. Call list_skills with path set to a node or folder to ` +
        "see its branch, or with flat: true to page through every skill.",
    );
    // A branch asked for by path is cut the same way; a small one comes whole.
    const branch = JSON.parse(textOf(await call("list_skills", { path: "x" })));
    expect(branch).toMatchObject({ tree: { path: "x/_index" }, message: expect.stringContaining("cut to fit") });
    expect(JSON.parse(textOf(await call("list_skills", { path: "y" })))).not.toHaveProperty("message");
  });

  test("the example tree: complete, and filtered on ui", async () => {
    const { call } = await open([writeExampleTree(tempDir())]);
    const paths = (node: { path: string; children: unknown[] }): string[] => [
      node.path,
      ...node.children.flatMap((c) => paths(c as typeof node)),
    ];
    const all = (await call("list_skills", { path: "" })).structuredContent?.tree as {
      path: string;
      children: unknown[];
    };
    expect(paths(all)).toEqual([
      "_root",
      "api/_index",
      "api/auth",
      "api/database",
      "deploy/_index",
      "deploy/docker",
      "no-inherit",
      "ui/_index",
      "ui/react/_index",
      "ui/react/auth",
      "ui/react/testing",
      "ui/vue/_index",
      "ui/vue/composition",
    ]);
    const ui = (await call("list_skills", { path: "ui" })).structuredContent?.tree as {
      path: string;
      children: unknown[];
    };
    expect(paths(ui)).toEqual([
      "ui/_index",
      "ui/react/_index",
      "ui/react/auth",
      "ui/react/testing",
      "ui/vue/_index",
      "ui/vue/composition",
    ]);
  });
});

describe("list_skills with flat: true: the flat list (the sk profile's semantics)", () => {
  test("bounded: pages of `limit` entries with next_cursor and an 'N more' message", async () => {
    const dir = tempDir();
    for (let i = 0; i < 7; i++) writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}` });
    const { call } = await open([dir]);
    const first = await call("list_skills", { flat: true, limit: 3 });
    expect(first.structuredContent).toMatchObject({
      total: 7,
      next_cursor: "3",
      message: 'Entries 1-3 of 7; 4 more: call list_skills again with cursor "3".',
    });
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await call("list_skills", { limit: 3, ...(cursor ? { cursor } : { flat: true }) }))
        .structuredContent as { skills: { name: string }[]; next_cursor?: string };
      names.push(...page.skills.map((s) => s.name));
      cursor = page.next_cursor;
    } while (cursor);
    expect(names).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `skill-${i}`));
    const last = await call("list_skills", { cursor: "6", limit: 3 });
    expect(last.structuredContent).toMatchObject({ total: 7, message: "Entries 7-7 of 7." });
    expect(last.structuredContent?.next_cursor).toBeUndefined();
    for (const cursor of ["abc", "-1", "8"]) {
      const bad = await call("list_skills", { cursor });
      expect(bad.isError).toBe(true);
      expect(JSON.parse(textOf(bad))).toMatchObject({ error: { code: "INVALID_ARGUMENT" } });
    }
    expect((await call("list_skills", { flat: true, limit: 500 })).structuredContent).toMatchObject({
      error: { code: "INVALID_ARGUMENT" },
    });
  });

  test.skipIf(!corpora)(
    "bounded over the real corpora: a first page and a page of 200 bodies, each in a reply a client takes",
    async () => {
      const big = await open([corpora as string]);
      const text = textOf(await big.call("list_skills", { flat: true }));
      expect(text.length).toBeLessThan(100_000);
      expect(JSON.parse(text)).toMatchObject({ next_cursor: "50" });
      const bodies = textOf(await big.call("list_skills", { flat: true, include_body: true, limit: 200 }));
      expect(bodies.length).toBeLessThan(300 * 1024);
      expect(JSON.parse(bodies).message).toContain("more: call list_skills again with cursor");
    },
  );

  test("every skill with its fields, shadowed ones marked, diagnostics counted", async () => {
    const first = tempDir();
    const second = tempDir();
    writeSkill(first, "git", {
      description: "Git workflow",
      extra: "metadata:\n  skillhub:\n    category: VCS\n    tags: [Git, Flow]",
    });
    writeNode(first, "api.md", { keywords: ["api"], description: "API rules" });
    writeSkill(second, "git", { description: "Other git" });
    writeSkill(second, "tools/pdf", { description: "PDF tools" });
    write(join(second, "broken/SKILL.md"), "---\nname: broken\n---\n");
    const { call } = await open([first, second]);
    expect((await call("list_skills", { flat: true })).structuredContent).toEqual({
      skills: [
        {
          name: "git",
          description: "Git workflow",
          location: "global",
          source: labelOfDir(first),
          category: "vcs",
          tags: ["git", "flow"],
          path: "git",
          file: join(first, "git/SKILL.md"),
          kind: "agent-skill",
          shadowed: false,
          qualified_name: `${labelOfDir(first)}:git`,
        },
        {
          name: "api",
          description: "API rules",
          location: "global",
          source: labelOfDir(first),
          tags: [],
          path: "api",
          file: join(first, "api.md"),
          kind: "tree-node",
          shadowed: false,
          qualified_name: `${labelOfDir(first)}:api`,
        },
        {
          name: "pdf",
          description: "PDF tools",
          location: "global",
          source: labelOfDir(second),
          tags: [],
          path: "tools/pdf",
          file: join(second, "tools/pdf/SKILL.md"),
          kind: "agent-skill",
          shadowed: false,
          qualified_name: `${labelOfDir(second)}:pdf`,
        },
        {
          name: "git",
          description: "Other git",
          location: "global",
          source: labelOfDir(second),
          tags: [],
          path: "git",
          file: join(second, "git/SKILL.md"),
          kind: "agent-skill",
          shadowed: true,
          shadowed_by: `${labelOfDir(first)}:git`,
          qualified_name: `${labelOfDir(second)}:git`,
        },
      ],
      total: 4,
      message: "Entries 1-4 of 4.",
      diagnostics: { errors: 1, warnings: 0 },
    });
  });

  test("query: case-insensitive substring of folder name, name or description; include_body: body without frontmatter", async () => {
    const dir = tempDir();
    writeSkill(dir, "renamed-folder", { name: "git", description: "Version control", body: "# Git body\n" });
    writeSkill(dir, "pdf", { description: "Read PDF files" });
    writeNode(dir, "api.md", { keywords: ["api"], description: "API rules", body: "Node body.\n" });
    const { call } = await open([dir]);
    const names = async (args: Record<string, unknown>) =>
      ((await call("list_skills", args)).structuredContent?.skills as { name: string }[]).map((s) => s.name);
    expect(await names({ query: "RENAMED" })).toEqual(["git"]);
    expect(await names({ query: "pdf" })).toEqual(["pdf"]);
    expect(await names({ query: "control" })).toEqual(["git"]);
    expect(await names({ query: "nothing-like-this" })).toEqual([]);
    const bodies = (await call("list_skills", { query: "r", include_body: true })).structuredContent?.skills as {
      name: string;
      body: string;
    }[];
    expect(bodies.map((s) => [s.name, s.body])).toEqual([
      ["pdf", "# pdf\n\nInstructions for pdf.\n"],
      ["git", "# Git body\n"],
      ["api", "Node body.\n"],
    ]);
  });

  test("server filters: disabled skills are not listed", async () => {
    const dir = tempDir();
    writeSkill(dir, "git");
    writeSkill(dir, "pdf");
    const { call } = await open([dir], { SKILLHUB_ENABLED_SKILLS: "pdf" });
    expect(
      ((await call("list_skills", { flat: true })).structuredContent?.skills as { name: string }[]).map((s) => s.name),
    ).toEqual(["pdf"]);
  });
});
