import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { INDEX_SCHEMA_VERSION } from "../../src/search/index-settings.ts";
import { SearchService } from "../../src/search/service.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { BATCH } from "../../src/util/worker-task.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 1000 };

/** A store holding a scan of `dir`, and `scan` to scan it again into the store. */
function scannedStore(dir: string) {
  const store = new CatalogStore();
  const scan = () => store.swap(new Scanner().scan([{ label: "dir1", dir, location: "explicit" }], limits));
  scan();
  return { store, scan };
}

/** A catalog of `dir` and a search service persisting under `cache`. */
async function service(dir: string, cache: string, flags: { reindex?: boolean; skipAutoReindex?: boolean } = {}) {
  const { store } = scannedStore(dir);
  const logger = createMemoryLogger();
  const search = new SearchService({
    store,
    logger,
    cacheDir: cache,
    sourceDirs: () => [dir],
    saveDelayMs: 0,
    ...flags,
  });
  await search.start(Promise.resolve());
  return { search, logger, store };
}

const names = async (s: SearchService, q: string) =>
  (await s.search(q, { limit: 5, threshold: 0 })).map((h) => h.skill.name);

describe("persisted search index", () => {
  test("closed before its first build ran (a server shut down at once): no file is saved and no change followed", async () => {
    const dir = tempDir();
    const cache = tempDir();
    writeSkill(dir, "alpha", { description: "first words" });
    const { store, scan } = scannedStore(dir);
    const search = new SearchService({
      store,
      logger: createMemoryLogger(),
      cacheDir: cache,
      sourceDirs: () => [dir],
      saveDelayMs: 0,
    });
    const building = search.start(Promise.resolve());
    search.close();
    await building;
    writeSkill(dir, "beta", { description: "second words" });
    scan();
    // A save would have been due at once (saveDelayMs 0): its timer comes before this one.
    await Bun.sleep(50);
    expect(readdirSync(cache)).toEqual([]);
    expect(search.status.documents).toBe(1);
  });

  test("built once, then loaded when the fingerprint matches, updated when a skill changed", async () => {
    const dir = tempDir();
    const cache = tempDir();
    writeSkill(dir, "tables", { description: "Extract tables from spreadsheets" });
    writeSkill(dir, "charts", { description: "Draw bar charts" });
    const first = await service(dir, cache);
    expect(first.search.status.origin).toBe("built");
    first.search.close();
    expect(readdirSync(cache).filter((f) => f.startsWith("search-index-")).length).toBe(1);

    const second = await service(dir, cache);
    expect(second.search.status.origin).toBe("persisted");
    expect(await names(second.search, "spreadsheet tables")).toEqual(["tables"]);
    second.search.close();

    writeSkill(dir, "charts", { description: "Draw pie charts and spreadsheets summaries" });
    const third = await service(dir, cache);
    expect(third.search.status.origin).toBe("persisted+updated");
    expect(await names(third.search, "pie")).toEqual(["charts"]);
    third.search.close();

    // A file only touched (chmod): every skill compared once, then saved with the new fingerprint.
    chmodSync(join(dir, "tables", "SKILL.md"), 0o600);
    const fourth = await service(dir, cache);
    expect(fourth.search.status.origin).toBe("persisted+updated");
    fourth.search.close();
    const fifth = await service(dir, cache);
    expect(fifth.search.status.origin).toBe("persisted");
    fifth.search.close();
  });

  test("a saved index is mapped, not read into memory; replacing the file (as every save does) leaves it answering", async () => {
    const dir = tempDir();
    const cache = tempDir();
    writeSkill(dir, "tables", { description: "Extract tables from spreadsheets" });
    (await service(dir, cache)).search.close();
    const file = join(cache, readdirSync(cache)[0] as string);
    const loaded = await service(dir, cache);
    expect(loaded.search.status.origin).toBe("persisted");
    if (process.platform === "linux") expect(readFileSync("/proc/self/maps", "utf8")).toContain(file);
    // Another process's save: a new file renamed over it.
    writeFileSync(`${file}.tmp`, "something else entirely");
    renameSync(`${file}.tmp`, file);
    expect(await names(loaded.search, "spreadsheet tables")).toEqual(["tables"]);
    loaded.search.close();
  });

  test("--reindex ignores the file; --skip-auto-reindex uses it as it is", async () => {
    const dir = tempDir();
    const cache = tempDir();
    writeSkill(dir, "alpha", { description: "first words" });
    (await service(dir, cache)).search.close();
    writeSkill(dir, "beta", { description: "second words" });
    const skipped = await service(dir, cache, { skipAutoReindex: true });
    expect(skipped.search.status.origin).toBe("persisted");
    expect(await names(skipped.search, "second")).toEqual([]);
    const rebuilt = await service(dir, cache, { reindex: true });
    expect(rebuilt.search.status.origin).toBe("built");
    expect(await names(rebuilt.search, "second")).toEqual(["beta"]);
  });

  test("a corrupt or foreign file is ignored with a warning and rebuilt", async () => {
    const dir = tempDir();
    const cache = tempDir();
    writeSkill(dir, "alpha", { description: "first words" });
    (await service(dir, cache)).search.close();
    const file = join(cache, readdirSync(cache)[0] as string);
    for (const junk of ["", "{not json", JSON.stringify({ format: "something-else" })]) {
      writeFileSync(file, junk);
      const again = await service(dir, cache);
      expect(again.search.status.origin).toBe("built");
      expect(again.logger.lines.some((l) => l.includes("WARN") && l.includes("rebuilding"))).toBe(true);
      expect(await names(again.search, "first")).toEqual(["alpha"]);
      again.search.close();
    }
  });

  test("an index of another schema is rebuilt without a warning; a save in the background writes the binary form", async () => {
    const dir = tempDir();
    const cache = tempDir();
    writeSkill(dir, "alpha", { description: "first words" });
    const first = await service(dir, cache);
    // The background save (saveDelayMs 0), not the one at shutdown.
    await Bun.sleep(20);
    await first.search.saved();
    const [name] = readdirSync(cache);
    expect(name).toMatch(/^search-index-[0-9a-f]+\.bin$/);
    first.search.close();
    const file = join(cache, name as string);
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 15).toString()).toBe("SKILLHUB-INDEX\n");
    // Same format, another schema number in the header, of as many digits (the file stays well formed).
    const digits = String(INDEX_SCHEMA_VERSION).length;
    const other =
      String(INDEX_SCHEMA_VERSION + 1).length === digits ? INDEX_SCHEMA_VERSION + 1 : INDEX_SCHEMA_VERSION - 1;
    const text = bytes.toString("latin1").replace(`"schema":${INDEX_SCHEMA_VERSION},`, `"schema":${other},`);
    expect(text.length).toBe(bytes.length);
    writeFileSync(file, Buffer.from(text, "latin1"));
    const again = await service(dir, cache);
    expect(again.search.status.origin).toBe("built");
    expect(again.logger.lines.some((l) => l.includes("WARN"))).toBe(false);
    expect(again.logger.lines.some((l) => l.includes("schema") && l.includes("rebuilding"))).toBe(true);
    expect(await names(again.search, "first")).toEqual(["alpha"]);
    again.search.close();
  });

  test("full bodies: a word near the end of a 200 KB SKILL.md is found, read in chunks from the file", async () => {
    const dir = tempDir();
    const filler = Array.from({ length: 4000 }, (_, i) => `Paragraph ${i} about ordinary configuration steps.`).join(
      "\n",
    );
    writeSkill(dir, "long-handbook", {
      description: "A long handbook",
      body: `# Handbook\n\n${filler}\n\nFinally, calibrate the zeppelin.\n`,
    });
    writeSkill(dir, "short", { description: "Short skill about configuration" });
    expect(statSync(join(dir, "long-handbook", "SKILL.md")).size).toBeGreaterThan(200_000);
    const { search } = await service(dir, tempDir());
    expect(await names(search, "zeppelin")).toEqual(["long-handbook"]);
    expect(await names(search, "calibrating zeppelins")).toEqual(["long-handbook"]);
    search.close();
  });

  test("catalog changes update the index incrementally", async () => {
    const dir = tempDir();
    writeSkill(dir, "alpha", { description: "first words" });
    const { search, store } = await service(dir, tempDir());
    writeSkill(dir, "gamma", { description: "third words" });
    store.swap(new Scanner().scan([{ label: "dir1", dir, location: "explicit" }], limits));
    expect(await names(search, "third")).toEqual(["gamma"]);
    search.close();
  });
});

