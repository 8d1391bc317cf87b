import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { manualClock } from "../helpers/clock.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually, sessions, textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

const listChangedCount = (notifications: string[]) =>
  notifications.filter((n) => n === "notifications/tools/list_changed").length;

describe("freshness", () => {
  // How soon (within a second) is measured by `make bench` (freshness), not asserted here.
  test("with the watcher, new skills are listed and loadable without any rescan call, with one list_changed", async () => {
    const dir = tempDir();
    writeSkill(dir, "first");
    const { client, call, notifications } = await open({
      env: { SKILLHUB_WATCH: "1" },
      flags: { "skills-dir": [dir] },
    });
    await client.listTools();
    // Several files in one burst: one change for the client.
    writeSkill(dir, "second");
    writeSkill(dir, "third");
    await eventually(async () => (await client.listTools()).tools[0]?.description?.includes("<name>third</name>"));
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
    await eventually(
      () => hub.catalog.get("keep")?.description === "new words, longer than before" && !hub.catalog.get("gone"),
    );
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
    await eventually(() => hub.catalog.get("aaa-late"));
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

describe("lookup misses", () => {
  test("a folder that exists but is not served does not trigger a rescan on every call", async () => {
    const dir = tempDir();
    writeSkill(dir, "good");
    writeSkill(dir, "broken", { description: null });
    // The clock stands still: the rate limit (a rescan a second at most) cannot expire on a slow machine.
    const { call, hub } = await open({ flags: { "skills-dir": [dir] }, hub: { now: manualClock().now } });
    let scans = 0;
    const original = hub.refresher.rescan.bind(hub.refresher);
    hub.refresher.rescan = (reason: string) => {
      scans++;
      return original(reason);
    };
    for (let i = 0; i < 5; i++) expect((await call("skill", { name: "broken" })).isError).toBe(true);
    expect(scans).toBeLessThanOrEqual(1);
    // A folder written after the last scan is picked up at once, however recent that scan was.
    writeSkill(dir, "newcomer");
    expect((await call("skill", { name: "newcomer" })).isError).toBeFalsy();
  });
});

describe("nested skills", () => {
  test("a skill created inside another one is found by the next refresh (not only by a full timer pass)", async () => {
    const dir = tempDir();
    writeSkill(dir, "outer");
    const { hub } = await open({ flags: { "skills-dir": [dir] } });
    await hub.refresher.rescan("timer");
    writeSkill(dir, "outer/inner");
    await hub.refresher.rescan("file change");
    expect(hub.catalog.get("inner")?.dir).toBe(join(dir, "outer", "inner"));
  });
});
