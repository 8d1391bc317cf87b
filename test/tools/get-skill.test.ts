import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, labelOfDir, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect, recordingSessions } from "../helpers/hub.ts";
import { writeExampleTree, writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
/** A client on a folder with every tool, output schemas cached (so the SDK validates structuredContent), events recorded. */
const open = recordingSessions();

describe("get_skill", () => {
  test("the right skill for 10 varied requests, English and French", async () => {
    const { call } = await open(writeExampleTree(tempDir()));
    const cases: [string, string][] = [
      ["Create a React component for the authentication", "ui/react/auth"],
      ["testing react components with vitest and jest", "ui/react/testing"],
      ["JWT middleware for the API", "api/auth"],
      ["add a SQL migration", "api/database"],
      ["write a Dockerfile and a docker compose file", "deploy/docker"],
      ["Vue composition API setup", "ui/vue/composition"],
      ["créer un composant React", "ui/react/_index"],
      ["release deployment checklist", "deploy/_index"],
      ["a standalone isolated task", "no-inherit"],
      ["global conventions and rules", "_root"],
    ];
    const got: [string, unknown][] = [];
    for (const [context] of cases)
      got.push([context, (await call("get_skill", { context })).structuredContent?.skill_path]);
    expect(got).toEqual(cases);
  });

  test("a single match: score, matched keywords, inherited content, own and inherited assets and scripts", async () => {
    const { call } = await open(writeExampleTree(tempDir()));
    const result = await call("get_skill", { context: "Create a React component for the authentication" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      skill_path: "ui/react/auth",
      kind: "tree-node",
      score: 0.81,
      matched_keywords: ["react", "auth", "authentication", "component"],
      content:
        "=== GLOBAL RULES (from _root.md) ===\n\nGlobal rules.\n\n=== UI (from ui/_index.md) ===\n\nUI rules.\n\n=== UI > REACT (from ui/react/_index.md) ===\n\nReact rules.\n\n=== UI > REACT > AUTH (from ui/react/auth.md) ===\n\nAuth rules.",
      content_length_tokens: 55,
      // Small text assets come inline (assets.inline_text_max_bytes); the image does not.
      assets: [
        {
          file: "assets/AuthProvider.tsx.template",
          description: "Base AuthProvider template",
          type: "template",
          content: "import React from 'react';\n",
        },
        {
          file: "assets/auth-config.example.ts",
          description: "Complete auth config example",
          type: "example",
          content: "export const config = {};\n",
        },
        { file: "assets/auth-flow.svg", description: "Auth flow diagram", type: "image" },
        {
          file: "assets/component-base.tsx.template",
          description: "Auth-specific base component",
          type: "template",
          content: "// auth base\n",
        },
      ],
      scripts: [
        {
          file: "scripts/scaffold-auth.sh",
          description: "Generate the auth structure",
          execution: "claude",
          args: [
            { name: "project_dir", description: "Project root", required: true },
            { name: "provider", description: "firebase, auth0 or custom", required: false, default: "custom" },
          ],
        },
        {
          file: "scripts/validate-auth-config.ts",
          description: "Check the auth config",
          execution: "server",
          args: [{ name: "config_path", description: "Path to the auth config", required: true }],
        },
      ],
      inherited_assets: [
        {
          file: "assets/hooks.md",
          description: "Hook conventions",
          type: "other",
          from: "ui/react/_index",
          content: "# Hooks\n",
        },
      ],
      inherited_scripts: [
        {
          file: "scripts/lint-component.sh",
          description: "Lint a React component",
          execution: "claude",
          args: [],
          from: "ui/react/_index",
        },
      ],
    });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(
      result.structuredContent as Record<string, unknown>,
    );
  });

  test("inherit: false → only the node's content and no inherited files", async () => {
    const { call } = await open(writeExampleTree(tempDir()));
    expect((await call("get_skill", { context: "standalone" })).structuredContent).toMatchObject({
      skill_path: "no-inherit",
      content: "Standalone only.",
      inherited_assets: [],
      inherited_scripts: [],
    });
  });

  test("ambiguity: candidates with descriptions, best first; the chosen skill_path as context selects it", async () => {
    const { call, events } = await open(writeExampleTree(tempDir()));
    const result = await call("get_skill", { context: "login jwt" });
    expect(result.structuredContent).toEqual({
      ambiguous: true,
      candidates: [
        {
          skill_path: "ui/react/auth",
          score: 0.21,
          description: "React authentication components and patterns",
          matched_keywords: ["login"],
        },
        {
          skill_path: "api/auth",
          score: 0.2,
          description: "API authentication with JWT middleware",
          matched_keywords: ["jwt"],
        },
      ],
      message: "Multiple skills match. Specify your need or pick a skill_path.",
    });
    expect((await call("get_skill", { context: "api/auth" })).structuredContent).toMatchObject({
      skill_path: "api/auth",
      score: 1,
      matched_keywords: [],
    });
    expect(events.map((e) => e.type)).toEqual(["ambiguous", "skill_served"]);
    expect(events[0]?.data).toEqual({ context: "login jwt", candidates: ["ui/react/auth", "api/auth"] });
  });

  test("no match, and the analytics events of each outcome", async () => {
    const { call, events } = await open(writeExampleTree(tempDir()));
    expect((await call("get_skill", { context: "quantum chromodynamics" })).structuredContent).toEqual({
      no_match: true,
      message: "No skill matches the given context.",
    });
    await call("get_skill", { context: "JWT middleware for the API" });
    expect(events).toEqual([
      {
        type: "no_match",
        data: { context: "quantum chromodynamics", closest_candidate: null, closest_score: null },
      },
      {
        type: "skill_served",
        data: {
          context: "JWT middleware for the API",
          skill_path: "api/auth",
          score: 0.6,
          matched_keywords: ["api", "jwt", "middleware"],
          was_ambiguous: false,
          // The documented miss fields.
          inherited_from: ["_root", "api/_index"],
          content_length_tokens: 43,
        },
      },
    ]);
  });

  test("no_match reports the closest candidate below min_score; an empty source always answers no_match", async () => {
    const dir = tempDir();
    writeNode(dir, "big.md", { keywords: ["a1x", "b2x", "c3x", "d4x", "e5x", "f6x"] });
    const { call } = await open(dir);
    expect((await call("get_skill", { context: "a1x" })).structuredContent).toEqual({
      no_match: true,
      message: "No skill matches the given context.",
      closest: { skill_path: "big", score: 0.1667, description: "About big.md", matched_keywords: ["a1x"] },
    });
    const empty = await open(tempDir());
    expect((await empty.call("get_skill", { context: "anything" })).structuredContent).toEqual({
      no_match: true,
      message: "No skill matches the given context.",
    });
  });

  test("Agent Skills are not routed by keywords (search_skills finds them); an exact name still selects one", async () => {
    const dir = tempDir();
    writeSkill(dir, "pdf-invoice-extractor", {
      description: "Extract totals from invoice PDFs",
      extra: "metadata:\n  skillhub:\n    tags: [accounting]",
    });
    writeSkill(dir, "git-workflow", {
      description: "Branching, commits and pull requests",
      body: "# Git\n\nUse branches.\n",
    });
    const { call } = await open(dir);
    for (const context of ["pdf invoice", "accounting", "open pull requests"]) {
      expect((await call("get_skill", { context })).structuredContent).toEqual({
        no_match: true,
        message: "No skill matches the given context.",
        hint: "get_skill routes by the keywords of skill-tree nodes only. 2 Agent Skills (SKILL.md) are served too: find one by topic with search_skills, or pass its exact name as the context.",
      });
    }
    expect((await call("get_skill", { context: "git-workflow" })).structuredContent).toEqual({
      skill_path: "git-workflow",
      kind: "agent-skill",
      score: 1,
      matched_keywords: [],
      content: "# Git\n\nUse branches.\n",
      content_length_tokens: 6,
      assets: [],
      scripts: [],
      inherited_assets: [],
      inherited_scripts: [],
    });
  });

  test("declared files missing on disk are left out of the answer; the node is still served", async () => {
    const root = writeExampleTree(tempDir());
    rmSync(join(root, "ui/react/auth/assets/auth-flow.svg"));
    rmSync(join(root, "ui/react/_index/assets/hooks.md"));
    const { call, hub } = await open(root);
    const result = await call("get_skill", { context: "Create a React component for the authentication" });
    const files = (key: string) => (result.structuredContent?.[key] as { file: string }[]).map((a) => a.file);
    expect(files("assets")).not.toContain("assets/auth-flow.svg");
    expect(files("inherited_assets")).toEqual([]);
    expect(hub.catalog.diagnostics.map((d) => d.code)).toEqual(["missing-file", "missing-file"]);
  });

  test("server filters: a disabled skill is never routed to; naming it exactly says SKILL_DISABLED", async () => {
    const { call } = await open(writeExampleTree(tempDir()), { SKILLHUB_ENABLED_SKILLS: "api/auth" });
    expect((await call("get_skill", { context: "react authentication component" })).structuredContent).toMatchObject({
      skill_path: "api/auth",
    });
    expect((await call("get_skill", { context: "react testing with vitest" })).structuredContent).toMatchObject({
      no_match: true,
    });
    const named = await call("get_skill", { context: "ui/react/testing" });
    expect(named.isError).toBe(true);
    expect(named.structuredContent).toEqual({
      error: {
        code: "SKILL_DISABLED",
        message:
          "Skill 'ui/react/testing' exists but is disabled on this server (SKILLHUB_ENABLED_SKILLS=api/auth). Describe the task in words, or use list_skills to find an enabled skill.",
        skill: "ui/react/testing",
      },
    });
  });

  test("a shadowed node named by its qualified id is that node, not the one served under its path", async () => {
    const first = tempDir();
    const second = tempDir();
    writeNode(first, "tools/echo.md", { keywords: ["echo"], body: "First echo.\n" });
    writeNode(second, "tools/echo.md", { keywords: ["echo"], body: "Second echo.\n" });
    const session = await connect({ flags: { "skills-dir": [first, second] }, env: { SKILLHUB_TOOLS: "all" } });
    try {
      const content = async (context: string) =>
        String((await session.call("get_skill", { context })).structuredContent?.content);
      expect(await content("tools/echo")).toContain("First echo.");
      expect(await content(`${labelOfDir(second)}:tools/echo`)).toContain("Second echo.");
      expect(await content(`${labelOfDir(first)}:tools/echo`)).toContain("First echo.");
    } finally {
      await session.close();
    }
  });

  test("an empty context is an invalid argument", async () => {
    const { call } = await open(writeExampleTree(tempDir()));
    const result = await call("get_skill", { context: "  " });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: "INVALID_ARGUMENT" } });
  });
});

