import type { TermList } from "../util/term-list.ts";

/**
 * FieldPostings' freeze (field-postings.ts): the frozen compressed-sparse-row block plus the
 * overflow added since, merged into one new block. Terms are renumbered in sorted order (a term's id
 * is its position, so look-ups are binary searches and a saved vocabulary needs no sort on load);
 * the postings of freed slots are dropped when `dropDead`. Within a term, frozen postings come
 * first, then the overflow's in the order added. Pure: the input arrays are not changed.
 */

/** Which of a store's document slots hold a document (an index's ids: slot-strings.ts). */
export interface LiveSlots {
  /** Slots given out so far, freed ones included. */
  readonly length: number;
  live(slot: number): boolean;
}

/** Document slots of postings: 16 bits while a store has at most 65,536 slots, else 32. */
export type SlotArray = Uint16Array | Uint32Array;

/** Room for `n` postings' slots, for a store of `slots` document slots. */
export function slotArray(n: number, slots: number): SlotArray {
  return slots <= 0x10000 ? new Uint16Array(n) : new Uint32Array(n);
}

export interface PostingsState {
  /** Frozen terms, sorted; offsets has one more entry. */
  vocabulary: TermList;
  offsets: Uint32Array;
  docs: SlotArray;
  tfs: Uint8Array;
  /** Terms added since, with their ids (vocabulary.length and up). */
  newTerms: readonly string[];
  newIds: ReadonlyMap<string, number>;
  /** Overflow postings: term id, slot, frequency; the first pendingCount are used. */
  pendingTerms: Uint32Array;
  pendingSlots: Uint32Array;
  pendingTfs: Uint8Array;
  pendingCount: number;
}

export interface FrozenBlock {
  vocabulary: TermList;
  offsets: Uint32Array;
  docs: SlotArray;
  tfs: Uint8Array;
}

/** Postings or terms handled between two points where an asynchronous freeze may pause. */
const WORK_PER_STEP = 131_072;

/**
 * The freeze as steps: it yields every WORK_PER_STEP postings or terms, so a caller may pause there
 * (a build's last freeze at 10,000 skills moves 2.3 million postings: 40 ms and more in one go).
 */
export function* freezeSteps(old: PostingsState, ids: LiveSlots, dropDead: boolean): Generator<void, FrozenBlock> {
  let work = 0;
  const frozenTerms = old.vocabulary.length;
  // Old id → new id: frozen terms keep their relative order, new terms are merged in.
  // The default sort (UTF-16 code units) orders as `<` does, and is much faster than a comparator.
  const added = [...old.newTerms].sort();
  const terms = frozenTerms + added.length;
  const merge = old.vocabulary.merged(added);
  const renumber = new Uint32Array(terms);
  renumber.set(merge.renumber);
  for (const [j, term] of added.entries()) renumber[old.newIds.get(term) as number] = merge.placed[j] as number;
  const vocabulary = merge.list;
  work += terms;
  if (work >= WORK_PER_STEP) {
    work = 0;
    yield;
  }
  const counts = new Uint32Array(terms + 1);
  for (let t = 0; t < frozenTerms; t++) {
    const start = old.offsets[t] as number;
    const end = old.offsets[t + 1] as number;
    let n = end - start;
    if (dropDead) for (let p = start; p < end; p++) if (!ids.live(old.docs[p] as number)) n--;
    counts[(renumber[t] as number) + 1] = n;
    work += 1 + (dropDead ? end - start : 0);
    if (work >= WORK_PER_STEP) {
      work = 0;
      yield;
    }
  }
  for (let p = 0; p < old.pendingCount; p++) {
    if (!dropDead || ids.live(old.pendingSlots[p] as number)) {
      const at = (renumber[old.pendingTerms[p] as number] as number) + 1;
      counts[at] = (counts[at] as number) + 1;
    }
    if (++work >= WORK_PER_STEP) {
      work = 0;
      yield;
    }
  }
  for (let t = 1; t <= terms; t++) counts[t] = (counts[t] as number) + (counts[t - 1] as number);
  const docs = slotArray(counts[terms] as number, ids.length);
  const tfs = new Uint8Array(docs.length);
  const fill = counts.slice();
  for (let t = 0; t < frozenTerms; t++) {
    work += 1 + (old.offsets[t + 1] as number) - (old.offsets[t] as number);
    if (work >= WORK_PER_STEP) {
      work = 0;
      yield;
    }
    const to = renumber[t] as number;
    if (!dropDead) {
      // No freed slot to drop: the term's frozen postings move as one block.
      const start = old.offsets[t] as number;
      const end = old.offsets[t + 1] as number;
      const at = fill[to] as number;
      docs.set(old.docs.subarray(start, end), at);
      tfs.set(old.tfs.subarray(start, end), at);
      fill[to] = at + end - start;
    } else
      for (let p = old.offsets[t] as number; p < (old.offsets[t + 1] as number); p++) {
        const slot = old.docs[p] as number;
        if (!ids.live(slot)) continue;
        const at = fill[to] as number;
        docs[at] = slot;
        tfs[at] = old.tfs[p] as number;
        fill[to] = at + 1;
      }
  }
  // Then the overflow, in the order it was added (after each term's frozen block).
  for (let p = 0; p < old.pendingCount; p++) {
    if (++work >= WORK_PER_STEP) {
      work = 0;
      yield;
    }
    const slot = old.pendingSlots[p] as number;
    if (dropDead && !ids.live(slot)) continue;
    const to = renumber[old.pendingTerms[p] as number] as number;
    const at = fill[to] as number;
    docs[at] = slot;
    tfs[at] = old.pendingTfs[p] as number;
    fill[to] = at + 1;
  }
  return { vocabulary, offsets: counts, docs, tfs };
}

/** The raw arrays of a frozen store (what is persisted). */
export interface FrozenPostings {
  vocabulary: TermList;
  offsets: Uint32Array;
  docs: SlotArray;
  tfs: Uint8Array;
  lengths: Uint32Array;
}

/**
 * Refuse persisted arrays that do not make one consistent store over `slots` document slots. The
 * postings themselves are not read (a mapped file's pages would all become resident): a posting that
 * names a slot past the documents is skipped when scored (FieldPostings.scoreTerm).
 */
export function checkFrozen(data: FrozenPostings, slots: number): void {
  if (
    data.offsets.length !== data.vocabulary.length + 1 ||
    data.docs.length !== data.tfs.length ||
    data.offsets[data.offsets.length - 1] !== data.docs.length ||
    data.lengths.length !== slots
  )
    throw new Error("field postings are inconsistent");
  for (let t = 0; t < data.vocabulary.length; t++)
    if ((data.offsets[t] as number) > (data.offsets[t + 1] as number))
      throw new Error("field postings are inconsistent");
  if (!data.vocabulary.isSorted()) throw new Error("field postings' vocabulary is not sorted");
}

/** A copy of `array` in a new one of `size` elements (the rest zero). */
export function grown<T extends Uint8Array | Uint16Array | Uint32Array>(array: T, size: number): T {
  const next = new (array.constructor as new (length: number) => T)(size);
  next.set(array);
  return next;
}
