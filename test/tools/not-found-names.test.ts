import { afterAll, describe, expect, test } from "bun:test";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { sessions, textOf } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const open = sessions();

/** An Agent Skill `git` and a tree node `deploy` with a server script: every tool that takes a skill's name has one to miss. */
async function everyTool() {
  const dir = tempDir("skillhub-missing-");
  writeSkill(dir, "git", { description: "Git workflow" });
  writeNode(dir, "_root.md", { keywords: ["root"] });
  writeNode(dir, "deploy.md", { keywords: ["deploy"], extra: "scripts:\n  - file: run.sh\n    execution: server" });
  write(`${dir}/deploy/run.sh`, "echo hi\n");
  return open({
    flags: { "skills-dir": [dir] },
    env: {
      SKILLHUB_TOOLS: "all",
      SKILLHUB_ENABLE_COMMANDS: "1",
      ALLOWED_COMMANDS: "cat",
      SKILLHUB_ANALYTICS_FILE: `${dir}.jsonl`,
    },
  });
}

/** Each tool that takes a skill's name (or a tree path), called with `name`. */
const BY_NAME: [string, (name: string) => Record<string, unknown>][] = [
  ["skill", (name) => ({ name })],
  ["load_skill", (skill_name) => ({ skill_name })],
  ["read_skill_file", (skill_name) => ({ skill_name, file_path: "SKILL.md" })],
  ["run_skill_command", (skill_name) => ({ skill_name, command: "cat", args: [] })],
  ["get_asset", (skill_path) => ({ skill_path, file: "run.sh" })],
  ["run_script", (skill_path) => ({ skill_path, file: "run.sh" })],
  ["report_usage", (skill_path) => ({ skill_path, useful: true })],
  ["list_skills", (path) => ({ path })],
];