describe("get_skill's inlined assets fit the result budget", () => {
  /**
   * A node declaring `count` small text assets, each a link inside its resource folder to one 10,000-byte
   * file, under a _root that declares a 100-byte one.
   */
  function manyAssets(count: number, bytes = 10_000): string {
    const dir = tempDir();
    writeNode(dir, "_root.md", { keywords: ["root"], extra: "assets: [r.txt]" });
    write(join(dir, "_root/r.txt"), "r".repeat(100));
    const files = Array.from({ length: count }, (_, i) => `f/a${i}.txt`);
    writeNode(dir, "big.md", { keywords: ["bigbomb"], extra: `assets: [${files.join(", ")}]` });
    write(join(dir, "big/f/data.txt"), "lorem ipsum ".repeat(1000).slice(0, bytes));
    for (const file of files) symlinkSync("data.txt", join(dir, "big", file));
    return dir;
  }

  type Asset = { file: string; content?: string; size_bytes?: number; [key: string]: unknown };
  const inlinedChars = (assets: Asset[]) =>
    assets.reduce(
      (n, a) => n + (a.content === undefined ? 0 : ',"content":'.length + JSON.stringify(a.content).length),
      0,
    );

  test("contents are inlined in order while they fit; the rest are listed with size_bytes and a note on how to read them", async () => {
    const { call } = await open(manyAssets(40));
    const result = await call("get_skill", { context: "bigbomb" });
    const answer = result.structuredContent as { assets: Asset[]; inherited_assets: Asset[]; assets_note?: string };
    // Two 10,000-byte texts fit the 25,000 characters a client of unknown limit is given; a third does not.
    expect(answer.assets.map((a) => [a.content?.length, a.size_bytes])).toEqual([
      [10_000, undefined],
      [10_000, undefined],
      ...Array.from({ length: 38 }, () => [undefined, 10_000]),
    ]);
    // All lists together, own assets first: the ancestor's small one comes after the room was spent.
    expect(answer.inherited_assets).toEqual([
      { file: "r.txt", description: "", type: "other", from: "_root", size_bytes: 100 },
    ]);
    expect(inlinedChars([...answer.assets, ...answer.inherited_assets])).toBeLessThanOrEqual(25_000);
    expect(answer.assets_note).toBe(
      '39 small text assets (380100 bytes) came without their content, listed with size_bytes: the assets inlined in one answer hold at most 25000 characters (server.result_budget) and 100 files. Read each with get_asset (skill_path "big", file: the asset\'s file), or read_skill_file (skill_name "big", file_path: its file), or your file reader, in the resource folder of the node declaring it.',
    );
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(answer);
    // What the note says works.
    const read = await call("read_skill_file", { skill_name: "big", file_path: "f/a39.txt" });
    expect((read.structuredContent as { content: string }).content).toBe(answer.assets[0]?.content as string);
  });

  test("server.result_budget sets the room; a node whose assets fit gets no note", async () => {
    const { call } = await open(manyAssets(40), { SKILLHUB_RESULT_BUDGET: "50000" });
    const answer = (await call("get_skill", { context: "bigbomb" })).structuredContent as { assets: Asset[] };
    expect(answer.assets.filter((a) => a.content !== undefined)).toHaveLength(4);
    expect(inlinedChars(answer.assets)).toBeLessThanOrEqual(50_000);
    const few = await open(manyAssets(2));
    const whole = (await few.call("get_skill", { context: "bigbomb" })).structuredContent as {
      assets: Asset[];
      inherited_assets: Asset[];
      assets_note?: string;
    };
    expect([...whole.assets, ...whole.inherited_assets].map((a) => [a.content?.length, a.size_bytes])).toEqual([
      [10_000, undefined],
      [10_000, undefined],
      [100, undefined],
    ]);
    expect(whole.assets_note).toBeUndefined();
  });

  test("at most 100 assets are inlined, however small", async () => {
    const { call } = await open(manyAssets(120, 10));
    const answer = (await call("get_skill", { context: "bigbomb" })).structuredContent as {
      assets: Asset[];
      assets_note?: string;
    };
    expect(answer.assets.map((a) => a.content)).toEqual([
      ...Array.from({ length: 100 }, () => "lorem ipsu"),
      ...Array.from({ length: 20 }, () => undefined),
    ]);
    expect(answer.assets.slice(100).every((a) => a.size_bytes === 10)).toBe(true);
    expect(answer.assets_note).toStartWith("21 small text assets (300 bytes) came without their content");
  });

  test("a text asset found binary when read counts among the 100 files read", async () => {
    const dir = manyAssets(0);
    const files = Array.from({ length: 105 }, (_, i) => `f/a${i}.txt`);
    writeNode(dir, "big.md", { keywords: ["bigbomb"], extra: `assets: [${files.join(", ")}]` });
    write(join(dir, "big/f/nul.txt"), "not\0text");
    write(join(dir, "big/f/data.txt"), "lorem ipsu");
    for (const [i, file] of files.entries()) symlinkSync(i < 100 ? "nul.txt" : "data.txt", join(dir, "big", file));
    const { call } = await open(dir);
    const answer = (await call("get_skill", { context: "bigbomb" })).structuredContent as {
      assets: Asset[];
      assets_note?: string;
    };
    expect(answer.assets.map((a) => [a.content, a.size_bytes])).toEqual([
      ...Array.from({ length: 100 }, () => [undefined, undefined]),
      ...Array.from({ length: 5 }, () => [undefined, 10]),
    ]);
    expect(answer.assets_note).toStartWith("6 small text assets (150 bytes) came without their content");
  });
});
