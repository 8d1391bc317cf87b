import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually, sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

describe("the sk profile", () => {
  test("skills.list and skills.search see ./skills under the project root (their default root)", async () => {
    const project = tempDir("skillhub-project-");
    writeSkill(join(project, "skills"), "bd-ready", { description: "Check bd ready", body: "Run bd ready first.\n" });
    writeSkill(join(project, "skills", "nested"), "deep", { description: "A nested skill" });
    const { call } = await open({ flags: { project, tools: "sk" } });
    const listed = (await call("skills.list", {})).structuredContent as {
      skills: { installName: string; skillPath: string }[];
    };
    expect(listed.skills.map((s) => [s.installName, s.skillPath])).toEqual([
      ["bd-ready", "skills/bd-ready"],
      ["deep", "skills/nested/deep"],
    ]);
    const hits = (await call("skills.search", { query: "bd ready" })).structuredContent as { total: number };
    expect(hits.total).toBe(1);
  });

  test("--root picks another folder under the project root; other profiles do not read ./skills", async () => {
    const project = tempDir("skillhub-project-");
    writeSkill(join(project, "skills"), "default-root", { description: "In ./skills" });
    writeSkill(join(project, "vendor", "skills"), "vendored", { description: "In vendor/skills" });
    const rooted = await open({ flags: { project, tools: "sk", root: "vendor/skills" } });
    const names = (r: unknown) => (r as { skills: { meta: { name: string } }[] }).skills.map((s) => s.meta.name);
    expect(names((await rooted.call("skills.list", {})).structuredContent)).toEqual(["vendored"]);
    const auto = await open({ flags: { project } });
    expect(auto.hub.catalog.get("default-root")).toBeUndefined();
  });

  test("a change sends notifications/tools/list_changed with a short reason, after initialized", async () => {
    const project = tempDir("skillhub-project-");
    writeSkill(join(project, "skills"), "first", { description: "First" });
    const { client, hub } = await open({ flags: { project, tools: "sk" } });
    const seen: { method: string; params?: Record<string, unknown> }[] = [];
    client.fallbackNotificationHandler = async (n) => void seen.push(n as (typeof seen)[number]);
    await client.listTools();
    writeSkill(join(project, "skills"), "second", { description: "Second" });
    await hub.refresher.rescan("test");
    const changed = await eventually(() => seen.find((n) => n.method === "notifications/tools/list_changed"));
    expect(changed?.params).toEqual({ reason: "skills changed: 1 added (second)" });
    // An edited body (same name and description) is a change too for the sk tools.
    writeSkill(join(project, "skills"), "second", { description: "Second", body: "New body.\n" });
    await hub.refresher.rescan("test");
    await eventually(() => seen.filter((n) => n.method === "notifications/tools/list_changed").length === 2);
    expect(seen.at(-1)?.params).toEqual({ reason: "skills changed: 1 updated (second)" });
  });
});
