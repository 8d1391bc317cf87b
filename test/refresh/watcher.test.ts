import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import {
  defaultWatch,
  describeWatches,
  FolderWatchers,
  probeWatches,
  type WatchFn,
} from "../../src/refresh/folder-watchers.ts";
import { Refresher } from "../../src/refresh/refresher.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { runCli } from "../helpers/cli.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/hub.ts";

afterAll(cleanupTemp);

/** A refresher over `dir` with real watches (through `watchFn`) and a timer that never fires. */
async function watchedRefresher(dir: string, watchFn: WatchFn = defaultWatch) {
  const store = new CatalogStore();
  const logger = createMemoryLogger();
  const refresher = new Refresher({
    store,
    scanner: new Scanner(),
    logger,
    sources: () => [{ label: "dir1", dir, location: "explicit" }],
    limits: { maxDepth: 8, maxDirs: 10_000 },
    rescanSeconds: 30,
    watch: true,
    debounceMs: 10,
    watchFn,
    setInterval: () => 1,
    clearInterval: () => {},
  });
  await refresher.start();
  await refresher.watched;
  return { refresher, store, logger };
}

/** `root` with two collections of skills, each skill holding resource folders. */
function collections(): string {
  const root = tempDir("skillhub-watch-");
  for (const name of ["team/alpha", "team/beta", "personal/gamma", "loose"]) {
    writeSkill(root, name);
    mkdirSync(join(root, name, "scripts", "lib"), { recursive: true });
  }
  return root;
}

describe("watches on the folders where skills appear", () => {
  test("the source folder and its collections are watched; no skill folder, nor any folder inside one", async () => {
    const root = collections();
    const watched: string[] = [];
    const { refresher } = await watchedRefresher(root, (path, onChange, onError) => {
      watched.push(path);
      return defaultWatch(path, onChange, onError);
    });
    expect(watched.sort()).toEqual([root, join(root, "personal"), join(root, "team")]);
    expect(refresher.watchCoverage).toEqual({ wanted: 3, watched: 3, refused: 0 });
    refresher.stop();
  });

  test("a skill added to a collection, and one removed, are served without any tick of the timer", async () => {
    const root = collections();
    const { refresher, store } = await watchedRefresher(root);
    writeSkill(root, "team/delta");
    await eventually(() => store.catalog.get("delta"));
    // The new skill's folder is a skill: still not watched; its collection still is.
    expect(refresher.watchTargets()).not.toContain(join(root, "team", "delta"));
    const { rmSync } = await import("node:fs");
    rmSync(join(root, "personal", "gamma"), { recursive: true });
    await eventually(() => !store.catalog.get("gamma"));
    refresher.stop();
  });

  test("a folder that becomes a collection is watched after the scan that finds it", async () => {
    const root = collections();
    const { refresher, store } = await watchedRefresher(root);
    mkdirSync(join(root, "incoming"));
    await eventually(() => refresher.watchTargets().includes(join(root, "incoming")));
    writeSkill(root, "incoming/epsilon");
    await eventually(() => store.catalog.get("epsilon"));
    refresher.stop();
  });

  test("when the system refuses watches for want of them, the log says so once, naming the limit and the stat check", async () => {
    const root = collections();
    const refusing: WatchFn = (path, onChange, onError) => {
      if (path !== root)
        throw Object.assign(new Error(`ENOSPC: no space left on device, watch '${path}'`), { code: "ENOSPC" });
      return defaultWatch(path, onChange, onError);
    };
    const { refresher, logger, store } = await watchedRefresher(root, refusing);
    expect(refresher.watchCoverage).toEqual({ wanted: 3, watched: 1, refused: 2 });
    const warnings = () => logger.lines.filter((line) => line.includes("refused"));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("the system refused 2 of 3 file watches");
    expect(warnings()[0]).toContain("fs.inotify.max_user_watches");
    expect(warnings()[0]).toContain("found by the stat check every 30 s");
    // A scan later, still refused: not said again.
    await refresher.rescan("test");
    expect(warnings()).toHaveLength(1);
    // What the refused watch would have seen is found by the check.
    writeSkill(root, "team/zeta");
    expect(await refresher.check()).toBe("changed");
    expect(store.catalog.get("zeta")).toBeDefined();
    refresher.stop();
  });

  test("a watch that stops is logged, rescanned for what it missed, and not set up again while wanted", async () => {
    const root = tempDir("skillhub-watch-stop-");
    writeSkill(root, "a");
    const errors = new Map<string, (error: unknown) => void>();
    let setUps = 0;
    const { refresher, logger } = await watchedRefresher(root, (path, _onChange, onError) => {
      setUps++;
      errors.set(path, onError);
      return { close() {} };
    });
    let scans = 0;
    const rescan = refresher.rescan.bind(refresher);
    refresher.rescan = (reason) => {
      scans++;
      return rescan(reason);
    };
    errors.get(root)?.(new Error("EIO: watch failed"));
    await eventually(() => scans > 0);
    await refresher.rescan("test");
    expect(setUps).toBe(1);
    expect(refresher.watchCoverage?.watched).toBe(0);
    expect(logger.lines.join("\n")).toContain(`the watch on ${root} stopped (EIO: watch failed)`);
    refresher.stop();
  });

  test("a folder that is gone is skipped without a word; closing stops every watch", () => {
    const closed: string[] = [];
    const logger = createMemoryLogger();
    const watchers = new FolderWatchers({
      logger,
      rescanSeconds: 30,
      changed: () => undefined,
      watchFn: (path, onChange, onError) => {
        const watching = defaultWatch(path, onChange, onError);
        return {
          close() {
            closed.push(path);
            watching.close();
          },
        };
      },
    });
    const root = tempDir("skillhub-watch-close-");
    expect(watchers.sync([root, join(root, "missing")])).toEqual({ wanted: 2, watched: 1, refused: 0 });
    expect(logger.lines).toEqual([]);
    watchers.close();
    expect(closed).toEqual([root]);
  });
});

describe("doctor and the watches", () => {
  test("doctor names how many folders a server here watches, in text and JSON", async () => {
    const root = collections();
    const text = await runCli(["doctor", "--skills-dir", root]);
    expect(text.out).toContain("rescan: a stat check every 30 s; watcher: on, 3 folders where skills appear");
    const json = await runCli(["doctor", "--json", "--skills-dir", root]);
    expect(JSON.parse(json.out).watches).toMatchObject({ watched: 3, refused: 0 });
    const off = await runCli(["doctor", "--skills-dir", root], { SKILLHUB_WATCH: "0" });
    expect(off.out).toContain("watcher: off");
  });

  test("a refused watch is shown with the limit, what covers the folder, and how to raise it", () => {
    const root = collections();
    const refusing: WatchFn = (path, onChange, onError) => {
      if (path === root) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      return defaultWatch(path, onChange, onError);
    };
    const coverage = probeWatches([root, join(root, "team"), join(root, "personal")], refusing);
    expect(coverage).toEqual({ wanted: 3, watched: 2, refused: 1 });
    const line = describeWatches(coverage, 30);
    expect(line).toStartWith("on, 2 folders where skills appear; the system refused 1 more");
    expect(line).toContain("fs.inotify.max_user_watches");
    expect(line).toContain("found by the stat check every 30 s");
    expect(line).toContain("sysctl fs.inotify.max_user_watches=");
    expect(describeWatches(coverage, 0)).toContain("no stat check (SKILLHUB_RESCAN_SECONDS is 0)");
  });
});