/** How often `part` occurs in `text`. */
const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("not-found answers name what was asked once", () => {
  test.each(BY_NAME)("%s: a 300-character name is said once, cut to 80 characters and '…'", async (tool, args) => {
    const { call } = await everyTool();
    const long = `${"n".repeat(79)}${"x".repeat(221)}`;
    const result = await call(tool, args(long));
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.error?.code).toBe("SKILL_NOT_FOUND");
    const text = textOf(result);
    // list_skills answers its structured content as JSON text, its `path` detail included: the sentence names it once.
    const said = tool === "list_skills" ? String(result.structuredContent?.error?.message) : text;
    expect(occurrences(said, `${"n".repeat(79)}x…`)).toBe(1);
    expect(text).not.toContain("xx");
    expect(text.length).toBeLessThan(1000);
  });

  test.each(BY_NAME)("%s: controls and direction marks are written as \\u escapes", async (tool, args) => {
    const { call } = await everyTool();
    const result = await call(tool, args("\u202egit\u0000x"));
    expect(result.structuredContent?.error?.message).toContain("'\\u202egit\\u0000x'");
    expect(textOf(result)).not.toContain("\u202e");
    expect(textOf(result)).not.toContain("\u0000");
  });

  test.each([
    ["load_skill", { skill_name: "gti" }],
    ["read_skill_file", { skill_name: "gti", file_path: "SKILL.md" }],
    ["run_skill_command", { skill_name: "gti", command: "cat" }],
  ] as const)("%s: a misspelt name still gets 'did you mean'", async (tool, args) => {
    const { call } = await everyTool();
    const result = await call(tool, args);
    expect(textOf(result)).toBe(
      "SKILL_NOT_FOUND: No skill named 'gti'. Did you mean 'git'? Use search_skills to find skills by topic.",
    );
    expect(result.structuredContent?.error?.suggestions).toEqual(["git"]);
  });

  test("skill: the seed's text, the long name said once, close matches and the listing kept", async () => {
    const { call } = await everyTool();
    const long = "g".repeat(200);
    const result = await call("skill", { name: long });
    expect(textOf(result)).toStartWith(
      `Skill '${"g".repeat(80)}…' not found.\n\nAvailable skills:\n- git: Git workflow\n`,
    );
    expect(result.structuredContent).toEqual({
      error: { code: "SKILL_NOT_FOUND", message: `Skill '${"g".repeat(80)}…' not found.`, suggestions: [] },
    });
    expect(textOf(await call("skill", { name: "gti" }))).toStartWith(
      "Skill 'gti' not found.\n\nAvailable skills:\n- git: Git workflow\n",
    );
  });

  test("list_skills: an unknown path and a bad cursor are cut, in the sentence and the details alike", async () => {
    const { call } = await everyTool();
    const missing = await call("list_skills", { path: "nowhere" });
    expect(missing.structuredContent).toEqual({
      error: {
        code: "SKILL_NOT_FOUND",
        message:
          "No node or folder 'nowhere' in the skill tree. Top level: _root, deploy. Leave path out for the whole tree.",
        path: "nowhere",
      },
    });
    const long = await call("list_skills", { path: "p".repeat(100_000) });
    expect(long.structuredContent?.error?.path).toBe(`${"p".repeat(80)}…`);
    expect(textOf(long).length).toBeLessThan(1_000);
    const cursor = await call("list_skills", { cursor: "c".repeat(100_000) });
    expect(cursor.structuredContent?.error?.code).toBe("INVALID_ARGUMENT");
    expect(cursor.structuredContent?.error?.cursor).toBe(`${"c".repeat(80)}…`);
    expect(textOf(cursor).length).toBeLessThan(1_000);
  });

  test("file paths and commands a caller sends are cut in messages and details alike", async () => {
    const { call } = await everyTool();
    const long = "p".repeat(10_000);
    for (const [tool, args] of [
      ["read_skill_file", { skill_name: "git", file_path: long }],
      ["read_skill_file", { skill_name: "git", file_path: `/${long}` }],
      ["get_asset", { skill_path: "deploy", file: long }],
      ["run_script", { skill_path: "deploy", file: long }],
      ["run_skill_command", { skill_name: "git", command: long }],
      ["run_skill_command", { skill_name: "git", command: `/${long}` }],
    ] as const) {
      const result = await call(tool, args);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result).length).toBeLessThan(2000);
    }
    const cwd = `/${"d".repeat(3000)}\n`;
    const where = (await call("run_script", { skill_path: "deploy", file: "run.sh", cwd })).structuredContent?.error;
    expect(where?.message).toStartWith("cwd '…' does not exist.");
    expect(where?.cwd).toBe("…");
    // A missing file's name as the reader says it: 3,000 characters cut, a direction mark and a newline escaped.
    for (const [tool, args, shown] of [
      [
        "read_skill_file",
        { skill_name: "git", file_path: "q".repeat(3000) },
        `'${"q".repeat(80)}…' cannot be read (ENAMETOOLONG)`,
      ],
      ["read_skill_file", { skill_name: "git", file_path: "\u202eref\n.md" }, "'\\u202eref\\u000a.md' does not exist"],
      ["get_asset", { skill_path: "git", file: "q".repeat(3000) }, `'${"q".repeat(80)}…'`],
      ["get_asset", { skill_path: "git", file: "\u202eref.md" }, "'\\u202eref.md'"],
    ] as const) {
      const message = (await call(tool, args)).structuredContent?.error?.message as string;
      expect(message).toContain(shown);
      expect(message).not.toContain("\u202e");
      expect(message.length).toBeLessThan(600);
    }
  });
});

