import type { Catalog } from "../catalog/catalog.ts";
import { streamSkillBody } from "../catalog/skill-text.ts";
import { errorMessage } from "../util/errors.ts";
import { nextTurn } from "../util/next-turn.ts";
import { indexInWorker } from "./build-in-worker.ts";
import { type RankedHit, type RankOptions, scoreFullText } from "./engine.ts";
import { type BodySource, FullTextIndex } from "./fulltext.ts";
import { IndexWrites } from "./index-writes.ts";
import { defaultSignals } from "./keyword-signal.ts";
import { type SearchOutcome, searchByMode } from "./modes.ts";
import { catalogFingerprint, indexFilePath, loadIndexFile, saveIndexFile, saveIndexFileSync } from "./persist.ts";
import type { IndexStatus, SearchServiceOptions } from "./service-options.ts";

/**
 * Indexing slices (of SLICE_MS) between collections during a build here (updates; a first build runs
 * in a worker). Building makes garbage faster than JavaScriptCore collects it on its own. At 10,000
 * skills (bench/index-latency.ts, peak RSS and call p99 during a build): no explicit collection 337 MB,
 * 58 ms; a synchronous one every 60 slices 261 MB, 96 ms; an asynchronous one 343 MB, 28 ms.
 */
const GC_EVERY_TICKS = 60;
/** A concurrent collection: JavaScriptCore marks beside the event loop instead of pausing it. */
const collect = () => Bun.gc(false);

/**
 * Skills from which a search during a first index build is answered early, from the skills' names,
 * descriptions, tags, categories and keywords (a few hundred ms to index at 10,000 skills), rather than
 * after the bodies are indexed too (seconds). A smaller catalog builds its whole index sooner than that.
 */
const EARLY_FROM_SKILLS = 2000;

/** What an early answer says of itself (search_skills' `partial`). */
export const PARTIAL_NOTICE =
  "The search index is still being built: these results match skill names, descriptions, tags and categories, not yet the instructions' text. Search again in a few seconds for complete results.";

/** The body of no skill: what the early index reads. */
const NO_BODY = () => "";

/**
 * The search index, kept in step with the catalog: loaded from disk when
 * its fingerprint matches, updated incrementally on every
 * catalog change, saved in the background.
 */
export class SearchService {
  private index = FullTextIndex.empty();
  private readyPromise?: Promise<void>;
  private syncing: Promise<void> = Promise.resolve();
  private saveTimer?: ReturnType<typeof setTimeout>;
  private dirty = false;
  private unsubscribe?: () => void;
  /** Set by close(): a build still under way then ends without subscribing or saving. */
  private closed = false;
  private state: Omit<IndexStatus, "mode" | "vectors"> = { documents: 0, origin: "pending", buildMs: 0 };
  /** A first build is under way (the index holds no skills yet). */
  private building = false;
  private markBuilding!: () => void;
  /** Resolves when a first build begins: a search that may be answered early waits for this or the index. */
  private readonly buildBegun = new Promise<void>((resolve) => (this.markBuilding = resolve));
  /** The metadata-only index of early answers (made at the first such search), and the catalog it follows. */
  private early?: { catalog: Catalog; index: Promise<FullTextIndex> };

  /** Saves and a worker's build, written one at a time; a failed write leaves the index to save again. */
  private readonly writes: IndexWrites;

  /** Removes the hook that maps a loaded index file again at each memory release (FullTextIndex.releasePages). */
  private readonly unhook?: () => void;

  constructor(private readonly options: SearchServiceOptions) {
    this.writes = new IndexWrites(options.logger, () => {
      this.dirty = true;
    });
    this.unhook = options.memory?.beforeRelease(() => this.index.releasePages());
  }

  /** Begin once the first catalog is ready. Idempotent. */
  start(catalogReady: Promise<void>): Promise<void> {
    this.readyPromise ??= catalogReady.then(() => this.initialise());
    return this.readyPromise;
  }

  get ready(): Promise<void> {
    return this.readyPromise ?? Promise.resolve();
  }

  get status(): IndexStatus {
    const vectors = this.options.vectors?.status;
    return {
      ...this.state,
      documents: this.index.size,
      mode: this.options.mode ?? "fts",
      ...(vectors ? { vectors } : {}),
    };
  }

  /** Ranked hits over the current catalog (builds or loads the index on first use), by the configured mode. */
  async search(query: string, options: RankOptions): Promise<RankedHit[]> {
    return (await this.query(query, options)).hits;
  }

