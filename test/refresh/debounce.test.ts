import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/catalog/catalog.ts";
import type { Scanner } from "../../src/catalog/scanner.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { Refresher } from "../../src/refresh/refresher.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";

/** A refresher whose scans are only counted; `change()` is what a watcher event calls. */
function counted(debounceMs: number, maxWaitMs?: number) {
  let scans = 0;
  const scanner = {
    scanAsync: async () => {
      scans++;
      return Catalog.empty();
    },
  } as unknown as Scanner;
  const refresher = new Refresher({
    store: new CatalogStore(),
    scanner,
    logger: createMemoryLogger(),
    sources: () => [],
    limits: { maxDepth: 8, maxDirs: 100 },
    rescanSeconds: 0,
    watch: false,
    debounceMs,
    maxWaitMs,
  });
  const change = () => (refresher as unknown as { changed(): void }).changed();
  return { refresher, change, scans: () => scans };
}

describe("watcher debounce with a maximum wait", () => {
  test("a file written every 25 ms still produces rescans while the writes go on", async () => {
    const { refresher, change, scans } = counted(500, 1000);
    const stop = Date.now() + 4000;
    while (Date.now() < stop && scans() === 0) {
      change();
      await Bun.sleep(25);
    }
    // A plain debounce would never have fired: every write pushed it back by 500 ms.
    expect(scans()).toBeGreaterThan(0);
    refresher.stop();
  }, 30_000);

  test("a burst followed by quiet gives one scan after the debounce", async () => {
    const { refresher, change, scans } = counted(100);
    for (let i = 0; i < 5; i++) change();
    const stop = Date.now() + 5000;
    while (scans() === 0 && Date.now() < stop) await Bun.sleep(20);
    await Bun.sleep(300);
    expect(scans()).toBe(1);
    refresher.stop();
  }, 30_000);
});
