import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../src/cli.ts";
import { corporaFor } from "../helpers/corpora.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);

async function validate(args: string[], cwd: string) {
  let out = "";
  let err = "";
  const home = tempDir("skillhub-home-");
  const code = await run(
    ["validate", ...args],
    { HOME: home },
    { out: (t) => void (out += t), err: (t) => void (err += t), cwd },
  );
  return { code, out, err };
}

/** One file per problem validate knows. */
function brokenRepo(): string {
  const root = tempDir();
  writeSkill(root, "good", {
    extra: "allowed-tools: Read Grep\nmodel: haiku\ncontext: fork\nuser-invocable: false\nlicense: MIT",
  });
  writeSkill(root, "Bad_Name", { name: "Bad_Name" });
  writeSkill(root, "folder", { name: "other-name" });
  writeSkill(root, "long", { description: "x".repeat(1025), extra: `compatibility: ${"y".repeat(501)}` });
  writeSkill(root, "extra", { extra: "requires:\n  mcp: [rube]", body: "line\n".repeat(501) });
  write(join(root, "nodesc/SKILL.md"), "---\nname: nodesc\n---\n");
  writeNode(root, "tree/_index.md", {
    keywords: ["tree"],
    extra: "assets:\n  - file: gone.json\n    description: Gone",
  });
  writeNode(root, "tree/deep/leaf.md", { keywords: ["leaf"] });
  writeNode(root, "tree/empty.md", { keywords: [] });
  write(join(root, "tree/notes.md"), "no frontmatter\n");
  return root;
}

describe("skillhub validate", () => {
  test("a clean folder: exit 0 and one summary line", async () => {
    const root = tempDir();
    writeSkill(root, "git");
    writeNode(root, "_root.md");
    const result = await validate([], root);
    expect(result).toEqual({
      code: 0,
      out: "Checked 1 Agent Skill and 1 tree node in 1 folder: no problems.\n",
      err: "",
    });
  });

  test("a tree checked from the folder above it says where its _root.md is a root", async () => {
    const root = tempDir();
    writeNode(root, "skills/_root.md");
    writeNode(root, "skills/backend/_index.md");
    const above = await validate([], root);
    expect(above.out).toContain(
      "parent chain: skills/_index.md missing, so it has no parent. (A _root.md is a root only at the top of the skills folder: validate skills to check this tree as served from there.)",
    );
    expect(await validate([join(root, "skills")], root)).toMatchObject({
      code: 0,
      out: expect.stringContaining("no problems"),
    });
  });

  test("a folder without skills fails, saying no skills were found and claiming no pass", async () => {
    const root = tempDir();
    const empty = join(root, "empty");
    mkdirSync(empty);
    expect(await validate(["empty"], root)).toEqual({
      code: 1,
      out: `Checked 1 folder: no skills found in ${empty} (no SKILL.md and no tree node); is this the right folder?\n`,
      err: "",
    });
    const json = await validate(["--json", "empty"], root);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).summary).toMatchObject({ agent_skills: 0, tree_nodes: 0, errors: 0 });
    expect(json.err).toBe(
      `skillhub validate: no skills found in ${empty} (no SKILL.md and no tree node); is this the right folder?\n`,
    );
    // A missing folder is a usage error, as before.
    expect(await validate(["gone"], root)).toEqual({
      code: 2,
      out: "",
      err: "skillhub validate: no such folder: gone\n",
    });
  });

  test("human output grouped by file, errors first; exit 1", async () => {
    const root = brokenRepo();
    const result = await validate(["."], root);
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      [
        "Bad_Name/SKILL.md",
        "  error   invalid-name           name 'Bad_Name' is not 1-64 lower-case letters, digits and single hyphens (write 'bad-name'); SkillHub serves it as written.",
        "",
        "extra/SKILL.md",
        "  warning body-too-long          body has 502 lines; keep SKILL.md under 500 and move detail to files.",
        "  warning unknown-key            unknown top-level key 'requires'; the specification keeps extra data under metadata (metadata.requires).",
        "",
        "folder/SKILL.md",
        "  error   name-mismatch          name 'other-name' differs from its folder 'folder' (set `name: folder`, or rename the folder); SkillHub serves it as 'other-name'.",
        "",
        "long/SKILL.md",
        "  error   compatibility-too-long compatibility is 501 characters; the limit is 500.",
        "  error   description-too-long   description is 1025 characters; the limit is 1024.",
        "",
        "nodesc/SKILL.md",
        "  error   missing-description    frontmatter has no description; agents choose skills by it. Skill not served.",
        "",
        "tree/_index.md",
        "  error   missing-file           declares asset 'gone.json' but the resource folder tree/_index/ does not exist; served without it.",
        "",
        "tree/deep/leaf.md",
        "  warning missing-parent         parent chain: tree/deep/_index.md missing, so it inherits from tree/_index.",
        "",
        "tree/empty.md",
        "  error   missing-keywords       keywords must be a non-empty list of words. Node not served.",
        "",
        "tree/notes.md",
        "  warning no-frontmatter         no YAML frontmatter (keywords and description); not a tree node, skipped.",
        "",
        "Checked 6 Agent Skills and 2 tree nodes in 1 folder: 1 without a problem, 7 errors in 6 files, 4 warnings in 3 files.",
        "",
      ].join("\n"),
    );
  });

  test("--json: stable summary and files for CI", async () => {
    const root = brokenRepo();
    const result = await validate([root, "--json"], tempDir());
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out);
    expect(report.dirs).toEqual([root]);
    expect(report.summary).toEqual({
      agent_skills: 6,
      tree_nodes: 2,
      without_problems: 1,
      errors: 7,
      warnings: 4,
      files_with_errors: 6,
      files_with_warnings: 3,
      by_code: {
        "body-too-long": 1,
        "compatibility-too-long": 1,
        "description-too-long": 1,
        "invalid-name": 1,
        "missing-description": 1,
        "missing-file": 1,
        "missing-keywords": 1,
        "missing-parent": 1,
        "name-mismatch": 1,
        "no-frontmatter": 1,
        "unknown-key": 1,
      },
    });
    expect(report.files[0]).toEqual({
      file: join(root, "Bad_Name/SKILL.md"),
      diagnostics: [
        {
          severity: "error",
          code: "invalid-name",
          message:
            "name 'Bad_Name' is not 1-64 lower-case letters, digits and single hyphens (write 'bad-name'); SkillHub serves it as written.",
        },
      ],
    });
  });

  test("links in SKILL.md, and in the files it links, to no file or outside the skill: warnings", async () => {
    const root = tempDir();
    writeSkill(root, "mcp-builder", {
      body: [
        "Read [the guide](./reference/node_mcp_server.md), [evaluation](reference/evaluation.md#setup)",
        "and ![the flow](images/flow%20chart.png); the shared [schema](../_shared/ooxml.md).",
        "[site](https://example.com/x.md) [mail](mailto:a@b.c) [top](#top) [root](/etc/x.md) `[code](code.md)`",
        "```",
        "[fenced](fenced.md)",
        "```",
        "[gone]: ./gone.md",
        "Again: [the guide](reference/node_mcp_server.md).",
      ].join("\n"),
    });
    write(
      join(root, "mcp-builder", "reference", "evaluation.md"),
      "[back](../SKILL.md) [next](next.md) [up](../../x.md)\n",
    );
    write(join(root, "mcp-builder", "images", "flow chart.png"), "png");
    write(join(root, "mcp-builder", "reference", "deeper.md"), "[not followed](nowhere.md)\n");
    write(join(root, "_shared", "ooxml.md"), "# OOXML\n");
    const result = await validate([root], root);
    expect(result.code).toBe(0);
    const outside =
      "outside the skill's folder: a remote client cannot read it by this link; move the file into the skill's folder.";
    expect(result.out).toBe(
      [
        "mcp-builder/SKILL.md",
        "  warning broken-link            line 6 links to './reference/node_mcp_server.md', which does not exist.",
        "  warning broken-link            line 12 links to './gone.md', which does not exist.",
        `  warning link-outside           line 7 links to '../_shared/ooxml.md', ${outside}`,
        "",
        "mcp-builder/reference/evaluation.md",
        "  warning broken-link            line 1 links to 'next.md', which does not exist.",
        `  warning link-outside           line 1 links to '../../x.md', ${outside}`,
        "",
        "Checked 1 Agent Skill and 0 tree nodes in 1 folder: 0 without a problem, 0 errors in 0 files, 5 warnings in 2 files.",
        "Most frequent: broken-link (3), link-outside (2).",
        "",
      ].join("\n"),
    );
  });

  test("warnings alone exit 0; a missing folder is a usage error (exit 2); a SKILL.md path names its folder", async () => {
    const root = tempDir();
    writeSkill(root, "extra", { extra: "version: 1.0.0" });
    expect((await validate([root], root)).code).toBe(0);
    expect(await validate(["nowhere"], root)).toEqual({
      code: 2,
      out: "",
      err: "skillhub validate: no such folder: nowhere\n",
    });
    const single = await validate([join(root, "extra/SKILL.md")], root);
    expect(single.out).toEndWith(
      "Checked 1 Agent Skill and 0 tree nodes in 1 folder: 0 without a problem, 0 errors in 0 files, 1 warning in 1 file.\n",
    );
  });
});

