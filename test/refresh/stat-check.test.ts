import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { MAX_TIMER_MS, Refresher } from "../../src/refresh/refresher.ts";
import type { Source } from "../../src/sources/source-list.ts";
import { Walker, type WalkFs } from "../../src/sources/walk.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, laterMtime, tempDir, writeSkill } from "../helpers/fs.ts";
import { sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

/** Every statSync and readdirSync the walker and the check make, by path. */
function countingFs() {
  const stats = new Map<string, number>();
  let readdirs = 0;
  const walkFs: WalkFs = {
    statSync: (path: string) => {
      stats.set(path, (stats.get(path) ?? 0) + 1);
      return fs.statSync(path);
    },
    readdirSync: (path: string, options: { withFileTypes: true }) => {
      readdirs++;
      return fs.readdirSync(path, options);
    },
    realpathSync: (path: string) => fs.realpathSync(path),
  };
  return {
    walkFs,
    stats,
    readdirs: () => readdirs,
    reset: () => {
      stats.clear();
      readdirs = 0;
    },
  };
}

/**
 * A refresher over `dirs` with a real scanner, watches that never report anything (a network file
 * system: only the stat check can see a change), and the rescan timer in the test's hands.
 */
async function rig(
  dirs: string[],
  options: {
    watch: boolean;
    walkFs?: WalkFs;
    readText?: (f: string) => string;
    /** Called as each watch is set up (after a scan, before the check that follows the first). */
    onWatch?: (path: string) => void;
    rescanSeconds?: number;
  },
) {
  const store = new CatalogStore();
  const scanner = new Scanner(new Walker(options.walkFs), options.readText);
  let walks = 0;
  const scanAsync = scanner.scanAsync.bind(scanner);
  scanner.scanAsync = (...args) => {
    walks++;
    return scanAsync(...args);
  };
  const sources: Source[] = dirs.map((dir, i) => ({ label: `dir${i + 1}`, dir, location: "explicit" }));
  const timers: { fn: () => void; ms: number }[] = [];
  const refresher = new Refresher({
    store,
    scanner,
    logger: createMemoryLogger(),
    sources: () => sources,
    limits: { maxDepth: 8, maxDirs: 10_000 },
    rescanSeconds: options.rescanSeconds ?? 30,
    watch: options.watch,
    debounceMs: 10,
    watchFn: (path) => {
      options.onWatch?.(path);
      return { close() {} };
    },
    setInterval: (fn, ms) => {
      timers.push({ fn, ms });
      return timers.length;
    },
    clearInterval: () => {},
  });
  await refresher.start();
  await refresher.watched;
  return { refresher, store, scanner, timers, walks: () => walks };
}

describe("the stat check every rescan interval", () => {
  test("the timer runs it every SKILLHUB_RESCAN_SECONDS (a delay past what a timer takes is capped); 0 sets no timer", async () => {
    const dir = tempDir();
    writeSkill(dir, "a");
    expect((await rig([dir], { watch: false })).timers.map((t) => t.ms)).toEqual([30_000]);
    expect((await rig([dir], { watch: false, rescanSeconds: 10 ** 9 })).timers.map((t) => t.ms)).toEqual([
      MAX_TIMER_MS,
    ]);
    expect((await rig([dir], { watch: false, rescanSeconds: 0 })).timers).toEqual([]);
  });

  test("a tick finds an edit inside a skill that no watch reported, and the scan that follows serves it", async () => {
    const dir = tempDir();
    for (let i = 0; i < 25; i++) writeSkill(dir, `s-${i}`);
    const { refresher, store, timers } = await rig([dir], { watch: true });
    writeSkill(dir, "s-7", { description: "Edited in place, and no watch said so." });
    const changes: string[] = [];
    store.onChange(({ next }) => changes.push(next.get("s-7")?.description ?? ""));
    // The timer's own call, as its interval makes it.
    timers[0]?.fn();
    await refresher.check();
    expect(store.catalog.get("s-7")?.description).toBe("Edited in place, and no watch said so.");
    expect(changes).toEqual(["Edited in place, and no watch said so."]);
    refresher.stop();
  });

  test("without watches, a removed skill and a new one are found at the next check", async () => {
    const dir = tempDir();
    writeSkill(dir, "stays");
    writeSkill(dir, "goes");
    const { refresher, store } = await rig([dir], { watch: false });
    fs.rmSync(join(dir, "goes"), { recursive: true });
    writeSkill(dir, "arrives");
    laterMtime(dir);
    expect(await refresher.check()).toBe("changed");
    expect(store.catalog.get("goes")).toBeUndefined();
    expect(store.catalog.get("arrives")).toBeDefined();
    expect(await refresher.check()).toBe("unchanged");
    refresher.stop();
  });

  test("a folder created deep inside a skill, and a source folder created since the last scan, are found at the next check", async () => {
    const dir = tempDir();
    fs.mkdirSync(join(dir, "outer", "assets", "deep"), { recursive: true });
    writeSkill(dir, "outer");
    const later = join(tempDir(), "not-yet");
    const { refresher, store } = await rig([dir, later], { watch: true });
    expect(await refresher.check()).toBe("unchanged");
    writeSkill(dir, "outer/assets/deep/inner");
    laterMtime(join(dir, "outer", "assets", "deep"));
    expect(await refresher.check()).toBe("changed");
    expect(store.catalog.get("inner")?.dir).toBe(join(dir, "outer", "assets", "deep", "inner"));
    writeSkill(later, "late-source");
    expect(await refresher.check()).toBe("changed");
    expect(store.catalog.get("late-source")).toBeDefined();
    refresher.stop();
  });

  test("an unchanged tree: no walk, no readdir, no new catalog; every folder and skill file statted once a check", async () => {
    const dir = tempDir();
    const names = Array.from({ length: 37 }, (_, i) => `s-${i}`);
    for (const name of names) writeSkill(dir, name);
    writeSkill(dir, "s-3/nested");
    fs.mkdirSync(join(dir, "s-5", "scripts"));
    const counting = countingFs();
    const { refresher, store, walks } = await rig([dir], { watch: true, walkFs: counting.walkFs });
    const catalog = store.catalog;
    const walksBefore = walks();
    counting.reset();
    for (let i = 0; i < 3; i++) expect(await refresher.check()).toBe("unchanged");
    expect(walks()).toBe(walksBefore);
    expect(counting.readdirs()).toBe(0);
    expect(store.catalog).toBe(catalog);
    expect(counting.stats.get(dir)).toBe(3);
    for (const name of names) {
      expect(counting.stats.get(join(dir, name, "SKILL.md"))).toBe(3);
      expect(counting.stats.get(join(dir, name))).toBe(3);
    }
    expect(counting.stats.get(join(dir, "s-3", "nested", "SKILL.md"))).toBe(3);
    expect(counting.stats.get(join(dir, "s-5", "scripts"))).toBe(3);
    refresher.stop();
  });

  test("a skill created or edited while the watches were being set up is found by the check that follows them", async () => {
    const dir = tempDir();
    writeSkill(dir, "old");
    writeSkill(dir, "edited");
    let once = true;
    const { store, walks, refresher } = await rig([dir], {
      watch: true,
      // After the first scan, before any watch could report it.
      onWatch: () => {
        if (!once) return;
        once = false;
        writeSkill(dir, "born-in-the-gap");
        writeSkill(dir, "edited", { description: "Edited before the watch existed." });
      },
    });
    expect(walks()).toBe(2);
    expect(store.catalog.get("born-in-the-gap")).toBeDefined();
    expect(store.catalog.get("edited")?.description).toBe("Edited before the watch existed.");
    refresher.stop();
  });

  test("a tick during a scan is skipped (the scan looks at everything); what it walked past, the next tick finds", async () => {
    const dir = tempDir();
    writeSkill(dir, "a");
    const { refresher, store, scanner, walks } = await rig([dir], { watch: false });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let walked!: () => void;
    const hasWalked = new Promise<void>((resolve) => (walked = resolve));
    const scanAsync = scanner.scanAsync.bind(scanner);
    scanner.scanAsync = async (...args) => {
      const catalog = await scanAsync(...args);
      walked();
      await held;
      return catalog;
    };
    const scan = refresher.rescan("file change");
    await hasWalked;
    writeSkill(dir, "a", { description: "Edited after the scan walked past it." });
    const before = walks();
    expect(await refresher.check()).toBe("skipped");
    release();
    await scan;
    expect(walks()).toBe(before);
    scanner.scanAsync = scanAsync;
    expect(await refresher.check()).toBe("changed");
    expect(store.catalog.get("a")?.description).toBe("Edited after the scan walked past it.");
    refresher.stop();
  });

  test("after a scan that could not read a file, the check walks again instead of trusting stats", async () => {
    const dir = tempDir();
    writeSkill(dir, "fine");
    writeSkill(dir, "locked");
    let locked = true;
    const readText = (file: string) => {
      if (locked && file.includes("locked")) throw Object.assign(new Error("EACCES"), { code: "EACCES" });
      return fs.readFileSync(file, "utf8");
    };
    const { refresher, store } = await rig([dir], { watch: false, readText });
    expect(store.catalog.get("locked")).toBeUndefined();
    // Permissions fixed: no mtime changes, yet the next check serves it.
    locked = false;
    expect(await refresher.check()).toBe("unknown");
    expect(store.catalog.get("locked")).toBeDefined();
    expect(await refresher.check()).toBe("unchanged");
    refresher.stop();
  });

  test("an unchanged check keeps the catalog, so the tool list is computed once per catalog generation", async () => {
    const dir = tempDir();
    writeSkill(dir, "a");
    const { hub } = await open({ flags: { "skills-dir": [dir] } });
    const catalog = hub.catalog;
    const tools = hub.tools();
    expect(await hub.refresher.check()).toBe("unchanged");
    await hub.refresher.rescan("refresh_skills");
    expect(hub.catalog).toBe(catalog);
    expect(hub.tools()).toBe(tools);
    writeSkill(dir, "b");
    expect(await hub.refresher.check()).toBe("changed");
    expect(hub.catalog.generation).toBe(catalog.generation + 1);
    expect(hub.tools()).not.toBe(tools);
    expect(hub.tools()).toBe(hub.tools());
  });
});