describe("a first build in a worker (a smaller main heap)", () => {
  test("ranks as a build in place, writes the index file (the worker does), maps it, and the next start loads it", async () => {
    const dir = tempDir();
    const cache = tempDir();
    writeSkill(dir, "invoice-parser", { description: "Parse invoices", body: "# Totals\n\nSum the line items.\n" });
    writeSkill(dir, "pdf-forms", {
      description: "Fill PDF forms",
      body: `# Forms\n\n${"field ".repeat(50_000)}zebra\n`,
    });
    writeSkill(dir, "weather", { description: "Forecasts", body: "# Rain\n\nline items of the sky\n" });
    const { store } = scannedStore(dir);
    const logger = createMemoryLogger();
    const worker = new SearchService({ store, logger, cacheDir: cache, sourceDirs: () => [dir], buildInWorker: true });
    await worker.start(Promise.resolve());
    await worker.saved();
    expect(logger.lines.some((l) => l.includes("search index built in a worker"))).toBe(true);
    expect(worker.status.origin).toBe("built");
    const inPlace = await service(dir, tempDir());
    for (const q of ["line items", "zebra", "forms", "sky rain"])
      expect(await names(worker, q)).toEqual(await names(inPlace.search, q));
    // A body past the first chunk was read in the worker: its last word is found.
    expect((await names(worker, "zebra"))[0]).toBe("pdf-forms");
    const files = readdirSync(cache).filter((f) => f.endsWith(".bin"));
    expect(files).toHaveLength(1);
    // Saved by the worker, then mapped here: the postings never entered this heap.
    expect(logger.lines.some((l) => l.includes("saved to"))).toBe(true);
    if (process.platform === "linux") expect(readFileSync("/proc/self/maps", "utf8")).toContain(files[0] as string);
    const next = await service(dir, cache);
    expect(next.search.status.origin).toBe("persisted");
    expect(await names(next.search, "line items")).toEqual(await names(worker, "line items"));
  });

  test("a catalog of several batches is indexed batch by batch as they come: every skill is found", async () => {
    const dir = tempDir();
    const count = BATCH + 3;
    for (let i = 0; i < count; i++)
      writeSkill(dir, `chore-${i}`, { description: `Helps with chore ${i}`, body: `# Chore\n\nword${i}x\n` });
    const { store } = scannedStore(dir);
    const worker = new SearchService({
      store,
      logger: createMemoryLogger(),
      sourceDirs: () => [dir],
      buildInWorker: true,
    });
    await worker.start(Promise.resolve());
    expect(worker.status.documents).toBe(count);
    for (const i of [0, BATCH - 1, BATCH, BATCH + 2]) expect(await names(worker, `word${i}x`)).toEqual([`chore-${i}`]);
    worker.close();
  });

  test("a catalog that changed while the worker built the index is indexed once the build is in", async () => {
    const dir = tempDir();
    writeSkill(dir, "invoice-parser", { description: "Parse invoices" });
    const { store, scan } = scannedStore(dir);
    const worker = new SearchService({
      store,
      logger: createMemoryLogger(),
      sourceDirs: () => [dir],
      buildInWorker: true,
    });
    const started = worker.start(Promise.resolve());
    // The worker has the first catalog; this one lands while it builds.
    await new Promise((resolve) => setImmediate(resolve));
    writeSkill(dir, "late-comer", { description: "Arrived during the build" });
    scan();
    await started;
    expect(await names(worker, "arrived during the build")).toEqual(["late-comer"]);
    expect(await names(worker, "parse invoices")).toEqual(["invoice-parser"]);
    worker.close();
  });

  test("without an index file, or one that cannot be written, the worker sends the index back (and a save is owed)", async () => {
    const dir = tempDir();
    writeSkill(dir, "invoice-parser", { description: "Parse invoices", body: "# Totals\n\nSum the line items.\n" });
    const { store } = scannedStore(dir);
    for (const cacheDir of [undefined, join(tempDir(), "a-file")]) {
      if (cacheDir) writeFileSync(cacheDir, "not a folder");
      const logger = createMemoryLogger();
      const worker = new SearchService({ store, logger, cacheDir, sourceDirs: () => [dir], buildInWorker: true });
      await worker.start(Promise.resolve());
      expect(worker.status.origin).toBe("built");
      expect(await names(worker, "line items")).toEqual(["invoice-parser"]);
      expect(logger.lines.some((l) => l.includes("search index built in a worker ("))).toBe(true);
      // A folder that is a file: the worker's write failed, said so, and the server's save fails too.
      if (cacheDir) expect(logger.lines.filter((l) => l.includes("could not save the search index")).length).toBe(1);
      worker.close();
    }
  });
});
