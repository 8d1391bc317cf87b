import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../helpers/git.ts";
import { recordingSessions, sessions, textOf } from "../helpers/hub.ts";
import { writeScriptTree } from "../helpers/scripts.ts";
import { writeExampleTree, writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const open = recordingSessions();
const openPlain = sessions();

/** Every tree-family answer's text is JSON.stringify(result); errors keep isError and their code. */
function expectJsonText(result: CallToolResult, isError = false): Record<string, unknown> {
  expect(Boolean(result.isError)).toBe(isError);
  expect(result.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }]);
  return result.structuredContent as Record<string, unknown>;
}

describe("JSON.stringify(result) in the text of every tree-family tool", () => {
  test("get_skill, get_asset, list_skills, run_script, report_usage, refresh_skills; answers and errors", async () => {
    const root = writeExampleTree(tempDir());
    writeScriptTree(join(root, "more"));
    const { call } = await open(root, { SKILLHUB_ANALYTICS_FILE: join(tempDir(), "events.jsonl") });
    expectJsonText(await call("get_skill", { context: "Create a React component for the authentication" }));
    expectJsonText(await call("get_skill", { context: "quantum chromodynamics" }));
    expectJsonText(await call("get_skill", { context: "login jwt" }));
    expect(expectJsonText(await call("get_skill", { context: "" }), true)).toMatchObject({
      error: { code: "INVALID_ARGUMENT" },
    });
    expectJsonText(await call("get_asset", { skill_path: "ui/react/auth", file: "assets/AuthProvider.tsx.template" }));
    expect(expectJsonText(await call("get_asset", { skill_path: "ui/react/auth", file: "../x" }), true)).toMatchObject({
      error: { code: "PATH_OUTSIDE_SKILL" },
    });
    expect(expectJsonText(await call("get_asset", { skill_path: "nope", file: "x" }), true)).toMatchObject({
      error: { code: "SKILL_NOT_FOUND" },
    });
    expectJsonText(await call("list_skills", {}));
    expectJsonText(await call("list_skills", { flat: true }));
    expect(expectJsonText(await call("list_skills", { path: "nowhere" }), true)).toMatchObject({
      error: { code: "SKILL_NOT_FOUND" },
    });
    // run_script: `args` may be left out for a script that takes none.
    const ran = expectJsonText(await call("run_script", { skill_path: "more/_root", file: "scripts/whoami.sh" }));
    expect(ran).toMatchObject({ success: true, exit_code: 0, script: "scripts/whoami.sh" });
    expect(
      expectJsonText(await call("run_script", { skill_path: "ui/react/auth", file: "scripts/scaffold-auth.sh" }), true),
    ).toMatchObject({ error: { code: "SCRIPT_NOT_SERVER" } });
    expect(expectJsonText(await call("report_usage", { skill_path: "ui/react/auth", useful: true }))).toEqual({
      recorded: true,
      message: "Feedback recorded for ui/react/auth",
    });
    expect(expectJsonText(await call("report_usage", { skill_path: "no/such", useful: true }), true)).toMatchObject({
      error: { code: "SKILL_NOT_FOUND" },
    });
    expect(expectJsonText(await call("refresh_skills"))).toMatchObject({ success: true, mode: "local" });
  });

  test("repositories that hold Agent Skills only do not offer the tree tools, which could find nothing there", async () => {
    const remote = remoteRepo("team-skills", { "skills/sql-style/SKILL.md": skillText("sql-style") });
    const { client } = await openPlain({
      env: { SKILLS_REPO: remote.url },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["skill", "search_skills", "load_skill", "list_skills"]));
    expect(names).not.toContain("get_skill");
    expect(names).not.toContain("get_asset");
  });

  test("a content repository configured but empty offers the tree tools, which answer no_match", async () => {
    const remote = remoteRepo("empty-skills", { "README.md": "# Nothing yet\n" });
    const { client, call } = await openPlain({
      env: { SKILLS_REPO: remote.url },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["get_skill", "get_asset", "list_skills", "refresh_skills"]));
    expect(expectJsonText(await call("get_skill", { context: "create a react component" }))).toEqual({
      no_match: true,
      message: "No skill matches the given context.",
    });
    expect(expectJsonText(await call("list_skills", {}))).toMatchObject({
      tree: { children: [] },
      message: "There are no skills here yet. skillhub doctor shows which folders are read.",
    });
  });
});

