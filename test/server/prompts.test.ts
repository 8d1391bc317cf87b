import { afterAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { z } from "zod";
import { handlerWithClients, REVISIONS } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { connect, eventually, testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = closeAfterEach();

async function world(count = 2, env: Record<string, string> = {}, flags: Record<string, unknown> = {}) {
  const dir = tempDir("skillhub-prompts-");
  writeSkill(dir, "git-helper", { description: "Git workflow helper" });
  for (let i = 1; i < count; i++) writeSkill(dir, `skill-${String(i).padStart(3, "0")}`, { description: `Skill ${i}` });
  const { hub, client } = await handlerWithClients(dir, open, { env, flags });
  return { dir, hub, client };
}

function page(client: Client, cursor?: string) {
  return client.request(
    { method: "prompts/list", params: cursor ? { cursor } : {} } as never,
    z.looseObject({}) as never,
  ) as Promise<{ prompts: { name: string; description?: string }[]; nextCursor?: string }>;
}

describe.each([...REVISIONS])("prompts on %s", (revision) => {
  test("one prompt per served skill; getting it returns what the skill tool returns", async () => {
    const w = await world();
    const client = await w.client(revision);
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["git-helper", "skill-001"]);
    expect(prompts[0]?.description).toBe("Git workflow helper");
    const prompt = await client.getPrompt({ name: "git-helper" });
    const tool = await client.callTool({ name: "skill", arguments: { name: "git-helper" } });
    // The skill tool's text (SKILL.md), without the <command-message> its description promises a model.
    const items = (tool as { content: { type: string; text?: string }[] }).content.map((c) => c.text ?? "");
    expect(items[1]).toContain("<command-message>");
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: items[0] as string } }]);
    expect(JSON.stringify(prompt)).not.toContain("command-message");
    const error = await client.getPrompt({ name: "no-such-skill" }).catch((e) => e);
    expect(error.code).toBe(-32602);
  });

  test("SKILLHUB_PROMPTS=all: every served skill is a prompt, and prompts/list is paginated", async () => {
    const w = await world(230, { SKILLHUB_PROMPTS: "all" });
    const client = await w.client(revision);
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await page(client, cursor);
      names.push(...result.prompts.map((p) => p.name));
      cursor = result.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(names).size).toBe(230);
  });
});

describe("a slash menu a person can read", () => {
  test("by default the 30 most useful skills are prompts: the project's and the most used first; any skill can be got", async () => {
    const dir = tempDir("skillhub-prompts-");
    for (let i = 0; i < 230; i++) writeSkill(dir, `skill-${String(i).padStart(3, "0")}`);
    // A stdio server: one person's loads, from this session and earlier ones (the usage file).
    const { hub, client, close } = await connect({ flags: { "skills-dir": [dir] } });
    open.push(close);
    hub.usage.record(hub.catalog.get("skill-229")?.id as string);
    const result = await page(client);
    expect(result.prompts).toHaveLength(30);
    expect(result.nextCursor).toBeUndefined();
    const names = result.prompts.map((p) => p.name);
    expect(names).toContain("skill-229");
    // Sorted by name, as a menu is read.
    expect(names).toEqual([...names].sort());
    const unlisted = hub.catalog.skills.find((s) => !names.includes(s.name))?.name as string;
    const got = await client.getPrompt({ name: unlisted });
    expect(got.messages[0]?.content).toMatchObject({
      type: "text",
      text: expect.stringContaining(`Loading: ${unlisted}`),
    });
  });

  test("a prompt is got by its name in either Unicode normal form, under the name its author wrote", async () => {
    const dir = tempDir("skillhub-prompts-nfc-");
    writeSkill(dir, "cafe", { name: "caf\u00e9", description: "Composed" });
    writeSkill(dir, "the", { name: "the\u0301", description: "Decomposed" });
    const { client } = await handlerWithClients(dir, open);
    const c = await client("2025-11-25");
    const composed = await c.getPrompt({ name: "cafe\u0301" });
    expect(composed.description).toBe("Composed");
    expect(composed.messages[0]?.content).toMatchObject({ text: expect.stringContaining("Loading: caf\u00e9\n") });
    const decomposed = await c.getPrompt({ name: "th\u00e9" });
    expect(decomposed.messages[0]?.content).toMatchObject({ text: expect.stringContaining("Loading: the\u0301\n") });
  });

  test("SKILLHUB_PROMPTS=N lists the most useful N; a value that is neither a number nor `all` stops start-up", async () => {
    const w = await world(20, { SKILLHUB_PROMPTS: "5" });
    const client = await w.client("2025-11-25");
    expect((await client.listPrompts()).prompts).toHaveLength(5);
    expect(() => testHub({ env: { SKILLHUB_PROMPTS: "many" } })).toThrow(
      'server.prompt_skills) = "many": expected a whole number or "all"',
    );
  });
});

