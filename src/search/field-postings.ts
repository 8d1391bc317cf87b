import SearchableMap from "minisearch/SearchableMap";
import { TermList } from "../util/term-list.ts";
import { bm25, bm25Run, termRun } from "./bm25-run.ts";
import {
  checkFrozen,
  type FrozenBlock,
  type FrozenPostings,
  freezeSteps,
  grown,
  type LiveSlots,
  type SlotArray,
} from "./freeze.ts";
import { moved } from "./mapped-file.ts";
import type { ScoreParams, TermSpec } from "./query-spec.ts";
import type { Scores } from "./scores.ts";

/**
 * One indexed field's postings in typed arrays: MiniSearch keeps a Map entry per posting
 * (~230 bytes each in JavaScriptCore, 40 MB for the metadata of 10,000 skills). Here a posting is 3 bytes
 * (a 16-bit document slot, 32-bit beyond 65,536 slots, and an 8-bit term frequency) in one compressed-
 * sparse-row block, plus an overflow for documents added since the last freeze. Slots are shared by every
 * field of a FullTextIndex. Scores are MiniSearch's BM25+ (`calcBM25Score`) with its prefix and fuzzy
 * expansions (`executeQuerySpec`): test/search/fulltext-minisearch.test.ts compares them.
 */

/** Term frequencies in 8 bits: BM25+ has saturated long before (k1 = 1.2: 255 scores within 0.5 % of 1,000). */
const MAX_TF = 0xff;

export class FieldPostings {
  /**
   * Terms up to the last freeze, sorted and packed into one string: a term's id is its position
   * (binary search; no Map to build at load).
   */
  private vocabulary = TermList.EMPTY;
  /** Terms first seen since the last freeze (scanned linearly for prefixes); ids follow the vocabulary's. */
  private newTerms: string[] = [];
  private newIds = new Map<string, number>();
  /** Built on the first fuzzy query, dropped when the vocabulary grows. */
  private fuzzyMap?: SearchableMap<true>;
  private offsets: Uint32Array = new Uint32Array(1);
  private docs: SlotArray = new Uint16Array(0);
  private tfs: Uint8Array = new Uint8Array(0);
  /** Postings added since the last freeze (term id, slot, frequency: 9 bytes, no array per term), scanned by queries. */
  private pendingTerms: Uint32Array = new Uint32Array(1024);
  private pendingSlots: Uint32Array = new Uint32Array(1024);
  private pendingTfs: Uint8Array = new Uint8Array(1024);
  private pendingCount = 0;
  private lengths: Uint32Array = new Uint32Array(64);
  private totalLength = 0;
  /** Bumped by every change of the postings, so that an asynchronous freeze knows when it went stale. */
  private version = 0;
  /** Slots freed since a freeze last dropped their postings (any freeze does): while none, scoring checks no slot. */
  private freed = 0;

  /** Postings held (frozen + pending, stale ones included until the next freeze). */
  get postings(): number {
    return this.docs.length + this.pendingCount;
  }

  /** Index one document's field: processed term → frequency, and its length (distinct raw tokens). */
  add(slot: number, counts: ReadonlyMap<string, number>, length: number): void {
    this.version++;
    if (slot >= this.lengths.length) this.lengths = grown(this.lengths, Math.max(slot + 1, this.lengths.length * 2));
    this.lengths[slot] = length;
    this.totalLength += length;
    for (const [term, tf] of counts) {
      let termId = this.termId(term);
      if (termId === undefined) {
        termId = this.vocabulary.length + this.newTerms.length;
        this.newTerms.push(term);
        this.newIds.set(term, termId);
        this.fuzzyMap = undefined;
      }
      if (this.pendingCount === this.pendingTerms.length) this.growPending();
      const at = this.pendingCount++;
      this.pendingTerms[at] = termId;
      this.pendingSlots[at] = slot;
      this.pendingTfs[at] = Math.min(tf, MAX_TF);
    }
  }

  /** A document's slot was freed: its length leaves the average now, its postings at the next freeze. */
  remove(slot: number): void {
    this.freed++;
    this.totalLength -= this.lengths[slot] ?? 0;
    this.lengths[slot] = 0;
  }

  /** Whether the overflow has grown enough (relative to the frozen block) to fold it in. */
  wantsFreeze(force: boolean): boolean {
    if (force) return this.newTerms.length > 256 || this.pendingCount > 10_000;
    // Geometric freezing keeps the overflow at most a third of all postings: amortised linear build.
    return this.pendingCount > 50_000 && this.pendingCount > this.docs.length / 2;
  }

