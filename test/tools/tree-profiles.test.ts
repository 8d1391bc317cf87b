import { afterAll, describe, expect, test } from "bun:test";
import { PROFILES, TOOLS } from "../../src/tools/index.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { connect, eventually } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

async function open(dir: string, tools?: string, env: Record<string, string> = {}) {
  const session = await connect({ flags: { "skills-dir": [dir], ...(tools ? { tools } : {}) }, env });
  closers.push(session.close);
  return session;
}

const names = async (session: Awaited<ReturnType<typeof open>>) =>
  (await session.client.listTools()).tools.map((t) => t.name);

describe("tool profiles with skill trees", () => {
  test("tree: the six tree tools, those this build has", async () => {
    const session = await open(tempDir(), "tree");
    expect(await names(session)).toEqual(PROFILES.tree?.filter((n) => TOOLS.has(n)) ?? []);
    expect(await names(session)).toEqual(expect.arrayContaining(["get_skill", "list_skills", "get_asset"]));
  });

  test("auto: get_skill and get_asset appear once the catalog holds a tree node", async () => {
    const dir = tempDir();
    writeSkill(dir, "git");
    const session = await open(dir);
    const before = await names(session);
    expect(before).toContain("list_skills");
    expect(before).not.toContain("get_skill");
    expect(before).not.toContain("get_asset");
    writeNode(dir, "_root.md", { keywords: ["global"] });
    await session.hub.refresher.rescan("test");
    expect(await names(session)).toEqual(expect.arrayContaining(["get_skill", "get_asset", "list_skills"]));
    await eventually(() => session.notifications.includes("notifications/tools/list_changed"));
  });

  test("auto: get_skill and get_asset only when the server filters leave a tree node enabled", async () => {
    const dir = tempDir();
    writeSkill(dir, "git", { extra: "metadata:\n  skillhub:\n    category: vcs" });
    writeNode(dir, "_root.md", { keywords: ["global"] });
    writeNode(dir, "frontend/forms.md", { keywords: ["forms"], extra: "category: Frontend" });
    const tree = ["get_skill", "get_asset"];
    const offered = async (env: Record<string, string>) =>
      (await names(await open(dir, undefined, env))).filter((n) => tree.includes(n));
    expect(await offered({ SKILLHUB_ENABLED_SKILLS: "git" })).toEqual([]);
    expect(await offered({ SKILLHUB_ENABLED_CATEGORIES: "vcs" })).toEqual([]);
    expect(await offered({ SKILLHUB_ENABLED_SKILLS: "git,_root" })).toEqual(tree);
    expect(await offered({ SKILLHUB_ENABLED_CATEGORIES: "frontend" })).toEqual(tree);
    expect(await offered({})).toEqual(tree);
  });

  test("every tree tool: title, read-only annotations, described inputs, an output schema", async () => {
    const session = await open(tempDir(), "get_skill,get_asset,list_skills");
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["get_skill", "get_asset", "list_skills"]);
    for (const tool of tools) {
      expect(tool.title?.length).toBeGreaterThan(3);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      expect(tool.outputSchema).toBeDefined();
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect(
          `${tool.name}.${field}: ${(schema as { description?: string }).description ?? ""}`.length,
        ).toBeGreaterThan(`${tool.name}.${field}: `.length + 10);
      }
    }
  });
});
