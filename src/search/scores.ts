import { BestFirst } from "./best-first.ts";

/**
 * Per-document scores of one query, by document slot: a dense Float64Array and a bit set of the
 * query terms each document matched, instead of a Map entry and an array per document (an
 * OR query touches a third of 10,000 skills). Query terms are numbered in the order first seen;
 * the first 32 use the bit set, any further ones a small map.
 */

/** One document's result: its slot, summed score and the query terms it matched (in query order). */
export interface ScoredSlot {
  slot: number;
  raw: number;
  /** Shared by every document that matched the same terms (the engine computes coverage once per set). */
  queryTerms: string[];
}

/** A query's per-document arrays, zeroed between uses, and its lists of slots, emptied. */
interface Buffers {
  values: Float64Array;
  bits: Uint32Array;
  held?: Float64Array;
  touched: SlotList;
  heldSlots: SlotList;
}

/**
 * Slots in a typed array kept from query to query (an array of numbers grown to the 9,400
 * documents a query touches at 10,000 skills, new for each search, was a quarter of ranking's time).
 */
export class SlotList {
  items: Uint32Array;
  length = 0;

  constructor(capacity: number) {
    this.items = new Uint32Array(Math.max(16, capacity));
  }

  push(slot: number): void {
    if (this.length === this.items.length) {
      const grown = new Uint32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = slot;
  }
}

/**
 * Buffers of finished queries, for the next ones (allocating three arrays of one number per
 * skill for every search, and the collections they brought on, were 16% of a search's CPU at 10,000
 * skills). Two at most: queries run one at a time.
 */
const spare: Buffers[] = [];
const MAX_SPARE = 2;

function buffers(slots: number): Buffers {
  for (let b = spare.pop(); b; b = spare.pop()) if (b.values.length === slots) return b;
  return {
    values: new Float64Array(slots),
    bits: new Uint32Array(slots),
    touched: new SlotList(slots),
    heldSlots: new SlotList(slots),
  };
}

export class Scores {
  private readonly values: Float64Array;
  private readonly bits: Uint32Array;
  private released = false;
  private readonly more = new Map<number, Set<number>>();
  private readonly touched: SlotList;
  private readonly termIndex = new Map<string, number>();
  private readonly terms: string[] = [];
  /** Documents that matched each term, counted as they first do (matched() reads it). */
  private readonly counts: number[] = [];
  /** Scores held apart by `hold` until `compress` (one query term's metadata score). */
  private held?: Float64Array;
  private readonly heldSlots: SlotList;
  private holding = false;

  constructor(slots: number, terms: readonly string[] = []) {
    const { values, bits, held, touched, heldSlots } = buffers(slots);
    this.values = values;
    this.bits = bits;
    this.held = held;
    this.touched = touched;
    this.heldSlots = heldSlots;
    for (const t of terms) this.term(t);
  }

  /**
   * Give the arrays back for the next query, zeroed (only the documents touched: the rest still are).
   * Nothing may be read or added afterwards; the terms lists already handed out stay valid.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    const { touched, heldSlots } = this;
    for (let i = 0; i < touched.length; i++) {
      const slot = touched.items[i] as number;
      this.values[slot] = 0;
      this.bits[slot] = 0;
    }
    if (this.held) for (let i = 0; i < heldSlots.length; i++) this.held[heldSlots.items[i] as number] = 0;
    touched.length = 0;
    heldSlots.length = 0;
    if (spare.length < MAX_SPARE)
      spare.push({ values: this.values, bits: this.bits, held: this.held, touched, heldSlots });
  }

  /** The number of a query term (its bit). */
  term(query: string): number {
    let i = this.termIndex.get(query);
    if (i === undefined) {
      i = this.terms.length;
      this.terms.push(query);
      this.counts.push(0);
      this.termIndex.set(query, i);
    }
    return i;
  }

  add(slot: number, term: number, value: number): void {
    const bits = this.bits[slot] as number;
    // `more` is empty but for queries of more than 32 terms: no look-up per document otherwise.
    if (bits === 0 && (this.more.size === 0 || !this.more.has(slot))) this.touched.push(slot);
    if (this.holding) {
      const held = this.held as Float64Array;
      if (held[slot] === 0) this.heldSlots.push(slot);
      held[slot] = (held[slot] as number) + value;
    } else this.values[slot] = (this.values[slot] as number) + value;
    if (term < 32) {
      if ((bits & (1 << term)) === 0) {
        this.bits[slot] = bits | (1 << term);
        (this.counts[term] as number)++;
      }
    } else {
      const set = this.more.get(slot) ?? new Set<number>();
      if (!set.has(term)) (this.counts[term] as number)++;
      set.add(term);
      this.more.set(slot, set);
    }
  }