  /**
   * Add this field's BM25+ for `spec` to `out`, as MiniSearch's executeQuerySpec does for one field:
   * the exact term (weight 1), longer terms it prefixes, then terms within its edit distance that
   * are not prefix matches. `live` is the number of documents in the index (BM25's N).
   */
  score(spec: TermSpec, boost: number, params: ScoreParams, ids: LiveSlots, live: number, out: Scores): void {
    if (live === 0 || this.totalLength === 0) return;
    const avg = this.totalLength / live;
    const { term } = spec;
    // One binary search for the term and those it prefixes (one per expansion was 10 % of ranking).
    const { vocabulary, newTerms } = this;
    const at = vocabulary.lowerBound(term);
    const exact = at < vocabulary.length && vocabulary.compare(at, term) === 0 ? at : this.newIds.get(term);
    if (exact !== undefined) this.scoreTerm(term, exact, boost, params, ids, live, avg, out);
    const prefixed = new Set<string>();
    const expand = (t: string, id: number) => {
      if (t === term) return;
      if (spec.maxDistance > 0) prefixed.add(t);
      const distance = t.length - term.length;
      const weight = (params.prefixWeight * t.length) / (t.length + 0.3 * distance);
      this.scoreTerm(term, id, weight * boost, params, ids, live, avg, out);
    };
    if (spec.prefix) {
      for (let i = at; i < vocabulary.length && vocabulary.startsWith(i, term); i++) expand(vocabulary.at(i), i);
      for (const [i, t] of newTerms.entries()) if (t.startsWith(term)) expand(t, vocabulary.length + i);
    }
    if (spec.maxDistance > 0) {
      this.fuzzyMap ??= SearchableMap.from(
        [...this.vocabulary, ...this.newTerms].map((t) => [t, true] as [string, true]),
      );
      for (const [t, [, distance]] of this.fuzzyMap.fuzzyGet(term, spec.maxDistance)) {
        if (distance === 0 || prefixed.has(t)) continue;
        const weight = (params.fuzzyWeight * t.length) / (t.length + distance);
        this.scoreTerm(term, this.termId(t) as number, weight * boost, params, ids, live, avg, out);
      }
    }
  }

  /** Fold the overflow into the typed arrays, dropping the postings of freed slots (freeze.ts). */
  freeze(ids: LiveSlots, dropDead = true): void {
    const drop = dropDead || this.freed > 0;
    const steps = this.freezeSteps(ids, drop);
    if (!steps) return;
    let step = steps.next();
    while (!step.done) step = steps.next();
    this.apply(step.value, drop);
  }

