import { afterAll, describe, expect, test } from "bun:test";
import { handlerWithClients } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = closeAfterEach();

/** A --stateless HTTP handler (or a session one) over one skills folder, and SDK clients of it. */
async function world(stateless: boolean) {
  const dir = tempDir("skillhub-stateless-");
  writeSkill(dir, "git-helper", { description: "Git workflow helper" });
  return { dir, ...(await handlerWithClients(dir, open, { stateless })) };
}

const listChanged = (caps: Record<string, { listChanged?: boolean } | undefined> | undefined) => ({
  tools: caps?.tools?.listChanged ?? false,
  resources: caps?.resources?.listChanged ?? false,
  prompts: caps?.prompts?.listChanged ?? false,
});

describe("--stateless advertises only the notifications it delivers", () => {
  test("2025-11-25: no session and no stream, so no listChanged anywhere (a session server keeps it)", async () => {
    const stateless = await (await world(true)).client("2025-11-25");
    expect(listChanged(stateless.getServerCapabilities() as never)).toEqual({
      tools: false,
      resources: false,
      prompts: false,
    });
    // It still lists and calls: what changed shows the next time it lists.
    expect((await stateless.listTools()).tools.map((t) => t.name)).toContain("skill");
    const sessions = await (await world(false)).client("2025-11-25");
    expect(listChanged(sessions.getServerCapabilities() as never)).toEqual({
      tools: true,
      resources: true,
      prompts: true,
    });
  });

  test("2026-07-28: listChanged is advertised and a change reaches the client on subscriptions/listen", async () => {
    const w = await world(true);
    const changes: string[] = [];
    const client = await w.client("2026-07-28", (kind) => changes.push(kind));
    expect(listChanged(client.getServerCapabilities() as never)).toEqual({
      tools: true,
      resources: true,
      prompts: true,
    });
    await client.listTools();
    // Its listen stream opens beside the calls: each try adds a skill, until a change arrives (a try every
    // second, past the client's 300 ms debounce of list_changed, which a faster one would keep resetting).
    let added = 0;
    await eventually(
      async () => {
        if (changes.includes("tools") && changes.includes("resources") && changes.includes("prompts")) return true;
        writeSkill(w.dir, `new-skill-${++added}`, { description: "Added while running" });
        await w.hub.refresher.rescan("test");
        return false;
      },
      30_000,
      1000,
    );
  });
});