const corpora = corporaFor("skillhub validate's tests over the real corpora");
describe.skipIf(!corpora)("skillhub validate over the real corpora", () => {
  test("the summary names the problems that repeat most, which the file blocks bury", async () => {
    const result = await validate([corpora as string], tempDir());
    expect(result.out).toEndWith(
      "Most frequent: unknown-key (843), invalid-name (92), broken-link (81), name-mismatch (66), body-too-long (47).\n",
    );
  });

  test("the counts of ../shared/corpora/README.md", async () => {
    const result = await validate([corpora as string, "--json"], tempDir());
    expect(result.code).toBe(1);
    const { summary } = JSON.parse(result.out);
    expect(summary.agent_skills).toBe(1028);
    expect(summary.tree_nodes).toBe(0);
    expect(summary.by_code).toEqual({
      // 832 `requires` (Composio), 10 `category` (Composio), 1 `author` (K-Dense).
      "unknown-key": 843,
      // Bodies over 500 lines (counted independently with PyYAML).
      "body-too-long": 47,
      // anthropics claude-api (1068) and K-Dense database-lookup (1929).
      "description-too-long": 2,
      // 92 Composio names break ^[a-z0-9]+(-[a-z0-9]+)*$.
      "invalid-name": 92,
      // 65 in Composio plus anthropics template/ (name template-skill).
      "name-mismatch": 66,
      // skill-creator in three corpora, eight more names in two: the later copies.
      "duplicate-name": 10,
      // Links to the skills' reference files, which the corpora did not copy (SKILL.md files only).
      "broken-link": 81,
      // superpowers: links to two skills beside the linking one (../requesting-code-review/…, ../using-superpowers/…).
      "link-outside": 3,
    });
    expect(summary.errors).toBe(2 + 92 + 66);
  });
});