  /**
   * `search`, saying which path answered and why full text did when another mode was configured. With
   * `early`, a search that comes while a large catalog's first index is being built is answered from the
   * skills' metadata and says so (`partial`); otherwise it waits for the whole index.
   */
  async query(query: string, options: RankOptions, early = false): Promise<SearchOutcome> {
    const ready = this.start(Promise.resolve());
    if (early) {
      await Promise.race([ready, this.buildBegun]);
      if (
        this.building &&
        this.options.store.catalog.skills.length >= (this.options.earlyFromSkills ?? EARLY_FROM_SKILLS)
      )
        return this.earlyQuery(query, options);
    }
    await ready;
    await this.syncing;
    return this.rank(this.index, this.options.store.catalog, query, options);
  }

  private rank(index: FullTextIndex, catalog: Catalog, query: string, options: RankOptions): Promise<SearchOutcome> {
    return searchByMode({
      mode: this.options.mode ?? "fts",
      query,
      options,
      skills: catalog.skills,
      fullText: (depth) =>
        scoreFullText(index, catalog, query, { ...options, depth }, this.options.signals ?? defaultSignals(catalog)),
      vectors: this.options.vectors,
    });
  }

  /** A search during a first build, from the metadata-only index (brought up to the current catalog first). */
  private async earlyQuery(query: string, options: RankOptions): Promise<SearchOutcome> {
    const catalog = this.options.store.catalog;
    if (this.early?.catalog !== catalog) {
      const previous = this.early?.index ?? Promise.resolve(FullTextIndex.empty());
      // Paced by turns of the event loop alone: the build's own pacing (options.tick) is for the whole index.
      const index = previous.then(async (early) => {
        await early.syncAsync(catalog.skills, NO_BODY, nextTurn);
        return early;
      });
      this.early = { catalog, index };
    }
    const index = await this.early.index;
    // The whole index may have come meanwhile: then it answers.
    if (!this.building) return this.query(query, options);
    return { ...(await this.rank(index, catalog, query, options)), partial: PARTIAL_NOTICE };
  }

  /** Resolves when the skills' vectors are complete or their embedding failed (at once without a provider). */
  async vectorsSettled(): Promise<void> {
    await this.start(Promise.resolve());
    await this.options.vectors?.settled();
  }

  /** Save now if there are unsaved changes (shutdown); stop embedding. */
  close(): void {
    this.closed = true;
    this.unhook?.();
    this.unsubscribe?.();
    if (this.saveTimer) clearTimeout(this.saveTimer);
    if (this.dirty) this.saveNow();
    this.options.vectors?.close();
  }

  private async initialise(): Promise<void> {
    const started = performance.now();
    const catalog = this.options.store.catalog;
    const fingerprint = catalogFingerprint(catalog, this.options.settings ?? "");
    const file = this.file();
    let origin: IndexStatus["origin"] = "built";
    if (file && !this.options.reindex) {
      const loaded = await loadIndexFile(file, () => this.pause());
      if (loaded.ok) {
        try {
          this.index = FullTextIndex.fromParts(loaded.parts);
          origin = "persisted";
          if (loaded.header.fingerprint !== fingerprint && !this.options.skipAutoReindex) {
            await this.index.syncAsync(catalog.skills, this.body, this.tick);
            origin = "persisted+updated";
            // Saved again even when no skill changed (files only touched): the file then records today's
            // fingerprint, and the next start loads it without comparing every skill again.
            this.dirty = true;
          }
        } catch (error) {
          this.options.logger.warn(`search index ${file} could not be loaded (${errorMessage(error)}); rebuilding it.`);
          this.index = FullTextIndex.empty();
          origin = "built";
        }
      } else if (loaded.stale) {
        this.options.logger.info(`${loaded.reason}; rebuilding the search index.`);
      } else if (!loaded.missing) {
        this.options.logger.warn(`${loaded.reason}; ignoring it and rebuilding the search index.`);
      }
    }
    if (origin === "built") {
      this.building = true;
      this.markBuilding();
    }
    try {
      if (origin === "built" && !(await this.buildInWorker(catalog, fingerprint, file))) {
        await this.index.syncAsync(catalog.skills, this.body, this.tick);
        this.dirty = true;
      }
      collect();
      this.options.memory?.soon();
      // The searches waiting for the index rank on a later turn: calls that came during its last steps (the
      // file mapped, the fields checked) are answered first, not after them and a cold first search.
      await this.pause();
    } finally {
      this.building = false;
      this.early = undefined;
    }
    this.state = { documents: this.index.size, origin, buildMs: Math.round(performance.now() - started), file };
    this.options.logger.debug(`search index: ${this.index.size} skills, ${origin}, ${this.state.buildMs} ms`);
    if (this.closed) return;
    this.unsubscribe = this.options.store.onChange(() => this.queueSync());
    // In the background: full text answers until the vectors are ready.
    void this.options.vectors?.sync(this.options.store.catalog.skills);
    // A change that landed while we were building (unless told to use the persisted index as it is); the
    // catalog it was built from needs no second look (20 ms at 20,000 skills, just when the first search runs).
    if (!(this.options.skipAutoReindex && origin === "persisted") && this.options.store.catalog !== catalog)
      this.queueSync();
    if (this.dirty) this.scheduleSave();
  }

