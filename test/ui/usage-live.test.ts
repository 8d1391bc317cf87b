import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import type { AnalyticsEvent } from "../../src/analytics/event.ts";
import { toJsonl } from "../../src/analytics/jsonl.ts";
import { createHttpHandler } from "../../src/transports/http-handler.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { connect } from "../helpers/hub.ts";

afterAll(cleanupTemp);

function loads(n: number, skill: string, from = Date.UTC(2026, 10, 20)): AnalyticsEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    type: "skill_loaded" as const,
    timestamp: new Date(from + i * 1000).toISOString(),
    server_id: "dev-alice",
    data: { tool: "skill", skill, source: "team" },
  }));
}

/** A hub over one skill, its analytics in `file`, with its page's API and an MCP client; `close` stops all. */
async function hubWithAnalytics(file: string) {
  const skills = tempDir("skillhub-usage-skills-");
  writeSkill(skills, "pdf-invoices", { description: "Extract totals from PDF invoices." });
  const mcp = await connect({ flags: { "skills-dir": [skills] }, env: { SKILLHUB_ANALYTICS_FILE: file } });
  const handler = createHttpHandler(mcp.hub, { host: "127.0.0.1", version: "test" });
  const usage = async (): Promise<Record<string, any>> => {
    const response = await handler.handle(
      new Request("http://127.0.0.1:8000/ui/api/usage?days=30", { headers: { host: "127.0.0.1:8000" } }),
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, any>;
  };
  const close = async () => {
    await handler.close();
    await mcp.close();
  };
  return { ...mcp, usage, close };
}

describe("the page's usage view follows the analytics file", () => {
  test("appends, a malformed line, a rotation and a truncation show without a reload", async () => {
    const file = join(tempDir("skillhub-usage-live-"), "analytics.jsonl");
    writeFileSync(file, toJsonl(loads(5, "pdf-invoices")));
    const hub = await hubWithAnalytics(file);
    try {
      expect((await hub.usage()).events).toBe(5);
      appendFileSync(file, `${toJsonl(loads(3, "git-commits"))}not an event\n`);
      const grown = await hub.usage();
      expect([grown.events, grown.malformed]).toEqual([8, 1]);
      expect(grown.summary.most_used.map((u: any) => [u.skill, u.uses])).toEqual([
        ["pdf-invoices", 5],
        ["git-commits", 3],
      ]);
      renameSync(file, `${file}.1`);
      writeFileSync(file, toJsonl(loads(2, "git-commits", Date.UTC(2026, 10, 25))));
      const rotated = await hub.usage();
      expect([rotated.events, rotated.malformed]).toEqual([2, 0]);
      expect(rotated.series.map((s: any) => [s.skill, s.total])).toEqual([["git-commits", 2]]);
      writeFileSync(file, "");
      expect((await hub.usage()).events).toBe(0);
    } finally {
      await hub.close();
    }
  });

  test("while a large analytics file is read, an MCP request is answered before the read ends", async () => {
    const file = join(tempDir("skillhub-usage-live-"), "analytics.jsonl");
    // About 16 MiB: read a chunk at a time, with the server's other work in between.
    const block = toJsonl(loads(1000, "pdf-invoices"));
    const blocks = Math.ceil((16 * 1_048_576) / block.length);
    writeFileSync(file, block.repeat(blocks));
    const hub = await hubWithAnalytics(file);
    // The read is held at its second chunk, whatever the machine's load, until the request is answered.
    const probe = await open(file, "r");
    const proto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const read = proto.read;
    const held = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    let reads = 0;
    proto.read = async function (this: unknown, ...args: unknown[]) {
      if (++reads === 2) {
        held.resolve();
        await release.promise;
      }
      return read.apply(this, args);
    };
    try {
      let answered = false;
      const usage = hub.usage().then((u) => {
        answered = true;
        return u;
      });
      await held.promise;
      const search = await hub.call("search_skills", { query: "pdf invoices" });
      expect(search.isError).toBeFalsy();
      expect(answered).toBe(false);
      release.resolve();
      expect((await usage).events).toBe(blocks * 1000);
    } finally {
      proto.read = read;
      release.resolve();
      await hub.close();
    }
  });
});