describe("INVALID_ARGUMENT answers quote what was sent short", () => {
  test("an unknown field's name, a record's key in a path, and a hundred unknown fields", async () => {
    const { call } = await everyTool();
    const long = "k".repeat(1_048_576);
    const unknown = await call("skill", { name: "git", [long]: 1 });
    expect(unknown.structuredContent?.error?.code).toBe("INVALID_ARGUMENT");
    expect(unknown.structuredContent?.error?.issues).toEqual([`arguments: Unrecognized key: "${"k".repeat(80)}…"`]);
    expect(JSON.stringify(unknown).length).toBeLessThan(2000);
    const keyed = await call("run_script", { skill_path: "deploy", file: "run.sh", args: { [long]: 5 } });
    expect(keyed.structuredContent?.error?.issues).toEqual([
      `args.${"k".repeat(80)}…: Invalid input: expected string, received number`,
    ]);
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`extra${i}`, 1]));
    const hundred = await call("run_skill_command", { skill_name: "git", command: "cat", ...many });
    expect(hundred.structuredContent?.error?.issues).toEqual([
      'arguments: Unrecognized keys: "extra0", "extra1", "extra2", "extra3", "extra4" and 95 more',
    ]);
  });
});

describe("names in either Unicode normal form", () => {
  test("a composed name finds a skill spelt decomposed and the other way round; a zero-width space is shown escaped", async () => {
    const dir = tempDir("skillhub-nfc-");
    writeSkill(dir, "cafe", { name: "caf\u00e9", description: "Composed" });
    writeSkill(dir, "the", { name: "the\u0301", description: "Decomposed" });
    const { call } = await open({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_TOOLS: "all" } });
    expect((await call("load_skill", { skill_name: "cafe\u0301" })).structuredContent?.name).toBe("caf\u00e9");
    expect((await call("load_skill", { skill_name: "th\u00e9" })).structuredContent?.name).toBe("the\u0301");
    expect(textOf(await call("skill", { name: "CAFE\u0301" }))).toStartWith("Loading: caf\u00e9\n");
    expect(textOf(await call("load_skill", { skill_name: "\u200bcaf\u00e9" }))).toBe(
      "SKILL_NOT_FOUND: No skill named '\\u200bcaf\u00e9'. Did you mean 'caf\u00e9'? Use search_skills to find skills by topic.",
    );
  });

  test("skill and load_skill find a skill by the other form of its name from the catalog, with no miss and so no rescan", async () => {
    const dir = tempDir("skillhub-nfc-");
    writeSkill(dir, "cafe", { name: "caf\u00e9", description: "Composed" });
    writeSkill(dir, "the", { name: "the\u0301", description: "Decomposed" });
    const { hub, call } = await open({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_TOOLS: "all" } });
    // A miss asks the refresher for a rescan (at once, or one a second): none may reach it.
    let misses = 0;
    const refreshForMiss = hub.refresher.refreshForMiss.bind(hub.refresher);
    hub.refresher.refreshForMiss = (minIntervalMs) => {
      misses++;
      return refreshForMiss(minIntervalMs);
    };
    expect((await call("load_skill", { skill_name: "cafe\u0301" })).structuredContent?.name).toBe("caf\u00e9");
    expect(textOf(await call("skill", { name: "cafe\u0301" }))).toStartWith("Loading: caf\u00e9\n");
    expect(textOf(await call("skill", { name: "th\u00e9" }))).toStartWith("Loading: the\u0301\n");
    expect(misses).toBe(0);
  });

  test("SKILLHUB_ENABLED_SKILLS enables a skill named in either form of its name", async () => {
    const dir = tempDir("skillhub-nfc-");
    writeSkill(dir, "cafe", { name: "cafe\u0301", description: "Decomposed" });
    writeSkill(dir, "the", { name: "th\u00e9", description: "Composed" });
    writeSkill(dir, "git", { description: "Not enabled" });
    const { call } = await open({
      flags: { "skills-dir": [dir] },
      env: { SKILLHUB_TOOLS: "all", SKILLHUB_ENABLED_SKILLS: "caf\u00e9,the\u0301" },
    });
    expect((await call("load_skill", { skill_name: "cafe\u0301" })).structuredContent?.name).toBe("cafe\u0301");
    expect((await call("load_skill", { skill_name: "th\u00e9" })).structuredContent?.name).toBe("th\u00e9");
    expect((await call("load_skill", { skill_name: "git" })).structuredContent?.error).toMatchObject({
      code: "SKILL_DISABLED",
    });
  });
});

