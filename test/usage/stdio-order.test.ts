import { afterAll, describe, expect, test } from "bun:test";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { createServer } from "../../src/server/create-server.ts";
import { shownFirst } from "../helpers/clients.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { connect, testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = closeAfterEach();

/** The skill loaded: last by name, so no list names it before it is loaded. */
const LOADED = "topic-199";

const shown = (client: Client) => shownFirst(client, LOADED);

describe("over stdio one person's loads order the lists, across sessions", () => {
  test("a skill loaded in one session comes first in this one's lists and the next session's (usage.json)", async () => {
    const dir = tempDir("skillhub-stdio-order-");
    for (let i = 0; i < 200; i++)
      writeSkill(dir, `topic-${String(i).padStart(3, "0")}`, { description: `Handles topic ${i}.` });
    const home = tempDir("skillhub-stdio-order-home-");
    const options = { home, flags: { "skills-dir": [dir] }, env: { SKILLHUB_CATALOG_BUDGET: "1200" } };
    const first = await connect(options);
    const before = await shown(first.client);
    expect(before.prompts).not.toContain(LOADED);
    expect(before.catalog).toBe(false);
    for (let i = 0; i < 5; i++)
      expect((await first.client.callTool({ name: "skill", arguments: { name: LOADED } })).isError).toBeFalsy();
    const now = await shown(first.client);
    expect(now.prompts).toContain(LOADED);
    expect(now.catalog).toBe(true);
    // The server stops (the client's session ends); the next one, with the same home, reads the counts
    // (its client connects once the catalog is in, so that its instructions name skills).
    await first.close();
    const { hub } = testHub(options);
    void hub.start();
    await hub.ready;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createServer(hub).connect(serverSide);
    const next = new Client({ name: "next-session", version: "1.0.0" });
    await next.connect(clientSide);
    open.push(async () => {
      await next.close();
      hub.close();
    });
    const after = await shown(next);
    expect(after.instructions[0]).toBe(LOADED);
    expect(after.prompts).toContain(LOADED);
    expect(after.catalog).toBe(true);
  });
});