describe("turning prompts off, and change notifications", () => {
  test("--no-prompts and SKILLHUB_NO_PROMPTS: no prompts capability", async () => {
    for (const w of [await world(2, {}, { "no-prompts": true }), await world(2, { SKILLHUB_NO_PROMPTS: "1" })]) {
      const client = await w.client("2025-11-25");
      expect(client.getServerCapabilities()?.prompts).toBeUndefined();
      expect((await client.listPrompts()).prompts).toEqual([]);
    }
  });

  test("2025 (in memory): one prompts/list_changed and one resources/list_changed per catalog change", async () => {
    const dir = tempDir("skillhub-prompts-mem-");
    writeSkill(dir, "git-helper", { description: "Git workflow helper" });
    const s = await connect({ flags: { "skills-dir": [dir] } });
    open.push(s.close);
    await s.client.listPrompts();
    writeSkill(dir, "new-skill", { description: "Added while running" });
    await s.hub.refresher.rescan("test");
    await eventually(() => s.notifications.includes("notifications/prompts/list_changed"));
    await s.hub.refresher.rescan("test again, nothing changed");
    // A round trip: a notification sent before its answer has arrived by then (in-memory, in order).
    await s.client.ping();
    expect(s.notifications.filter((n) => n === "notifications/prompts/list_changed")).toHaveLength(1);
    expect(s.notifications.filter((n) => n === "notifications/resources/list_changed")).toHaveLength(1);
  });

  test("2026-07-28 over HTTP: changes arrive through subscriptions/listen, once per change", async () => {
    const w = await world();
    const changes: string[] = [];
    const client = await w.client("2026-07-28", (kind) => changes.push(kind));
    await client.listTools();
    // The client opens its subscription in the background: a skill added per try until one is announced
    // (tries a second apart: the client debounces change notifications, a burst would hold them back).
    let added = 0;
    await eventually(
      async () => {
        if (changes.includes("tools")) return true;
        writeSkill(w.dir, `new-skill-${added++}`, { description: "Added while running" });
        await w.hub.refresher.rescan("test");
        return false;
      },
      undefined,
      1000,
    );
    // Subscribed: one change of each kind per catalog change from now on.
    await eventually(() => changes.includes("prompts") && changes.includes("resources"));
    changes.length = 0;
    writeSkill(w.dir, "one-more", { description: "Added while subscribed" });
    await w.hub.refresher.rescan("test");
    await eventually(() => changes.includes("prompts") && changes.includes("resources") && changes.includes("tools"));
    await w.hub.refresher.rescan("nothing changed");
    // Nothing is awaited here: a change announced for nothing would arrive in this time.
    await Bun.sleep(200);
    expect(changes.filter((c) => c === "prompts")).toHaveLength(1);
    expect(changes.filter((c) => c === "resources")).toHaveLength(1);
    expect(changes.filter((c) => c === "tools")).toHaveLength(1);
  });
});