describe("skills.list and skills.search quote the query short", () => {
  test("a 1 MB filter is cut to 80 characters in the sentence; a NUL is shown escaped", async () => {
    const dir = tempDir("skillhub-sk-");
    writeSkill(dir, "git", { description: "Git workflow" });
    const { call } = await open({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_TOOLS: "sk" } });
    const listed = await call("skills.list", { query: "q".repeat(1_048_576) });
    expect(textOf(listed)).toBe(`0 skills matched "${"q".repeat(80)}…": none.`);
    expect(textOf(await call("skills.search", { query: "git\u0000" }))).toStartWith(
      '0 skills contain every token of "git\\u0000".\n',
    );
  });
});

describe("a folder whose SKILL.md has an error", () => {
  test("each tool that takes a name says why that folder serves no skill, and the others are still served", async () => {
    const dir = tempDir("skillhub-broken-");
    writeSkill(dir, "git", { description: "Git workflow" });
    write(`${dir}/no-desc/SKILL.md`, "---\nname: no-desc\n---\n# No description\n");
    write(`${dir}/bad-yaml/SKILL.md`, "---\nname: bad-yaml\ndescription: [unclosed\n---\n# Bad\n");
    const { call } = await open({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_TOOLS: "all" } });
    const fix = "Fix the file; `skillhub doctor` lists every problem.";
    const asked = await call("load_skill", { skill_name: "No-Desc" });
    expect(asked.structuredContent?.error).toMatchObject({ code: "SKILL_NOT_FOUND", problem: "missing-description" });
    expect(textOf(asked)).toBe(
      "SKILL_NOT_FOUND: No skill named 'No-Desc'. A folder of that name holds a SKILL.md with an error " +
        `(missing-description): frontmatter has no description; agents choose skills by it. Skill not served. ${fix} ` +
        "Use search_skills to find skills by topic.",
    );
    const skill = await call("skill", { name: "bad-yaml" });
    expect(skill.structuredContent?.error).toMatchObject({ code: "SKILL_NOT_FOUND", problem: "yaml-error" });
    expect(textOf(skill)).toStartWith(
      "Skill 'bad-yaml' not found. A folder of that name holds a SKILL.md with an error",
    );
    expect(textOf(skill)).toContain(`${fix}\n\nAvailable skills:\n- git: Git workflow\n`);
    for (const [tool, args] of [
      ["read_skill_file", { skill_name: "no-desc", file_path: "SKILL.md" }],
      ["report_usage", { skill_path: "no-desc", useful: false }],
    ] as const)
      expect((await call(tool, args)).structuredContent?.error?.problem).toBe("missing-description");
    // A name no folder holds, and a served skill, are answered as before.
    expect((await call("load_skill", { skill_name: "nothing" })).structuredContent?.error).toEqual({
      code: "SKILL_NOT_FOUND",
      message: "No skill named 'nothing'. Use search_skills to find skills by topic.",
      suggestions: [],
    });
    expect((await call("load_skill", { skill_name: "git" })).structuredContent?.name).toBe("git");
  });
  test("on a server whose filter chooses the skills, a broken folder is not named", async () => {
    const dir = tempDir("skillhub-broken-");
    writeSkill(dir, "git", { description: "Git workflow" });
    write(`${dir}/no-desc/SKILL.md`, "---\nname: no-desc\n---\n# No description\n");
    const { call } = await open({
      flags: { "skills-dir": [dir] },
      env: { SKILLHUB_TOOLS: "all", SKILLHUB_ENABLED_SKILLS: "git" },
    });
    expect((await call("load_skill", { skill_name: "no-desc" })).structuredContent?.error).toEqual({
      code: "SKILL_NOT_FOUND",
      message: "No skill named 'no-desc'. Use search_skills to find skills by topic.",
      suggestions: [],
    });
  });
});
