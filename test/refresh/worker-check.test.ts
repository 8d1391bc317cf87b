import { afterAll, expect, test } from "bun:test";
import { linkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { Refresher } from "../../src/refresh/refresher.ts";
import { WORKER_CHECK_TICKS } from "../../src/refresh/timer-plan.ts";
import { WATCH_IN_WORKER_DIRS } from "../../src/refresh/watcher.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/hub.ts";

afterAll(cleanupTemp);

// The watch worker takes large folders on Linux only (elsewhere one recursive watch needs no walk).
test.skipIf(process.platform !== "linux")(
  "a large folder watched in the worker: the worker runs the watched check, finds an edit its watcher missed, and runs it again after the scan",
  async () => {
    const root = tempDir("skillhub-worker-check-");
    for (let i = 0; i < WATCH_IN_WORKER_DIRS; i++) writeSkill(root, `skill-${String(i).padStart(4, "0")}`);
    const store = new CatalogStore();
    const scanner = new Scanner();
    let verifies = 0;
    const verify = scanner.verify.bind(scanner);
    scanner.verify = (...args) => {
      verifies++;
      return verify(...args);
    };
    let tick = () => {};
    const refresher = new Refresher({
      store,
      scanner,
      logger: createMemoryLogger(),
      sources: () => [{ label: "big", dir: root, location: "explicit" }],
      limits: { maxDepth: 8, maxDirs: 10_000 },
      // The worker's check every WORKER_CHECK_TICKS (40) ticks: 0.4 s.
      rescanSeconds: 0.01,
      watch: true,
      debounceMs: 10,
      setInterval: (fn) => {
        tick = fn;
        return 1;
      },
      clearInterval: () => {},
    });
    try {
      await refresher.start();
      await refresher.watched;
      const afterStart = verifies;
      // The server's own ticks check nothing: the worker does.
      for (let i = 0; i < 3 * WORKER_CHECK_TICKS; i++) tick();
      await Bun.sleep(50);
      expect(verifies).toBe(afterStart);
      // Written through a hard link outside the watched folder, so inotify reports nothing for it.
      const unwatched = tempDir("skillhub-worker-check-link-");
      const editUnseen = async (name: string, description: string) => {
        const link = join(unwatched, `${name}.md`);
        linkSync(join(root, name, "SKILL.md"), link);
        writeFileSync(link, `---\nname: ${name}\ndescription: ${description}\n---\n\n# Edited\n`);
        const now = () => store.catalog.skills.find((s) => s.name === name)?.description;
        // The worker's next check (0.4 s apart here), then a rescan: seconds on a busy machine (3 s was
        // once not enough with a core kept busy).
        await eventually(() => now() === description);
        return now();
      };
      expect(await editUnseen("skill-0007", "Edited where no watcher looks.")).toBe("Edited where no watcher looks.");
      // The scan that followed handed the check over again: the server's ticks still check nothing.
      const afterScan = verifies;
      for (let i = 0; i < 3 * WORKER_CHECK_TICKS; i++) tick();
      await Bun.sleep(50);
      expect(verifies).toBe(afterScan);
      expect(await editUnseen("skill-0500", "Edited again.")).toBe("Edited again.");
    } finally {
      refresher.stop();
    }
  },
);