  /** `add` for the first `n` of `slots` with their `values` (one term's postings; no call per posting). */
  addRun(term: number, slots: Uint32Array, values: Float64Array, n: number): void {
    // More than 32 terms in the query: the general path (`more`).
    if (term >= 32 || this.more.size > 0) {
      for (let i = 0; i < n; i++) this.add(slots[i] as number, term, values[i] as number);
      return;
    }
    const matched = this.holding
      ? sumRun(slots, values, n, 1 << term, this.bits, this.touched, this.held as Float64Array, this.heldSlots)
      : sumRun(slots, values, n, 1 << term, this.bits, this.touched, this.values);
    this.counts[term] = (this.counts[term] as number) + matched;
  }

  /** Hold the values added from now on apart, until `compress`. */
  hold(): void {
    this.held ??= new Float64Array(this.values.length);
    this.holding = true;
  }

  /** Add each document's held sum raised to `power` (scoring.ts's metaPower), and stop holding. */
  compress(power: number): void {
    const held = this.held as Float64Array;
    const { heldSlots } = this;
    for (let i = 0; i < heldSlots.length; i++) {
      const slot = heldSlots.items[i] as number;
      this.values[slot] = (this.values[slot] as number) + (held[slot] as number) ** power;
      held[slot] = 0;
    }
    this.heldSlots.length = 0;
    this.holding = false;
  }

  /** Every document touched, best first (ties in the order first touched), and how many matched each term. */
  ranked(): { hits: ScoredSlot[]; matched: Map<string, number> } {
    return { hits: [...this.bestFirst()], matched: this.matched() };
  }

  /**
   * The documents touched, best first (ties in the order first touched), produced as they are read:
   * a long OR query touches nearly every document (9,600 of 10,000), the engine reads a few hundred,
   * and sorting them all was most of a search's time (1.4 of 2.4 ms in process at 10,000 skills).
   */
  *bestFirst(): Generator<ScoredSlot> {
    const order = this.order();
    for (let slot = order.next(); slot !== -1; slot = order.next())
      yield { slot, raw: this.raw(slot), queryTerms: this.group(slot) };
  }

  /** The documents touched, best first, one slot at a time (bestFirst without a generator per hit). */
  order(): BestFirst {
    if (this.released) throw new Error("Scores read after release()");
    return new BestFirst(this.touched.items, this.values, this.touched.length);
  }

  /** A document's summed score (read before release). */
  raw(slot: number): number {
    return this.values[slot] as number;
  }

  /** How many documents matched each query term. */
  matched(): Map<string, number> {
    const matched = new Map<string, number>();
    this.terms.forEach((t, i) => {
      if ((this.counts[i] as number) > 0) matched.set(t, this.counts[i] as number);
    });
    return matched;
  }

  /** The query terms a document matched: documents that matched the same terms share one array. */
  private readonly groups = new Map<number | string, string[]>();

  group(slot: number): string[] {
    const bits = this.bits[slot] as number;
    const extra = this.more.get(slot);
    const key = extra ? `${bits},${[...extra].sort((a, b) => a - b).join(",")}` : bits;
    let terms = this.groups.get(key);
    if (!terms) {
      terms = [];
      for (let t = 0; t < Math.min(32, this.terms.length); t++)
        if (bits & (1 << t)) terms.push(this.terms[t] as string);
      if (extra) for (const t of [...extra].sort((a, b) => a - b)) terms.push(this.terms[t] as string);
      this.groups.set(key, terms);
    }
    return terms;
  }
}

/**
 * Scores.add's work for a run of one term's postings (bit `bit`), as a plain loop over arguments.
 * `heldSlots`: summing into the held array, whose slots are listed as they first get a value.
 * Returns the documents that matched the term for the first time.
 */
function sumRun(
  slots: Uint32Array,
  values: Float64Array,
  n: number,
  bit: number,
  bits: Uint32Array,
  touched: SlotList,
  sums: Float64Array,
  heldSlots?: SlotList,
): number {
  let matched = 0;
  for (let i = 0; i < n; i++) {
    const slot = slots[i] as number;
    const had = bits[slot] as number;
    if (had === 0) touched.push(slot);
    if (heldSlots !== undefined && sums[slot] === 0) heldSlots.push(slot);
    sums[slot] = (sums[slot] as number) + (values[i] as number);
    if ((had & bit) === 0) {
      bits[slot] = had | bit;
      matched++;
    }
  }
  return matched;
}