describe("content over the token limit is truncated, with a warning", () => {
  /** A tree whose root is ~47k tokens and whose leaf is small. */
  function bigTree(): string {
    const dir = tempDir();
    const line = `${"Global rule text. ".repeat(10).trim()}\n`;
    writeNode(dir, "_root.md", { keywords: ["global"], body: line.repeat(1050) });
    writeNode(dir, "api/_index.md", { keywords: ["api"], body: "API rules.\n" });
    writeNode(dir, "api/auth.md", { keywords: ["auth", "jwt"], body: "Auth rules: use JWT.\n" });
    return dir;
  }

  test("8,000 estimated tokens by default: the node's own rules are kept, the root is cut, the result says so", async () => {
    const { call, events } = await open(bigTree());
    const served = expectJsonText(await call("get_skill", { context: "jwt auth" }));
    const content = served.content as string;
    expect(served.truncated).toBe(true);
    expect(Math.ceil(content.length / 4)).toBe(served.content_length_tokens as number);
    expect(served.content_length_tokens as number).toBeLessThanOrEqual(8_000 + 100);
    expect(content).toEndWith("=== API > AUTH (from api/auth.md) ===\n\nAuth rules: use JWT.");
    expect(content).toContain("=== API (from api/_index.md) ===\n\nAPI rules.");
    expect(content).toContain("characters of _root.md cut: the content is over the size limit");
    expect(served.warning).toMatch(
      /^Content truncated: about \d+ tokens \(estimated as characters \/ 4\) is over the limit of 8000 \(content\.max_tokens\)\. The skill's own rules are kept first, then its nearest parents; _root\.md cut to \d+ of \d+ characters\.$/,
    );
    expect(events.at(-1)).toMatchObject({
      type: "skill_served",
      data: {
        skill_path: "api/auth",
        inherited_from: ["_root", "api/_index"],
        content_length_tokens: served.content_length_tokens,
      },
    });
  });

  test("content.max_tokens in a content folder's config.yaml sets the limit; 0 turns truncation off", async () => {
    const dir = bigTree();
    write(join(dir, "config.yaml"), "content:\n  max_tokens: 0\n");
    const { run } = await import("../../src/cli.ts");
    let out = "";
    const home = tempDir();
    await run(
      ["doctor", "--json", "--skills-dir", dir],
      { HOME: home },
      { out: (t) => void (out += t), err: () => {}, cwd: home },
    );
    expect(JSON.parse(out).config_warnings).toEqual([]);
    const { loadConfig } = await import("../../src/config/load.ts");
    const loaded = loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [join(dir, "config.yaml")] });
    expect(loaded.config.content.max_tokens).toBe(0);
    const { call, hub } = await open(dir);
    hub.config.content.max_tokens = 0;
    const whole = expectJsonText(await call("get_skill", { context: "jwt auth" }));
    expect(whole.truncated).toBeUndefined();
    expect(whole.content_length_tokens as number).toBeGreaterThan(40_000);
    hub.config.content.max_tokens = 100;
    const small = expectJsonText(await call("get_skill", { context: "jwt auth" }));
    expect(small.content_length_tokens as number).toBeLessThanOrEqual(100);
    expect(small.content as string).toEndWith("Auth rules: use JWT.");
    expect(small.warning).toContain("_root.md cut to");
  });
});

describe("assets.inline_text_max_bytes", () => {
  test("text assets up to the limit come with their content; larger, binary or 0 → fetch with get_asset", async () => {
    const dir = tempDir();
    writeNode(dir, "ui.md", {
      keywords: ["ui"],
      extra: [
        "assets:",
        "  - file: small.txt",
        "    description: Small",
        "  - file: big.txt",
        "    description: Big",
        "  - file: logo.png",
        "    description: Logo",
        "    type: image",
      ].join("\n"),
    });
    write(join(dir, "ui/small.txt"), "x".repeat(100));
    write(join(dir, "ui/big.txt"), "y".repeat(10_241));
    write(join(dir, "ui/logo.png"), new Uint8Array([137, 80, 78, 71]));
    const { call, hub } = await open(dir);
    const assets = async () =>
      (expectJsonText(await call("get_skill", { context: "ui" })).assets as { file: string; content?: string }[]).map(
        (a) => [a.file, a.content?.length],
      );
    expect(await assets()).toEqual([
      ["small.txt", 100],
      ["big.txt", undefined],
      ["logo.png", undefined],
    ]);
    hub.config.assets.inline_text_max_bytes = 20_000;
    expect(await assets()).toEqual([
      ["small.txt", 100],
      ["big.txt", 10_241],
      ["logo.png", undefined],
    ]);
    hub.config.assets.inline_text_max_bytes = 0;
    expect(await assets()).toEqual([
      ["small.txt", undefined],
      ["big.txt", undefined],
      ["logo.png", undefined],
    ]);
  });
});

describe("analytics events carry the documented fields", () => {
  test("no_match: closest_candidate and closest_score", async () => {
    const dir = tempDir();
    writeNode(dir, "big.md", { keywords: ["a1x", "b2x", "c3x", "d4x", "e5x", "f6x"] });
    writeSkill(dir, "git", { description: "Git" });
    const { call, events } = await open(dir);
    const answer = expectJsonText(await call("get_skill", { context: "a1x" }));
    expect(answer.hint).toContain("search_skills");
    expect(events).toEqual([
      { type: "no_match", data: { context: "a1x", closest_candidate: "big", closest_score: 0.1667 } },
    ]);
  });
});

describe("output schemas avoid null types (Inspector --strict)", () => {
  test("no tool's input or output schema has a 'null' type", async () => {
    const { client } = await openPlain({
      flags: { "skills-dir": [writeExampleTree(tempDir())] },
      env: { SKILLHUB_TOOLS: "all" },
    });
    for (const tool of (await client.listTools()).tools) {
      const json = JSON.stringify([tool.inputSchema, tool.outputSchema ?? {}]);
      expect({ tool: tool.name, nullType: json.includes('"null"') }).toEqual({ tool: tool.name, nullType: false });
    }
  });
});

describe("frontmatter: a top-level category counts as the category", () => {
  test("list_skills and search see it; metadata.skillhub.category still wins", async () => {
    const dir = tempDir();
    writeSkill(dir, "crm", { description: "CRM automation", extra: "category: Sales" });
    writeSkill(dir, "both", {
      description: "Both",
      extra: "category: Ignored\nmetadata:\n  skillhub:\n    category: chosen",
    });
    const { call } = await openPlain({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_TOOLS: "all" } });
    const skills = (await call("list_skills", { flat: true })).structuredContent?.skills as {
      name: string;
      category?: string;
    }[];
    expect(skills.map((s) => [s.name, s.category])).toEqual([
      ["both", "chosen"],
      ["crm", "sales"],
    ]);
    const filtered = await openPlain({
      flags: { "skills-dir": [dir] },
      env: { SKILLHUB_TOOLS: "all", SKILLHUB_ENABLED_CATEGORIES: "sales" },
    });
    expect(textOf(await filtered.call("skill", { name: "crm" }))).toStartWith("Loading: crm\n");
  });
});