  /**
   * A whole build in a worker (build-in-worker.ts), which saves it too (a save is scheduled only when it
   * could not). False, after a warning, when the worker could not build it: the caller builds it in slices.
   */
  private async buildInWorker(catalog: Catalog, fingerprint: string, file: string | undefined): Promise<boolean> {
    if (!this.options.buildInWorker || this.options.readBody || catalog.skills.length === 0) return false;
    const built = await indexInWorker(catalog.skills, fingerprint, file, this.options.logger, () => this.pause());
    if (!built) return false;
    this.index = built.index;
    this.dirty = file !== undefined && !built.saved;
    return true;
  }

  private queueSync(): void {
    this.syncing = this.syncing.then(async () => {
      void this.options.vectors?.sync(this.options.store.catalog.skills);
      try {
        const stats = await this.index.syncAsync(this.options.store.catalog.skills, this.body, this.tick);
        if (stats.added + stats.updated + stats.removed > 0) {
          this.dirty = true;
          this.scheduleSave();
        }
      } catch (error) {
        this.options.logger.error(`search index update failed: ${errorMessage(error)}`);
      }
    });
  }

  private scheduleSave(): void {
    if (this.closed || !this.file()) return;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => void this.save(), this.options.saveDelayMs ?? 2000);
    (this.saveTimer as { unref?: () => void }).unref?.();
  }

  /**
   * Save without blocking calls: freezing and encoding the typed arrays is a few milliseconds, the
   * write happens off the event loop, piece by piece (writeAtomic), and a change meanwhile schedules the next save.
   */
  private save(): Promise<void> {
    const file = this.file();
    if (!file) return Promise.resolve();
    return this.writes.queue(file, async () => {
      const fingerprint = catalogFingerprint(this.options.store.catalog, this.options.settings ?? "");
      this.dirty = false;
      await saveIndexFile(file, fingerprint, this.index.snapshot(), () => this.pause());
      collect();
    });
  }

  /** At shutdown: the process may exit before an asynchronous write would end. */
  private saveNow(): void {
    const file = this.file();
    if (!file) return;
    try {
      saveIndexFileSync(
        file,
        catalogFingerprint(this.options.store.catalog, this.options.settings ?? ""),
        this.index.snapshot(),
      );
      this.dirty = false;
    } catch (error) {
      this.options.logger.warn(`could not save the search index to ${file}: ${errorMessage(error)}`);
    }
  }

  /** Resolves when no save is in flight (tests, shutdown). */
  saved(): Promise<void> {
    return this.writes.idle();
  }

  private file(): string | undefined {
    return this.options.cacheDir ? indexFilePath(this.options.cacheDir, this.options.sourceDirs()) : undefined;
  }

  private ticks = 0;

  /** A pause that lets requests in (no collection). */
  private pause(): Promise<void> {
    return (this.options.tick ?? nextTurn)();
  }

  /** Between indexing slices: let requests in, and every GC_EVERY_TICKS slices start a collection. */
  private readonly tick = () => {
    if (++this.ticks % GC_EVERY_TICKS === 0) collect();
    return this.pause();
  };

  private readonly body: BodySource = (skill, sink) => {
    if (this.options.readBody) return this.options.readBody(skill);
    // Confined like every read of skill content, in chunks (never a whole large SKILL.md); gone or
    // unreadable since the scan → the body is left out until the next change.
    streamSkillBody(skill, sink);
  };
}
