import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { connect, eventually, textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

async function open(options: Parameters<typeof connect>[0]) {
  const session = await connect(options);
  closers.push(session.close);
  return session;
}

const listChangedCount = (notifications: string[]) => notifications.filter((n) => n === "notifications/tools/list_changed").length;

describe("freshness (DESIGN §6)", () => {
  test("with the watcher, a new skill is listed and loadable within a second, with one list_changed", async () => {
    const dir = tempDir();
    writeSkill(dir, "first");
    const { client, call, notifications } = await open({ env: { SKILLHUB_WATCH: "1" }, flags: { "skills-dir": [dir] } });
    await client.listTools();
    const started = Date.now();
    // Several files in one burst: one change for the client.
    writeSkill(dir, "second");
    writeSkill(dir, "third");
    await eventually(async () => (await client.listTools()).tools[0]?.description?.includes("<name>third</name>"), 2000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(textOf(await call("skill", { name: "second" }))).toStartWith("Loading: second\n");
    await Bun.sleep(700);
    expect(listChangedCount(notifications)).toBe(1);
  });

  test("the stat-based timer rescan picks up edits and deletions", async () => {
    const dir = tempDir();
    writeSkill(dir, "keep", { description: "old words" });
    writeSkill(dir, "gone");
    const { client, hub } = await open({ env: { SKILLHUB_RESCAN_SECONDS: "1" }, flags: { "skills-dir": [dir] } });
    await client.listTools();
    writeSkill(dir, "keep", { description: "new words, longer than before" });
    rmSync(join(dir, "gone"), { recursive: true });
    await eventually(() => hub.catalog.get("keep")?.description === "new words, longer than before" && !hub.catalog.get("gone"), 3000);
  });

  test("no list_changed when nothing a client sees changed, and none before initialized", async () => {
    const dir = tempDir();
    writeSkill(dir, "a");
    const { client, hub, notifications } = await open({ flags: { "skills-dir": [dir] } });
    await client.listTools();
    writeSkill(dir, "a", { body: "# a\n\nnew body only\n" });
    await hub.refresher.rescan("test");
    expect(listChangedCount(notifications)).toBe(0);
    writeSkill(dir, "b");
    await hub.refresher.rescan("test");
    expect(listChangedCount(notifications)).toBe(1);
  });

  test("a rescan never opens a window where existing skills are not found", async () => {
    const dir = tempDir();
    for (let i = 0; i < 300; i++) writeSkill(dir, `s-${i}`);
    const { call, hub } = await open({ flags: { "skills-dir": [dir] } });
    let misses = 0;
    let stop = false;
    const hammer = (async () => {
      while (!stop) {
        const result = await call("skill", { name: "s-150" });
        if (result.isError) misses++;
        // The in-memory transport resolves in microtasks; let the scan's macrotask ticks run.
        await Bun.sleep(0);
      }
    })();
    for (let i = 0; i < 5; i++) {
      writeSkill(dir, `new-${i}`);
      await hub.refresher.rescan("test");
    }
    stop = true;
    await hammer;
    expect(misses).toBe(0);
  });

  test("a skill created while the first scan is still running is not lost", async () => {
    const dir = tempDir();
    for (let i = 0; i < 2000; i++) writeSkill(dir, `bulk-${i}`);
    const { testHub } = await import("../helpers/hub.ts");
    const { hub } = testHub({ env: { SKILLHUB_WATCH: "1" }, flags: { "skills-dir": [dir] } });
    const started = hub.start();
    // The walk is under way (it yields every few hundred folders); add a skill it has already passed.
    await Bun.sleep(1);
    writeSkill(dir, "aaa-late");
    await started;
    await eventually(() => hub.catalog.get("aaa-late"), 3000);
    hub.close();
  });

  test("MCP roots set the project root after initialized, and roots/list_changed re-reads them", async () => {
    const project = tempDir();
    writeSkill(join(project, ".claude", "skills"), "from-root");
    const { call, hub } = await open({ roots: [pathToFileURL(project).href] });
    await eventually(() => hub.projectRoot.dir === project);
    await eventually(async () => !(await call("skill", { name: "from-root" })).isError);
    expect(hub.projectRoot.how).toContain("MCP roots");
  });
});