  /**
   * `freeze`, awaiting `pause` between steps. Nothing may add to or remove from the index meanwhile
   * (FullTextIndex calls it between its own slices); a synchronous freeze meanwhile (a save's
   * snapshot) makes this one's result stale, and it is then dropped.
   */
  async freezeAsync(ids: LiveSlots, dropDead: boolean, pause: () => Promise<void>): Promise<void> {
    const drop = dropDead || this.freed > 0;
    const steps = this.freezeSteps(ids, drop);
    if (!steps) return;
    const version = this.version;
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) {
        if (this.version === version) this.apply(step.value, drop);
        return;
      }
      await pause();
    }
  }

  private freezeSteps(ids: LiveSlots, dropDead: boolean) {
    // Nothing pending and no freed slot's postings to drop: the arrays are already what they would become.
    if (this.pendingCount === 0 && this.newTerms.length === 0 && !dropDead) return undefined;
    return freezeSteps(
      {
        vocabulary: this.vocabulary,
        offsets: this.offsets,
        docs: this.docs,
        tfs: this.tfs,
        newTerms: this.newTerms,
        newIds: this.newIds,
        pendingTerms: this.pendingTerms,
        pendingSlots: this.pendingSlots,
        pendingTfs: this.pendingTfs,
        pendingCount: this.pendingCount,
      },
      ids,
      dropDead,
    );
  }

  private apply(frozen: FrozenBlock, droppedDead: boolean): void {
    this.version++;
    if (droppedDead) this.freed = 0;
    this.vocabulary = frozen.vocabulary;
    this.offsets = frozen.offsets;
    this.docs = frozen.docs;
    this.tfs = frozen.tfs;
    this.pendingCount = 0;
    // A large build's overflow buffers go back to their first size.
    if (this.pendingTerms.length > 65_536) {
      this.pendingTerms = new Uint32Array(1024);
      this.pendingSlots = new Uint32Array(1024);
      this.pendingTfs = new Uint8Array(1024);
    }
    this.newTerms = [];
    this.newIds = new Map();
  }

  /** The frozen arrays (call freeze first), for the persisted index. */
  frozen(slots: number): FrozenPostings {
    return {
      vocabulary: this.vocabulary,
      offsets: this.offsets,
      docs: this.docs,
      tfs: this.tfs,
      lengths: this.lengths.subarray(0, slots),
    };
  }

  /** Arrays still viewing `from` (a mapped index file) moved to the same place in `to`; whether any was. */
  rebind(from: ArrayBufferLike, to: ArrayBufferLike): boolean {
    const old = [this.offsets, this.docs, this.tfs] as const;
    [this.offsets, this.docs, this.tfs] = [moved(old[0], from, to), moved(old[1], from, to), moved(old[2], from, to)];
    return this.offsets !== old[0] || this.docs !== old[1] || this.tfs !== old[2];
  }

  /** A store from persisted arrays; `ids` says which slots are live (for the length total). */
  static fromFrozen(data: FrozenPostings, ids: LiveSlots): FieldPostings {
    checkFrozen(data, ids.length);
    const p = new FieldPostings();
    p.vocabulary = data.vocabulary;
    p.offsets = data.offsets;
    p.docs = data.docs;
    p.tfs = data.tfs;
    p.lengths = grown(data.lengths, Math.max(64, ids.length * 2));
    for (let slot = 0; slot < ids.length; slot++) if (ids.live(slot)) p.totalLength += data.lengths[slot] as number;
    return p;
  }

  private growPending(): void {
    const size = this.pendingTerms.length * 2;
    this.pendingTerms = grown(this.pendingTerms, size);
    this.pendingSlots = grown(this.pendingSlots, size);
    this.pendingTfs = grown(this.pendingTfs, size);
  }

  /** A term's id: its position in the frozen vocabulary, or its id among the terms added since. */
  private termId(term: string): number | undefined {
    const at = this.vocabulary.lowerBound(term);
    return at < this.vocabulary.length && this.vocabulary.compare(at, term) === 0 ? at : this.newIds.get(term);
  }

  /** MiniSearch's termResults for one field and one derived term (`weight` includes the field boost). */
  private scoreTerm(
    query: string,
    termId: number,
    weight: number,
    params: ScoreParams,
    ids: LiveSlots,
    live: number,
    avg: number,
    out: Scores,
  ): void {
    const frozen = termId < this.offsets.length - 1;
    const start = frozen ? (this.offsets[termId] as number) : 0;
    const end = frozen ? (this.offsets[termId + 1] as number) : 0;
    const pending = this.pendingCount;
    const allLive = this.freed === 0;
    let df = allLive ? end - start : 0;
    if (!allLive) for (let i = start; i < end; i++) if (ids.live(this.docs[i] as number)) df++;
    for (let i = 0; i < pending; i++)
      if (this.pendingTerms[i] === termId && (allLive || ids.live(this.pendingSlots[i] as number))) df++;
    if (df === 0) return;
    const { k, b, d } = params;
    const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
    const slots = ids.length;
    // Read once here, not per posting (the loop below is most of a search's time); same arithmetic order.
    const { docs, tfs, lengths } = this;
    const scale = weight * idf;
    const run = termRun(end - start + pending);
    let n = 0;
    const add = (slot: number, tf: number) => {
      // Past the documents: only in a damaged saved index (checkFrozen does not read every posting).
      if (slot >= slots || (!allLive && !ids.live(slot))) return;
      run.slots[n] = slot;
      run.values[n++] = bm25(scale, tf, lengths[slot] as number, k, b, d, avg);
    };
    if (allLive) n = bm25Run(docs, tfs, start, end, lengths, slots, run.slots, run.values, scale, k, b, d, avg);
    else for (let i = start; i < end; i++) add(docs[i] as number, tfs[i] as number);
    for (let i = 0; i < pending; i++)
      if (this.pendingTerms[i] === termId) add(this.pendingSlots[i] as number, this.pendingTfs[i] as number);
    out.addRun(out.term(query), run.slots, run.values, n);
  }
}
