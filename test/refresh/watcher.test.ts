import { afterAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import {
  appendFileSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
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
import { Walker, type WalkFs } from "../../src/sources/walk.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { runCli } from "../helpers/cli.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/hub.ts";

afterAll(cleanupTemp);

/** A file system that counts the stats made through it. */
function countingFs() {
  const counted = { stats: 0 };
  const walkFs: WalkFs = {
    statSync: (path) => {
      counted.stats++;
      return fs.statSync(path);
    },
    readdirSync: (path, options) => fs.readdirSync(path, options),
    realpathSync: (path) => fs.realpathSync(path),
  };
  return { walkFs, counted };
}

/** A refresher over `dir` with watches through `watchFn` (real ones by default) and a timer that never fires. */
async function watchedRefresher(dir: string, watchFn: WatchFn = defaultWatch, walkFs?: WalkFs, watchBudget?: number) {
  const store = new CatalogStore();
  const logger = createMemoryLogger();
  const scanner = new Scanner(walkFs ? new Walker(walkFs) : undefined);
  const refresher = new Refresher({
    store,
    scanner,
    logger,
    sources: () => [{ label: "dir1", dir, location: "explicit" }],
    limits: { maxDepth: 8, maxDirs: 10_000 },
    rescanSeconds: 30,
    watch: true,
    debounceMs: 10,
    watchFn,
    watchBudget,
    setInterval: () => 1,
    clearInterval: () => {},
  });
  await refresher.start();
  await refresher.watched;
  return { refresher, store, logger, scanner };
}

/** Counts the rescans `refresher` starts from now on. */
function countRescans(refresher: Refresher): { count: number } {
  const scans = { count: 0 };
  const rescan = refresher.rescan.bind(refresher);
  refresher.rescan = (reason) => {
    scans.count++;
    return rescan(reason);
  };
  return scans;
}

/** `root` with two collections of skills, each skill holding resource folders. */
function collections(): string {
  const root = realpathSync(tempDir("skillhub-watch-"));
  for (const name of ["team/alpha", "team/beta", "personal/gamma", "loose"]) {
    writeSkill(root, name);
    mkdirSync(join(root, name, "scripts", "lib"), { recursive: true });
  }
  return root;
}

/** `collections()` with a skill linked in from a folder elsewhere (as installers link skills). */
function withLinkedSkill(): { root: string; elsewhere: string } {
  const root = collections();
  const elsewhere = realpathSync(tempDir("skillhub-watch-linked-"));
  writeSkill(elsewhere, "installed");
  symlinkSync(join(elsewhere, "installed"), join(root, "installed"));
  return { root, elsewhere };
}

/** Watches are relied on for edits inside a skill on Linux only (FolderWatchers' `trusted`). */
const onLinux = test.skipIf(process.platform !== "linux");

/** Watches that never report anything, recording what was asked. */
function silentWatches() {
  const asked: [string, boolean][] = [];
  const watchFn: WatchFn = (path, recursive) => {
    asked.push([path, recursive]);
    return { close() {} };
  };
  return { asked, watchFn };
}

describe("a watch on each source folder, covering every folder below it", () => {
  test("each source folder is watched once, with everything below it; a folder linked in from elsewhere gets its own", async () => {
    const { root, elsewhere } = withLinkedSkill();
    const { asked, watchFn } = silentWatches();
    const { refresher } = await watchedRefresher(root, watchFn);
    const expected: [string, boolean][] = [
      [root, true],
      [join(elsewhere, "installed"), true],
    ];
    expect(asked.sort()).toEqual(expected.sort());
    expect(refresher.watchCoverage).toEqual({ wanted: 2, watched: 2, inputs: 0, refused: 0, remote: 0, large: 0 });
    refresher.stop();
  });

  test("an edit inside a skill, a skill added and one removed are served without any tick of the timer", async () => {
    const root = collections();
    const { refresher, store } = await watchedRefresher(root);
    writeSkill(root, "team/alpha", { description: "Edited by hand, in place." });
    await eventually(() => store.catalog.get("alpha")?.description === "Edited by hand, in place.");
    writeSkill(root, "team/delta");
    await eventually(() => store.catalog.get("delta"));
    writeSkill(root, "incoming/deep/epsilon");
    await eventually(() => store.catalog.get("epsilon"));
    rmSync(join(root, "personal", "gamma"), { recursive: true });
    await eventually(() => !store.catalog.get("gamma"));
    refresher.stop();
  });

  test("a source folder made while the server runs is served without waiting for the timer", async () => {
    const project = realpathSync(tempDir("skillhub-watch-project-"));
    const source = join(project, ".agents", "skills");
    const { refresher, store } = await watchedRefresher(source);
    const scans = countRescans(refresher);
    // The timer never fires here: only the watch on the project folder can bring the skill in.
    writeSkill(source, "translate");
    await eventually(() => store.catalog.get("translate"));
    expect(scans.count).toBeGreaterThan(0);
    const before = scans.count;
    writeSkill(source, "summarize");
    await eventually(() => store.catalog.get("summarize"));
    // The source folder is watched with everything below it now, its parent no longer.
    expect(refresher.watchCoverage).toMatchObject({ watched: 1, inputs: 0 });
    expect(scans.count).toBeGreaterThan(before);
    refresher.stop();
  });

  test("a source folder removed and made again is watched again (a watch follows the folder, not its path)", async () => {
    const root = collections();
    const { asked, watchFn } = silentWatches();
    const { refresher, store } = await watchedRefresher(root, watchFn);
    expect(asked).toEqual([[root, true]]);
    rmSync(root, { recursive: true });
    writeSkill(root, "again");
    // The source folder's own change is the check's to find: no watch is set above it.
    expect(await refresher.check("timer", "unwatched")).toBe("changed");
    expect(store.catalog.get("again")).toBeDefined();
    expect(asked).toEqual([
      [root, true],
      [root, true],
    ]);
    refresher.stop();
  });

  onLinux("the timer's check stats only what no working watch covers: the source and collection folders", async () => {
    const root = collections();
    const { walkFs, counted } = countingFs();
    const { watchFn } = silentWatches();
    const { refresher } = await watchedRefresher(root, watchFn, walkFs);
    counted.stats = 0;
    expect(await refresher.check("timer", "unwatched")).toBe("unchanged");
    // The source folder and its two collections; no skill folder, no folder inside one, no SKILL.md.
    expect(counted.stats).toBe(3);
    // An edit inside a skill is the watch's to report (this one never does); a full check still finds it.
    appendFileSync(join(root, "loose", "SKILL.md"), "\nMore.\n");
    expect(await refresher.check("timer", "unwatched")).toBe("unchanged");
    expect(await refresher.check()).toBe("changed");
    refresher.stop();
  });

  onLinux("a folder linked in whose watch stopped is statted whole by the timer's check", async () => {
    const { root, elsewhere } = withLinkedSkill();
    const errors = new Map<string, (error: unknown) => void>();
    const { refresher, logger } = await watchedRefresher(root, (path, _recursive, _onChange, onError) => {
      errors.set(path, onError);
      return { close() {} };
    });
    errors.get(join(elsewhere, "installed"))?.(new Error("EIO: watch failed"));
    await eventually(() => logger.lines.some((line) => line.includes("stopped (EIO: watch failed)")));
    appendFileSync(join(elsewhere, "installed", "SKILL.md"), "\nMore.\n");
    expect(await refresher.check("timer", "unwatched")).toBe("changed");
    // The watched source's own skills stay the watch's.
    appendFileSync(join(root, "loose", "SKILL.md"), "\nMore.\n");
    expect(await refresher.check("timer", "unwatched")).toBe("unchanged");
    refresher.stop();
  });

  test("when the system refuses watches part of the way, the log says so once, naming the limit; the check covers that source", async () => {
    const root = collections();
    const refusing: WatchFn = (path, _recursive, _onChange, onError) => {
      setImmediate(() =>
        onError(Object.assign(new Error(`ENOSPC: no space left on device, watch '${path}/team'`), { code: "ENOSPC" })),
      );
      return { close() {} };
    };
    const { refresher, logger, store } = await watchedRefresher(root, refusing);
    await eventually(() => refresher.watchCoverage?.refused === 1);
    expect(refresher.watchCoverage).toEqual({ wanted: 1, watched: 0, inputs: 0, refused: 1, remote: 0, large: 0 });
    const warnings = () => logger.lines.filter((line) => line.includes("refused"));
    await eventually(() => warnings().length === 1);
    expect(warnings()[0]).toContain("the system refused file watches on 1 of 1 folders");
    expect(warnings()[0]).toContain("fs.inotify.max_user_watches");
    expect(warnings()[0]).toContain("found by the stat check every 30 s");
    // A scan later, still refused: not tried nor said again.
    await refresher.rescan("test");
    expect(warnings()).toHaveLength(1);
    // What the refused watch would have seen is found by the timer's check.
    writeSkill(root, "team/zeta");
    expect(await refresher.check("timer", "unwatched")).toBe("changed");
    expect(store.catalog.get("zeta")).toBeDefined();
    refresher.stop();
  });

  onLinux(
    "a link that leads nowhere, or through another link, is checked by the timer: where it leads can change unseen",
    async () => {
      const { root, elsewhere } = withLinkedSkill();
      writeSkill(join(elsewhere, "v1"), "versioned", { description: "The first version." });
      writeSkill(join(elsewhere, "v2"), "versioned", { description: "The second version, longer." });
      symlinkSync(join(elsewhere, "v1"), join(elsewhere, "current"));
      symlinkSync(join(elsewhere, "current", "versioned"), join(root, "versioned"));
      const { refresher, store } = await watchedRefresher(root, silentWatches().watchFn);
      expect(store.catalog.get("versioned")?.description).toBe("The first version.");
      // The link's target goes (its watch's rescan records the link as leading nowhere), then comes back.
      rmSync(join(elsewhere, "installed"), { recursive: true });
      await refresher.rescan("file change");
      expect(store.catalog.get("installed")).toBeUndefined();
      writeSkill(elsewhere, "installed");
      expect(await refresher.check("timer", "unwatched")).toBe("changed");
      expect(store.catalog.get("installed")).toBeDefined();
      // A link on the way is retargeted: no watched folder changes.
      rmSync(join(elsewhere, "current"));
      symlinkSync(join(elsewhere, "v2"), join(elsewhere, "current"));
      expect(await refresher.check("timer", "unwatched")).toBe("changed");
      expect(store.catalog.get("versioned")?.description).toBe("The second version, longer.");
      refresher.stop();
    },
  );

  onLinux(
    "a SKILL.md with a second name elsewhere is checked by the timer: an edit through that name is seen by no watch here",
    async () => {
      const root = collections();
      const elsewhere = realpathSync(tempDir("skillhub-watch-hardlink-"));
      writeSkill(elsewhere, "shared", { description: "Before the edit." });
      mkdirSync(join(root, "shared"));
      linkSync(join(elsewhere, "shared", "SKILL.md"), join(root, "shared", "SKILL.md"));
      const { refresher, store } = await watchedRefresher(root, silentWatches().watchFn);
      expect(store.catalog.get("shared")?.description).toBe("Before the edit.");
      // Rewritten in place through the other name (the same file, so both names see it).
      const other = join(elsewhere, "shared", "SKILL.md");
      writeFileSync(other, readFileSync(other, "utf8").replace("Before the edit.", "After the edit, longer."));
      expect(await refresher.check("timer", "unwatched")).toBe("changed");
      expect(store.catalog.get("shared")?.description).toBe("After the edit, longer.");
      // A file with one name is left to its folder's watch: an edit the silent watch does not report waits for a full check.
      writeSkill(root, "team/alpha", { description: "Edited where only a watch would see it." });
      expect(await refresher.check("timer", "unwatched")).toBe("unchanged");
      refresher.stop();
    },
  );

  test("a source link retargeted to a folder with the same mtime serves the new folder's skills", async () => {
    const base = realpathSync(tempDir("skillhub-watch-retarget-"));
    writeSkill(join(base, "a"), "first");
    writeSkill(join(base, "b"), "second");
    // Two folders made in the same clock tick, or unpacked from one archive, carry the same mtime.
    for (const dir of ["a", "b"]) utimesSync(join(base, dir), 1_700_000_000, 1_700_000_000);
    symlinkSync(join(base, "a"), join(base, "current"));
    const { refresher, store } = await watchedRefresher(join(base, "current"), silentWatches().watchFn);
    expect(store.catalog.get("first")).toBeDefined();
    symlinkSync(join(base, "b"), join(base, "next"));
    renameSync(join(base, "next"), join(base, "current"));
    expect(await refresher.check("timer", "unwatched")).toBe("changed");
    expect(store.catalog.skills.map((s) => s.name)).toEqual(["second"]);
    refresher.stop();
  });

  test("a Markdown file linked from outside the source is refused once, and the check then finds nothing to rescan", async () => {
    const root = collections();
    const elsewhere = realpathSync(tempDir("skillhub-watch-linked-md-"));
    writeFileSync(join(elsewhere, "notes.md"), "---\nname: notes\ndescription: Kept elsewhere.\n---\nbody\n");
    symlinkSync(join(elsewhere, "notes.md"), join(root, "notes.md"));
    const { refresher, store } = await watchedRefresher(root, silentWatches().watchFn);
    expect(store.catalog.get("notes")).toBeUndefined();
    expect(await refresher.check("timer")).toBe("unchanged");
    refresher.stop();
  });

  test("a folder watched after a later scan is checked whole once its watch is set; a full check waits for a scan under way", async () => {
    const root = collections();
    const elsewhere = realpathSync(tempDir("skillhub-watch-later-"));
    writeSkill(elsewhere, "installed");
    const { asked, watchFn } = silentWatches();
    const { refresher, scanner } = await watchedRefresher(root, watchFn);
    const checks: ("all" | "unwatched")[] = [];
    const verify = scanner.verify.bind(scanner);
    scanner.verify = (sources, tick, covers) => {
      checks.push(covers ? "unwatched" : "all");
      return verify(sources, tick, covers);
    };
    symlinkSync(join(elsewhere, "installed"), join(root, "installed"));
    await refresher.rescan("file change");
    expect(asked).toContainEqual([join(elsewhere, "installed"), true]);
    await eventually(() => checks.includes("all"));

    // A full check asked for while a timer check runs, and a scan starts meanwhile: it checks after the scan.
    checks.length = 0;
    const timer = refresher.check("timer", "unwatched");
    const full = refresher.check("list");
    const scan = refresher.rescan("file change");
    writeSkill(root, "team/late");
    await Promise.all([timer, scan]);
    expect(await full).not.toBe("skipped");
    expect(checks).toEqual(["unwatched", "all"]);
    refresher.stop();
  });

  test("a source folder that goes is no longer taken as watched, and is watched again when it comes back", async () => {
    const root = realpathSync(tempDir("skillhub-watch-gone-"));
    writeSkill(root, "a");
    const reports: ((name?: string, event?: string) => void)[] = [];
    const { refresher } = await watchedRefresher(root, (_path, _recursive, onChange) => {
      reports.push(onChange);
      return { close() {} };
    });
    expect(refresher.watchCoverage?.watched).toBe(1);
    // What a watch reports when the folder it is set on is removed: a change with no name.
    reports[0]?.(undefined, "rename");
    expect(refresher.watchCoverage?.watched).toBe(0);
    await eventually(() => reports.length === 2);
    expect(refresher.watchCoverage?.watched).toBe(1);
    refresher.stop();
  });

  test("a watch that stops is logged, rescanned for what it missed, and not set up again while wanted", async () => {
    const root = tempDir("skillhub-watch-stop-");
    writeSkill(root, "a");
    const errors = new Map<string, (error: unknown) => void>();
    let setUps = 0;
    const { refresher, logger } = await watchedRefresher(root, (path, _recursive, _onChange, onError) => {
      setUps++;
      errors.set(path, onError);
      return { close() {} };
    });
    const scans = countRescans(refresher);
    errors.get(realpathSync(root))?.(new Error("EIO: watch failed"));
    await eventually(() => scans.count > 0);
    await refresher.rescan("test");
    expect(setUps).toBe(1);
    expect(refresher.watchCoverage?.watched).toBe(0);
    expect(logger.lines.join("\n")).toContain(`the watch on ${realpathSync(root)} stopped (EIO: watch failed)`);
    refresher.stop();
  });

  test("a change inside .git or __pycache__, or new content in a file no scan reads, is no reason to rescan; any other is", async () => {
    const root = tempDir("skillhub-watch-skipped-");
    writeSkill(root, "a");
    let report: (name?: string, event?: string) => void = () => {};
    const { refresher } = await watchedRefresher(root, (_path, _recursive, onChange) => {
      report = onChange;
      return { close() {} };
    });
    const scans = countRescans(refresher);
    report(".git/objects/ab/cdef", "rename");
    report("a/scripts/__pycache__/run.cpython-312.pyc", "rename");
    report("a/node_modules/left-pad/index.js", "change");
    // New content in a file no scan reads: a script's log, an editor's swap file.
    report("a/scripts/run.log", "change");
    report("a/.SKILL.md.swp", "change");
    // A change a watch reported and the debounce holds is rescanned by the next call's check.
    await refresher.checkNow();
    expect(scans.count).toBe(0);
    report("a/SKILL.md", "change");
    await refresher.checkNow();
    expect(scans.count).toBe(1);
    report("a/scripts/new.py", "rename");
    await refresher.checkNow();
    expect(scans.count).toBe(2);
    refresher.stop();
  });

  test("a source holding node_modules, or more folders than the budget, is left to the stat check and said once", async () => {
    const withDependencies = collections();
    mkdirSync(join(withDependencies, "loose", "scripts", "node_modules", "left-pad"), { recursive: true });
    const { asked, watchFn } = silentWatches();
    const { refresher, logger } = await watchedRefresher(withDependencies, watchFn);
    expect(asked).toEqual([]);
    expect(refresher.watchCoverage).toEqual({ wanted: 0, watched: 0, inputs: 0, refused: 0, remote: 0, large: 1 });
    const said = () => logger.lines.filter((line) => line.includes(`not watching ${withDependencies}`));
    expect(said()).toHaveLength(1);
    expect(said()[0]).toContain("it holds node_modules or .venv");
    expect(said()[0]).toContain("found by the stat check every 30 s");
    await refresher.rescan("test");
    expect(said()).toHaveLength(1);
    appendFileSync(join(withDependencies, "team", "alpha", "SKILL.md"), "\nMore.\n");
    expect(await refresher.check("timer", "unwatched")).toBe("changed");
    refresher.stop();

    const many = collections();
    const small = await watchedRefresher(many, silentWatches().watchFn, undefined, 5);
    expect(small.refresher.watchCoverage?.large).toBe(1);
    expect(small.logger.lines.join("\n")).toContain(
      "folders would take the watches past a quarter of the system's limit (5)",
    );
    small.refresher.stop();
  });

  test("a folder on a network file system is not watched and nothing below it is left to a watch", () => {
    const root = collections();
    const { asked, watchFn } = silentWatches();
    const watchers = new FolderWatchers({
      logger: createMemoryLogger(),
      rescanSeconds: 30,
      changed: () => undefined,
      watchFn,
      local: (path) => path !== root,
      trusted: true,
    });
    const other = tempDir("skillhub-watch-local-");
    expect(watchers.sync({ roots: [root, other], mounts: [], inputs: [], unwatched: [] })).toEqual({
      wanted: 1,
      watched: 1,
      inputs: 0,
      refused: 0,
      remote: 1,
      large: 0,
    });
    expect(asked).toEqual([[other, true]]);
    expect(watchers.covers?.(join(root, "team"))).toBe(false);
    expect(watchers.covers?.(join(other, "any", "folder"))).toBe(true);
    watchers.close();
  });

  test("where a missing source folder will appear is watched for the entry leading to it, and only for it", () => {
    const project = realpathSync(tempDir("skillhub-watch-awaited-"));
    const handlers = new Map<string, (name?: string, event?: string) => void>();
    const watchFn: WatchFn = (path, _recursive, onChange) => {
      handlers.set(path, onChange);
      return { close: () => handlers.delete(path) };
    };
    const changes = { count: 0 };
    const watchers = new FolderWatchers({
      logger: createMemoryLogger(),
      rescanSeconds: 30,
      changed: () => changes.count++,
      watchFn,
    });
    const absent = [join(project, ".agents", "skills"), join(project, ".claude", "skills")];
    watchers.sync({ roots: [], mounts: [], inputs: [], unwatched: [], absent });
    expect([...handlers.keys()]).toEqual([project]);
    handlers.get(project)?.("notes.txt", "rename");
    handlers.get(project)?.("src", "rename");
    expect(changes.count).toBe(0);
    handlers.get(project)?.(".claude", "rename");
    expect(changes.count).toBe(1);
    // One step closer: the folder made is watched for the next entry, the project no longer.
    mkdirSync(join(project, ".claude"));
    watchers.sync({ roots: [], mounts: [], inputs: [], unwatched: [], absent });
    expect([...handlers.keys()].sort()).toEqual([project, join(project, ".claude")]);
    handlers.get(join(project, ".claude"))?.("settings.json", "change");
    expect(changes.count).toBe(1);
    handlers.get(join(project, ".claude"))?.("skills", "rename");
    expect(changes.count).toBe(2);
    // Nothing is watched above a path that exists (a file where the folder should be: the check's).
    writeFileSync(join(project, "file"), "");
    watchers.sync({ roots: [], mounts: [], inputs: [], unwatched: [], absent: [join(project, "file")] });
    expect([...handlers.keys()]).toEqual([]);
    watchers.close();
  });

  test("a file system on the network mounted inside a watched source is left to the check", () => {
    const root = tempDir("skillhub-watch-mount-");
    const mount = join(root, "team-share");
    const watchers = new FolderWatchers({
      logger: createMemoryLogger(),
      rescanSeconds: 30,
      changed: () => undefined,
      watchFn: silentWatches().watchFn,
      local: (path) => path !== mount,
      trusted: true,
    });
    expect(watchers.sync({ roots: [root], mounts: [mount], inputs: [], unwatched: [] }).remote).toBe(1);
    expect(watchers.covers?.(join(mount, "skill"))).toBe(false);
    expect(watchers.covers?.(join(root, "skill"))).toBe(true);
    watchers.close();
  });

  test("where watches are not trusted to report edits, nothing is left to them", () => {
    const root = tempDir("skillhub-watch-untrusted-");
    const watchers = new FolderWatchers({
      logger: createMemoryLogger(),
      rescanSeconds: 30,
      changed: () => undefined,
      watchFn: silentWatches().watchFn,
      trusted: false,
    });
    watchers.sync({ roots: [root], mounts: [], inputs: [], unwatched: [] });
    expect(watchers.covers).toBeUndefined();
    watchers.close();
  });

  test("a folder that is gone is skipped without a word; closing stops every watch", () => {
    const closed: string[] = [];
    const logger = createMemoryLogger();
    const watchers = new FolderWatchers({
      logger,
      rescanSeconds: 30,
      changed: () => undefined,
      watchFn: (path, recursive, onChange, onError) => {
        const watching = defaultWatch(path, recursive, onChange, onError);
        return {
          close() {
            closed.push(path);
            watching.close();
          },
        };
      },
    });
    const root = tempDir("skillhub-watch-close-");
    expect(watchers.sync({ roots: [root, join(root, "missing")], mounts: [], inputs: [], unwatched: [] })).toEqual({
      wanted: 2,
      watched: 1,
      inputs: 0,
      refused: 0,
      remote: 0,
      large: 0,
    });
    expect(logger.lines).toEqual([]);
    watchers.close();
    expect(closed).toEqual([root]);
  });
});

describe("doctor and the watches", () => {
  test("doctor says what a server here watches, in text and JSON", async () => {
    const root = collections();
    const text = await runCli(["doctor", "--skills-dir", root]);
    expect(text.out).toContain(
      "rescan: a stat check every 30 s of what no watch covers; watcher: on, 1 folder and every folder below them",
    );
    const json = await runCli(["doctor", "--json", "--skills-dir", root]);
    expect(JSON.parse(json.out).watches).toMatchObject({ watched: 1, refused: 0, remote: 0, large: 0 });
    const off = await runCli(["doctor", "--skills-dir", root], { SKILLHUB_WATCH: "0" });
    expect(off.out).toContain("rescan: a stat check every 30 s of every folder and skill file; watcher: off");
  });

  test("a refused watch is shown with the limit, what covers the folder, and how to raise it", async () => {
    const root = collections();
    const refusing: WatchFn = (path, recursive, onChange, onError) => {
      if (path === root) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      return defaultWatch(path, recursive, onChange, onError);
    };
    const coverage = await probeWatches(
      { roots: [root, join(root, "team")], mounts: [], inputs: [], unwatched: [] },
      refusing,
    );
    expect(coverage).toEqual({ wanted: 2, watched: 1, inputs: 0, refused: 1, remote: 0, large: 0 });
    const line = describeWatches(coverage, 30);
    expect(line).toStartWith("on, 1 folder and every folder below them; the system refused 1 more");
    expect(line).toContain("fs.inotify.max_user_watches");
    expect(line).toContain("found by the stat check every 30 s");
    expect(line).toContain("sysctl fs.inotify.max_user_watches=");
    expect(describeWatches(coverage, 0)).toContain("no stat check (SKILLHUB_RESCAN_SECONDS is 0)");
    expect(describeWatches({ wanted: 1, watched: 0, inputs: 0, refused: 0, remote: 1, large: 0 }, 30)).toContain(
      "1 folder on a network file system not watched: covered by the stat check every 30 s",
    );
    expect(describeWatches({ wanted: 0, watched: 0, inputs: 0, refused: 0, remote: 0, large: 1 }, 30)).toContain(
      "on, no folder watched; 1 source folder not watched (a node_modules or .venv in it, deeper than sources.max_depth, or more folders than a quarter of fs.inotify.max_user_watches): covered by the stat check every 30 s",
    );
  });
});
