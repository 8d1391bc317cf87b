import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { CHECK_STATS, Refresher, SWEEP_TICKS, timerPlan, WATCHED_CHECK_TICKS } from "../../src/refresh/refresher.ts";
import type { Source } from "../../src/sources/source-list.ts";
import { Walker, type WalkFs } from "../../src/sources/walk.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually, sessions } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

/** Every statSync and readdirSync the walker and the timer's check make, by path. */
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
    /** Stats made in all, since the last reset. */
    statted: () => [...stats.values()].reduce((a, b) => a + b, 0),
    readdirs: () => readdirs,
    reset: () => {
      stats.clear();
      readdirs = 0;
    },
  };
}

interface Rig {
  refresher: Refresher;
  store: CatalogStore;
  scanner: Scanner;
  /** Scans that walked (not timer checks), since the rig was made. */
  walks: () => number;
  /** The fake watcher's error callback for `dir` (calling it is what fs.watch's "error" event does). */
  failWatcher: (dir: string) => void;
  /** One tick of the rescan timer, as its interval would call it. */
  tick: () => void;
}

/** A refresher over `dirs` with a real scanner, a fake watcher that never reports anything, and no real timer. */
async function rig(
  dirs: string[],
  options: {
    watch: boolean;
    walkFs?: WalkFs;
    readText?: (f: string) => string;
    /** Called as each watcher is set up (after the first scan, before the check that follows it). */
    onWatch?: (dir: string) => void;
    /** Wait for the watchers and rescan once more before returning. Default true. */
    settle?: boolean;
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
  const onErrors = new Map<string, (error: unknown) => void>();
  const sources: Source[] = dirs.map((dir, i) => ({ label: `dir${i + 1}`, dir, location: "explicit" }));
  const refresher = new Refresher({
    store,
    scanner,
    logger: createMemoryLogger(),
    sources: () => sources,
    limits: { maxDepth: 8, maxDirs: 10_000 },
    rescanSeconds: 30,
    watch: options.watch,
    debounceMs: 10,
    // A watcher that misses everything (a network file system, a watch limit): only the timer can see edits.
    watchFn: (dir, _onChange, onError) => {
      options.onWatch?.(dir);
      if (onError) onErrors.set(dir, onError);
      return { close() {} };
    },
    setInterval: (fn) => {
      tick = fn;
      return 1;
    },
    clearInterval: () => {},
  });
  let tick = () => {};
  await refresher.start();
  // The watchers are set up a turn after the first catalog, then one quick rescan runs.
  if (options.watch && options.settle !== false) {
    for (let i = 0; i < 200 && !refresher.watcherHealthy(); i++) await Bun.sleep(5);
    await refresher.rescan("settle");
  }
  const r: Rig = {
    refresher,
    store,
    scanner,
    walks: () => walks,
    failWatcher: (dir) => onErrors.get(dir)?.(new Error("EMFILE: too many open files, watch")),
    tick: () => tick(),
  };
  return r;
}

describe("the rescan timer's stat check (issue 16)", () => {
  test("with a working watcher, an edit it did not report is found by the next check", async () => {
    const dir = tempDir();
    for (let i = 0; i < 25; i++) writeSkill(dir, `s-${i}`);
    const { refresher, store } = await rig([dir], { watch: true });
    expect(refresher.watcherHealthy()).toBe(true);
    writeSkill(dir, "s-7", { description: "Edited in place, and no watcher event said so." });
    let ticks = 0;
    while (store.catalog.get("s-7")?.description !== "Edited in place, and no watcher event said so.") {
      expect(ticks).toBeLessThan(1);
      await refresher.timerPass();
      ticks++;
    }
    expect(ticks).toBeGreaterThanOrEqual(1);
    refresher.stop();
  });

  test("once the watchers are set up, an unchanged tree is checked by stat, not walked again", async () => {
    const dir = tempDir();
    for (let i = 0; i < 5; i++) writeSkill(dir, `s-${i}`);
    const counting = countingFs();
    const { refresher, walks } = await rig([dir], { watch: true, walkFs: counting.walkFs, settle: false });
    const readdirs = counting.readdirs();
    await refresher.watched;
    expect(refresher.watcherHealthy()).toBe(true);
    expect(walks()).toBe(1);
    expect(counting.readdirs()).toBe(readdirs);
    // The first scan statted each file once, the check once more: every file, not a slice.
    for (let i = 0; i < 5; i++) expect(counting.stats.get(join(dir, `s-${i}`, "SKILL.md"))).toBe(2);
    refresher.stop();
  });

  test("a skill created or edited while the watchers were being set up is found by the check that follows", async () => {
    const dir = tempDir();
    writeSkill(dir, "old");
    writeSkill(dir, "edited");
    const { refresher, store, walks } = await rig([dir], {
      watch: true,
      settle: false,
      // After the first scan, before any watcher could report it.
      onWatch: () => {
        writeSkill(dir, "born-in-the-gap");
        writeSkill(dir, "edited", { description: "Edited before the watcher existed." });
      },
    });
    await refresher.watched;
    expect(walks()).toBe(2);
    expect(store.catalog.get("born-in-the-gap")).toBeDefined();
    expect(store.catalog.get("edited")?.description).toBe("Edited before the watcher existed.");
    refresher.stop();
  });

  test("without a watcher, an edit is found at the next tick", async () => {
    const dir = tempDir();
    for (let i = 0; i < 25; i++) writeSkill(dir, `s-${i}`);
    const { refresher, store } = await rig([dir], { watch: false });
    expect(refresher.watcherHealthy()).toBe(false);
    writeSkill(dir, "s-13", { description: "Edited while nobody watched." });
    expect(await refresher.timerPass()).toBe("changed");
    expect(store.catalog.get("s-13")?.description).toBe("Edited while nobody watched.");
    refresher.stop();
  });

  test("a new skill in a source folder is found at the next tick, even when the watcher missed it", async () => {
    const dir = tempDir();
    writeSkill(dir, "old");
    const { refresher, store } = await rig([dir], { watch: true });
    writeSkill(dir, "brand-new");
    expect(await refresher.timerPass()).toBe("changed");
    expect(store.catalog.get("brand-new")).toBeDefined();
    // And a source folder that did not exist at the last scan, created since.
    const later = join(tempDir(), "not-yet");
    const second = await rig([dir, later], { watch: false });
    expect(await second.refresher.timerPass()).toBe("unchanged");
    writeSkill(later, "late-source");
    expect(await second.refresher.timerPass()).toBe("changed");
    expect(second.store.catalog.get("late-source")).toBeDefined();
    refresher.stop();
    second.refresher.stop();
  });

  test("an unchanged tree: no walk, no readdir, each file and skill folder statted once per check, source folders every check", async () => {
    const dir = tempDir();
    const names = Array.from({ length: 37 }, (_, i) => `s-${i}`);
    for (const name of names) writeSkill(dir, name);
    writeSkill(dir, "s-3/nested");
    const counting = countingFs();
    const { refresher, store, walks } = await rig([dir], { watch: true, walkFs: counting.walkFs });
    const catalog = store.catalog;
    const walksBefore = walks();
    counting.reset();
    for (let i = 0; i < 3; i++) expect(await refresher.timerPass()).toBe("unchanged");
    expect(walks()).toBe(walksBefore);
    expect(counting.readdirs()).toBe(0);
    expect(store.catalog).toBe(catalog);
    expect(counting.stats.get(dir)).toBe(3);
    // A small catalog fits in one slice: with checks WATCHED_CHECK_TICKS ticks apart, each checks everything.
    for (const name of names) {
      expect(counting.stats.get(join(dir, name, "SKILL.md"))).toBe(3);
      expect(counting.stats.get(join(dir, name))).toBe(3);
    }
    expect(counting.stats.get(join(dir, "s-3", "nested", "SKILL.md"))).toBe(3);
    refresher.stop();
  });

  test("with a working watcher, one tick in WATCHED_CHECK_TICKS runs the check; the others stat nothing", async () => {
    const dir = tempDir();
    for (let i = 0; i < 5; i++) writeSkill(dir, `s-${i}`);
    const counting = countingFs();
    const { refresher, tick } = await rig([dir], { watch: true, walkFs: counting.walkFs });
    expect(refresher.watcherHealthy()).toBe(true);
    for (let round = 0; round < 2; round++) {
      counting.reset();
      for (let i = 0; i < WATCHED_CHECK_TICKS - 1; i++) tick();
      await Bun.sleep(20);
      expect(counting.statted()).toBe(0);
      tick();
      await Bun.sleep(20);
      // The source folder and every skill folder and file.
      expect(counting.statted()).toBe(11);
    }
    refresher.stop();
  });

  test("without a working watcher, or once it fails, every tick runs the check", async () => {
    const dir = tempDir();
    writeSkill(dir, "a");
    const counting = countingFs();
    const unwatched = await rig([dir], { watch: false, walkFs: counting.walkFs });
    counting.reset();
    for (let i = 0; i < 3; i++) {
      unwatched.tick();
      await Bun.sleep(20);
    }
    expect(counting.stats.get(join(dir, "a", "SKILL.md"))).toBe(3);
    unwatched.refresher.stop();

    const watched = await rig([dir], { watch: true, walkFs: counting.walkFs });
    watched.failWatcher(dir);
    await Bun.sleep(50);
    await watched.refresher.rescan("settle");
    counting.reset();
    watched.tick();
    await Bun.sleep(20);
    expect(counting.stats.get(join(dir, "a", "SKILL.md"))).toBe(1);
    watched.refresher.stop();
  });

  test("between checks, a skill folder added where the watcher missed it is found by the runtime's poll of its source folder", async () => {
    const dir = tempDir();
    writeSkill(dir, "old");
    const store = new CatalogStore();
    const refresher = new Refresher({
      store,
      scanner: new Scanner(),
      logger: createMemoryLogger(),
      sources: () => [{ label: "dir1", dir, location: "explicit" }],
      limits: { maxDepth: 8, maxDirs: 10_000 },
      rescanSeconds: 0.05,
      watch: true,
      debounceMs: 10,
      watchFn: () => ({ close() {} }),
      // No tick ever runs: only the poll can see the new folder.
      setInterval: () => 1,
      clearInterval: () => {},
    });
    await refresher.start();
    await refresher.watched;
    writeSkill(dir, "polled");
    // Polled by the runtime, then a scan: a few hundred ms here, seconds on a busy machine.
    expect(await eventually(() => store.catalog.get("polled"))).toBeDefined();
    refresher.stop();
  });

  test("a large catalog with a working watcher: at most CHECK_STATS skill folders and files a check, each once per sweep", async () => {
    const dir = tempDir();
    // 3,100 skills: 6,200 sliced entries, two slices of CHECK_STATS.
    const count = 3100;
    for (let i = 0; i < count; i++) {
      fs.mkdirSync(join(dir, `s-${i}`));
      fs.writeFileSync(join(dir, `s-${i}`, "SKILL.md"), `---\nname: s-${i}\ndescription: d\n---\nbody\n`);
    }
    const counting = countingFs();
    const { refresher, scanner } = await rig([dir], { watch: true, walkFs: counting.walkFs });
    expect(scanner.slicedEntries).toBe(2 * count);
    const slices = Math.ceil((2 * count) / CHECK_STATS);
    expect(slices).toBe(2);
    counting.reset();
    for (let i = 0; i < slices; i++) {
      const before = counting.statted();
      expect(await refresher.timerPass()).toBe("unchanged");
      const statted = counting.statted() - before;
      // The source folder, plus one slice.
      expect(statted).toBeLessThanOrEqual(CHECK_STATS + 1);
    }
    for (let i = 0; i < count; i += 97) {
      expect(counting.stats.get(join(dir, `s-${i}`, "SKILL.md"))).toBe(1);
      expect(counting.stats.get(join(dir, `s-${i}`))).toBe(1);
    }
    expect(counting.stats.get(dir)).toBe(slices);
    refresher.stop();
    // Without a working watcher, the slices stay SWEEP_TICKS and every file is statted each tick.
    expect(timerPlan(3, false, 2 * count)).toEqual({ skillDirs: "slice", files: "all", slices: SWEEP_TICKS, phase: 3 });
    expect(timerPlan(3, true, 10)).toEqual({ skillDirs: "slice", files: "slice", slices: 1, phase: 0 });
  });

  test("once a watcher fails, every tick stats every file", async () => {
    const dir = tempDir();
    for (let i = 0; i < 20; i++) writeSkill(dir, `s-${i}`);
    const counting = countingFs();
    const { refresher, failWatcher } = await rig([dir], { watch: true, walkFs: counting.walkFs });
    expect(refresher.watcherHealthy()).toBe(true);
    failWatcher(dir);
    expect(refresher.watcherHealthy()).toBe(false);
    // The failure's own rescan (what the watcher may have missed) comes first.
    await Bun.sleep(50);
    await refresher.rescan("settle");
    counting.reset();
    expect(await refresher.timerPass()).toBe("unchanged");
    for (let i = 0; i < 20; i++) expect(counting.stats.get(join(dir, `s-${i}`, "SKILL.md"))).toBe(1);
    // A new watcher is not set up again for that folder by later scans.
    await refresher.rescan("file change");
    expect(refresher.watcherHealthy()).toBe(false);
    refresher.stop();
  });

  test("a folder created inside a skill is found within one sweep", async () => {
    const dir = tempDir();
    writeSkill(dir, "outer");
    const { refresher, store } = await rig([dir], { watch: false });
    writeSkill(dir, "outer/inner");
    for (let i = 0; i < SWEEP_TICKS && !store.catalog.get("inner"); i++) await refresher.timerPass();
    expect(store.catalog.get("inner")?.dir).toBe(join(dir, "outer", "inner"));
    refresher.stop();
  });

  test("after a scan that could not read a file, the timer walks again instead of trusting stats", async () => {
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
    // Permissions fixed: no mtime changes, yet the next tick serves it.
    locked = false;
    expect(await refresher.timerPass()).toBe("unknown");
    expect(store.catalog.get("locked")).toBeDefined();
    expect(await refresher.timerPass()).toBe("unchanged");
    refresher.stop();
  });

  test("an unchanged tick keeps the catalog, so the tool list is computed once per catalog generation", async () => {
    const dir = tempDir();
    writeSkill(dir, "a");
    const { hub } = await open({ flags: { "skills-dir": [dir] } });
    const catalog = hub.catalog;
    const tools = hub.tools();
    expect(await hub.refresher.timerPass()).toBe("unchanged");
    await hub.refresher.rescan("refresh_skills");
    expect(hub.catalog).toBe(catalog);
    expect(hub.tools()).toBe(tools);
    writeSkill(dir, "b");
    expect(await hub.refresher.timerPass()).toBe("changed");
    expect(hub.catalog.generation).toBe(catalog.generation + 1);
    expect(hub.tools()).not.toBe(tools);
    expect(hub.tools()).toBe(hub.tools());
  });
});
