import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { connect, sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

/** tools/list of a fresh session, closed at once so its hub never starts indexing thousands of skills. */
async function listBytes(dir: string, clientName?: string) {
  const session = await connect({ flags: { "skills-dir": [dir] }, clientName });
  try {
    const { tools } = await session.client.listTools();
    return { bytes: JSON.stringify({ tools }).length, tools };
  } finally {
    await session.close();
  }
}

describe("tools/list stays small whatever the catalog size", () => {
  test("Agent Skills only: under 12 KB at 0, 50 and 2,000 skills, for any client", async () => {
    for (const count of [0, 50, 2000]) {
      const dir = tempDir();
      for (let i = 0; i < count; i++)
        writeSkill(dir, `skill-${i}`, {
          description: `Does the task number ${i} for you, with a description of realistic length.`,
        });
      for (const client of [undefined, "claude-code"]) {
        const { bytes, tools } = await listBytes(dir, client);
        expect(bytes).toBeLessThan(12_000);
        expect(tools.find((t) => t.name === "skill")?.description?.length ?? 0).toBeLessThanOrEqual(
          client ? 2000 : 6000,
        );
      }
    }
  });

  test("with a skill tree the tree tools are added and the skill catalog shrinks to make room", async () => {
    const dir = tempDir();
    for (let i = 0; i < 500; i++) writeSkill(dir, `skill-${i}`);
    write(join(dir, "team", "_root.md"), "---\nkeywords: [team]\ndescription: Team rules\n---\nBe kind.\n");
    const { bytes, tools } = await listBytes(dir);
    expect(tools.map((t) => t.name)).toContain("get_skill");
    // The tree tools' schemas (get_skill's truncation fields and inlined assets, list_skills' paging),
    // search_skills' `matched` and read_skill_file's parts: under 18 KB with the tree tools, the skill
    // catalog at 3,000 characters (the other tools alone fill the 12 KB budget).
    expect(bytes).toBeLessThan(18_000);
    expect(tools.find((t) => t.name === "skill")?.description?.length ?? 0).toBeLessThanOrEqual(3000);
  });

  test("beside the tree tools, ten skills keep their whole descriptions (not for Claude Code, which cuts at 2,048)", async () => {
    const dir = tempDir();
    const description = "Write clear release notes from merged pull requests, grouped by Added, Changed and Fixed.";
    for (let i = 0; i < 10; i++) writeSkill(dir, `skill-${i}`, { description });
    write(join(dir, "team", "_root.md"), "---\nkeywords: [team]\ndescription: Team rules\n---\nBe kind.\n");
    const catalog = async (client?: string) =>
      (await listBytes(dir, client)).tools.find((t) => t.name === "skill")?.description ?? "";
    expect((await catalog()).split(`<description>${description}</description>`)).toHaveLength(11);
    expect(await catalog("claude-code")).not.toContain(description);
  });

  test("output schemas admit the error shape; integer bounds and descriptions are left out", async () => {
    const { tools } = await listBytes(tempDir());
    const search = tools.find((t) => t.name === "search_skills");
    const json = JSON.stringify(search?.outputSchema);
    expect(json).toContain('"required":["error"]');
    expect(json).not.toContain("9007199254740991");
    // "description" remains only as a field name, never as documentation.
    expect(json).not.toContain('"description":"');
  });
});

describe("the tool list is computed once per catalog generation", () => {
  test("the same list until the catalog changes; a new catalog gets a new list", async () => {
    const dir = tempDir();
    writeSkill(dir, "alpha");
    const session = await open({ flags: { "skills-dir": [dir] } });
    await session.client.listTools();
    const first = session.hub.tools();
    expect(session.hub.tools()).toBe(first);
    write(join(dir, "team", "_root.md"), "---\nkeywords: [team]\ndescription: Team rules\n---\nBe kind.\n");
    await session.hub.refreshSkills();
    const next = session.hub.tools();
    expect(next).not.toBe(first);
    expect(next.map((t) => t.name)).toContain("get_skill");
    expect(session.hub.tools()).toBe(next);
  });
});
