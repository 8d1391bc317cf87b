import type { SearchOptions } from "minisearch";
import type { Skill } from "../skills/skill.ts";
import { FieldPostings } from "./field-postings.ts";
import { FIELDS } from "./fields.ts";
import { BODY_CHARS, FUZZY_MAX_DOCUMENTS, SEARCH_OPTIONS, SLICE_MS } from "./index-settings.ts";
import { type MappedFile, remap } from "./mapped-file.ts";
import { querySequence } from "./query-spec.ts";
import { type FullTextHit, scoreQuery } from "./score-query.ts";
import { SCORING, type Scoring } from "./scoring.ts";
import { type BodySource, skillTerms } from "./skill-terms.ts";
import { SlotStrings } from "./slot-strings.ts";
import { forgetProcessedTerms } from "./text.ts";

export type { BodySource, FullTextHit };

export interface SyncStats {
  added: number;
  updated: number;
  removed: number;
}

/** What one FullTextIndex holds, for the persisted form (index-file.ts). */
export interface IndexParts {
  /** Document id per slot; its liveness bits say which slots are freed. */
  ids: SlotStrings;
  /** Content hash per slot (what was indexed); freed with its id. */
  hashes: SlotStrings;
  fields: Map<string, FieldPostings>;
  /** The saved file the arrays view, when it was mapped (persist.ts). */
  mapped?: MappedFile;
}

/**
 * Full-text index over the catalog's skills, kept in step with it incrementally (only skills whose
 * content hash changed are re-indexed). MiniSearch's matching (its tokenizer, term processing, prefix
 * and fuzzy expansion, field boosts, BM25+) over postings held in typed arrays (field-postings.ts:
 * measured at 10,000 skills, MiniSearch's own maps held 40 MB for the metadata fields alone), its
 * field scores combined as scoring.ts says.
 */
export class FullTextIndex {
  private constructor(
    private readonly parts: IndexParts,
    private readonly search0: SearchOptions,
    private readonly bodyChars: number,
    private readonly scoring: Scoring = SCORING,
  ) {}

  /** Slots freed since the last freeze (their postings are skipped at query time). */
  private dead = 0;

  /** An empty index. `tuning` overrides search options, body length and scoring (bench/, the eval). */
  static empty(tuning: { search?: SearchOptions; bodyChars?: number; scoring?: Scoring } = {}): FullTextIndex {
    const fields = new Map(FIELDS.map((f) => [f as string, new FieldPostings()]));
    return new FullTextIndex(
      { ids: new SlotStrings(), hashes: new SlotStrings(), fields },
      { ...SEARCH_OPTIONS, ...tuning.search },
      tuning.bodyChars ?? BODY_CHARS,
      tuning.scoring,
    );
  }

  /** The same postings ranked with other scoring parameters and field boosts (bench/tune*.ts; read-only use). */
  withScoring(scoring: Scoring, search: SearchOptions = this.search0): FullTextIndex {
    return new FullTextIndex(this.parts, search, this.bodyChars, scoring);
  }

  /** An index from persisted parts (index-file.ts checks them). */
  static fromParts(parts: IndexParts): FullTextIndex {
    for (const f of FIELDS) if (!parts.fields.has(f)) throw new Error(`the persisted index has no ${f} field`);
    return new FullTextIndex(parts, SEARCH_OPTIONS, BODY_CHARS);
  }

  /**
   * Map the saved index file again, so that the pages queries made resident go back to the page cache:
   * the old mapping is unmapped once collected (the release's full collection follows). Stops once the
   * file was replaced or every array was rebuilt since it was loaded.
   */
  releasePages(): void {
    const mapped = this.parts.mapped;
    if (!mapped) return;
    const next = remap(mapped);
    let rebound = false;
    if (next)
      for (const store of this.parts.fields.values())
        rebound = store.rebind(mapped.bytes.buffer, next.buffer) || rebound;
    this.parts.mapped = next && rebound ? { path: mapped.path, bytes: next } : undefined;
  }

  /** Everything frozen, for saving: the arrays returned are not changed by later updates. */
  snapshot(): IndexParts {
    this.freeze();
    const fields = new Map<string, FieldPostings>();
    for (const [name, store] of this.parts.fields) fields.set(name, store);
    return { ids: this.parts.ids.copy(), hashes: this.parts.hashes.copy(), fields };
  }

  /** Postings held in every field (typed arrays, 3 bytes each below 65,536 slots), for bench/ memory accounting. */
  get postings(): number {
    let n = 0;
    for (const store of this.parts.fields.values()) n += store.postings;
    return n;
  }

  get size(): number {
    return this.parts.ids.size;
  }

  /** Slots given out so far, freed ones included (a hit's `slot` is below it). */
  get slotCount(): number {
    return this.parts.ids.length;
  }

  has(id: string): boolean {
    return this.parts.ids.slotOf(id) !== -1;
  }

  /** Bring the index in line with `skills`; `body` gives a skill's body when it must be (re)indexed. */
  sync(skills: readonly Skill[], body: BodySource): SyncStats {
    const { stats, fresh } = this.plan(skills);
    for (const skill of fresh) this.add(skill, body);
    this.settle();
    return stats;
  }

