import { afterAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { httpClient } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { connect, httpHub } from "../helpers/hub.ts";
import { writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** Analytics kept in memory until the test drains them; a queue of 300 events, so an address's share is 30. */
const ANALYTICS = {
  env: {
    SKILLHUB_ANALYTICS_FILE: `${tempDir()}/events.jsonl`,
    SKILLHUB_ANALYTICS_FLUSH_SECONDS: "3600",
    SKILLHUB_TOOLS: "all",
  },
  configFile: { analytics: { max_queue: 300 } },
};

/** `pdf` and the tree node `ui/react/auth`: search_skills and get_skill are both offered. */
function skills(): string {
  const dir = tempDir();
  writeSkill(dir, "pdf");
  writeNode(dir, "ui/react/auth.md", { keywords: ["react", "auth"], description: "React authentication" });
  return dir;
}

/** Two calls that find nothing, each of them an analytics event. */
async function missTwice(client: Client) {
  await client.callTool({ name: "search_skills", arguments: { query: "zebra quantum violin" } });
  await client.callTool({ name: "get_skill", arguments: { context: "zebra quantum violin" } });
}

describe("each client address may queue a share of the analytics events between two flushes", () => {
  test("searches that find nothing, from new sessions: the address's share is queued, the rest dropped with one line; another address's all land", async () => {
    const { hub, handler, logger, close } = await httpHub([skills()], ANALYTICS);
    closers.push(close);
    const session = async (peer: string) => {
      const client = await httpClient(handler, "2025-11-25", { peer });
      closers.unshift(() => client.close());
      return client;
    };
    // Ten sessions of one machine on IPv6, five misses of each kind: 100 events, one /64.
    for (let s = 0; s < 10; s++) {
      const client = await session(`2001:db8:0:1::${s + 1}`);
      for (let i = 0; i < 5; i++) await missTwice(client);
    }
    expect(hub.analytics.tracker.pending).toBe(30);
    expect(hub.analytics.tracker.dropped).toBe(70);
    // A colleague's events all land, sessions with or without one alike.
    const colleague = await session("10.0.0.2");
    for (let i = 0; i < 10; i++) await missTwice(colleague);
    const modern = await httpClient(handler, "2026-07-28", { peer: "10.0.0.3" });
    closers.unshift(() => modern.close());
    for (let i = 0; i < 10; i++) await missTwice(modern);
    const events = hub.analytics.tracker.drain();
    expect(events).toHaveLength(70);
    expect(events.filter((e) => e.type === "search")).toHaveLength(35);
    expect(events.filter((e) => e.type === "no_match")).toHaveLength(35);
    // Counted, and said once for the window, not once an event.
    expect(logger.lines.filter((l) => l.includes("past its share"))).toEqual([
      expect.stringContaining(
        "analytics: events dropped since the last flush, their address past its share (30 events between two flushes, a tenth of analytics.max_queue): 70 from 2001:db8:0:1::/64.",
      ),
    ]);
    // The next window starts afresh.
    await missTwice(await session("2001:db8:0:1::99"));
    expect(hub.analytics.tracker.pending).toBe(2);
  });

  test("over stdio (one user) every event is queued, whatever the share", async () => {
    const s = await connect({ ...ANALYTICS, flags: { "skills-dir": [skills()] } });
    closers.push(s.close);
    for (let i = 0; i < 25; i++) await missTwice(s.client);
    expect(s.hub.analytics.tracker.pending).toBe(50);
    expect(s.hub.analytics.tracker.dropped).toBe(0);
  });
});