  /**
   * Index the skills not in the index yet, one at a time, calling `between` after each (a first build in
   * a worker, which collects its garbage there, batch after batch); nothing is removed, and the overflow
   * is folded in only as it grows (`snapshot` folds in the rest).
   */
  addNew(skills: readonly Skill[], body: BodySource, between: () => void): void {
    for (const skill of skills)
      if (!this.has(skill.id)) {
        this.add(skill, body);
        between();
      }
  }

  /**
   * `sync` in slices of at most `sliceMs` milliseconds, pausing between them so a large first build
   * does not stall requests (batches of 50 full bodies held calls up to 300 ms).
   */
  async syncAsync(
    skills: readonly Skill[],
    body: BodySource,
    tick: () => Promise<void>,
    sliceMs = SLICE_MS,
  ): Promise<SyncStats> {
    const { stats, fresh } = this.plan(skills);
    let started = performance.now();
    const pause = async () => {
      if (performance.now() - started < sliceMs) return;
      await tick();
      started = performance.now();
    };
    for (const skill of fresh) {
      this.add(skill, body, false);
      if (this.wantsFreeze(false)) await this.freezeAsync(pause);
      await pause();
    }
    forgetProcessedTerms();
    if (this.wantsFreeze(true)) await this.freezeAsync(pause);
    return stats;
  }

  /** Index one skill; `freeze`: fold the overflow in at once when it has grown (the synchronous path). */
  private add(skill: Skill, body: BodySource, freeze = true): void {
    const { ids, hashes, fields } = this.parts;
    const slot = ids.push(skill.id);
    hashes.push(skill.hash);
    for (const [field, { counts, length }] of skillTerms(skill, body, this.bodyChars))
      fields.get(field)?.add(slot, counts, length);
    if (freeze && this.wantsFreeze(false)) this.freeze();
  }

  private wantsFreeze(settling: boolean): boolean {
    let want = settling && this.dead > 256;
    for (const store of this.parts.fields.values()) want ||= store.wantsFreeze(settling);
    return want;
  }

  /** freeze, pausing between steps (only from syncAsync, which nothing else changes the index beside). */
  private async freezeAsync(pause: () => Promise<void>): Promise<void> {
    const dropDead = this.dead > 0;
    for (const store of this.parts.fields.values()) await store.freezeAsync(this.parts.ids, dropDead, pause);
    this.dead = 0;
  }

  private remove(slot: number): void {
    this.parts.ids.free(slot);
    this.parts.hashes.free(slot);
    for (const store of this.parts.fields.values()) store.remove(slot);
    this.dead++;
  }

  /** After a batch of changes: freeze when the overflow would slow queries; a single edit stays in it. */
  private settle(): void {
    forgetProcessedTerms();
    if (this.wantsFreeze(true)) this.freeze();
  }

  private freeze(): void {
    for (const store of this.parts.fields.values()) store.freeze(this.parts.ids, this.dead > 0);
    this.dead = 0;
  }

  /** Drop removed and changed skills now; return the skills to add. */
  private plan(skills: readonly Skill[]): { stats: SyncStats; fresh: Skill[] } {
    const stats: SyncStats = { added: 0, updated: 0, removed: 0 };
    const { ids, hashes } = this.parts;
    // Slots still wanted; the rest are removed.
    const wanted = new Uint8Array(ids.length);
    const fresh: Skill[] = [];
    for (const skill of skills) {
      const slot = ids.slotOf(skill.id);
      if (slot === -1) fresh.push(skill);
      else if (hashes.is(slot, skill.hash)) wanted[slot] = 1;
      else {
        this.remove(slot);
        stats.updated++;
        fresh.push(skill);
      }
    }
    for (let slot = 0; slot < ids.length; slot++)
      if (ids.live(slot) && wanted[slot] === 0) {
        this.remove(slot);
        stats.removed++;
      }
    stats.added = fresh.length - stats.updated;
    return { stats, fresh };
  }

  /** Every skill matching a query term, best first. */
  search(query: string, options: SearchOptions = {}): FullTextHit[] {
    return [...this.searchWithCounts(query, options).hits];
  }

  /** `search`, and how many skills matched each query term (the engine's coverage weights). */
  searchWithCounts(
    query: string,
    options: SearchOptions = {},
    weights?: ReadonlyMap<string, number>,
  ): { hits: Iterable<FullTextHit>; matched: Map<string, number> } {
    const o = { ...this.search0, ...options };
    if ((o.combineWith ?? "OR").toUpperCase() !== "OR")
      throw new Error(`combineWith ${o.combineWith} is not supported`);
    // Fuzzy matching walks the whole vocabulary; past FUZZY_MAX_DOCUMENTS it costs more than the
    // typos it forgives (measured: p50 5.5 ms → 1.7 ms at 10,000 skills), so prefix matching alone remains.
    if (this.size > FUZZY_MAX_DOCUMENTS && options.fuzzy === undefined) o.fuzzy = false;
    return scoreQuery(this.parts, this.size, FullTextIndex.queryTerms(query), o, this.scoring, weights);
  }

  /** The processed terms of a query, as the index sees them. */
  static queryTerms(query: string): string[] {
    return [...new Set(querySequence(query))];
  }
}
