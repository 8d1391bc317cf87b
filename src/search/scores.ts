/**
 * Per-document scores of one query, by document slot: a dense Float64Array and a bit set of the
 * query terms each document matched, instead of a Map entry and an array per document (issue 16:
 * an OR query touches a third of 10,000 skills). Query terms are numbered in the order first seen;
 * the first 32 use the bit set, any further ones a small map.
 */

/** One document's result: its slot, summed score and the query terms it matched (in query order). */
export interface ScoredSlot {
  slot: number;
  raw: number;
  /** Shared by every document that matched the same terms (the engine computes coverage once per set). */
  queryTerms: string[];
}

export class Scores {
  private readonly values: Float64Array;
  private readonly bits: Uint32Array;
  private readonly more = new Map<number, Set<number>>();
  private readonly touched: number[] = [];
  private readonly termIndex = new Map<string, number>();
  private readonly terms: string[] = [];
  /** Scores held apart by `hold` until `compress` (one query term's metadata score). */
  private held?: Float64Array;
  private readonly heldSlots: number[] = [];
  private holding = false;

  constructor(slots: number, terms: readonly string[] = []) {
    this.values = new Float64Array(slots);
    this.bits = new Uint32Array(slots);
    for (const t of terms) this.term(t);
  }

  /** The number of a query term (its bit). */
  term(query: string): number {
    let i = this.termIndex.get(query);
    if (i === undefined) {
      i = this.terms.length;
      this.terms.push(query);
      this.termIndex.set(query, i);
    }
    return i;
  }

  add(slot: number, term: number, value: number): void {
    const bits = this.bits[slot] as number;
    if (bits === 0 && !this.more.has(slot)) this.touched.push(slot);
    if (this.holding) {
      const held = this.held as Float64Array;
      if (held[slot] === 0) this.heldSlots.push(slot);
      held[slot] = (held[slot] as number) + value;
    } else this.values[slot] = (this.values[slot] as number) + value;
    if (term < 32) this.bits[slot] = bits | (1 << term);
    else {
      const set = this.more.get(slot) ?? new Set<number>();
      set.add(term);
      this.more.set(slot, set);
    }
  }

  /** Hold the values added from now on apart, until `compress`. */
  hold(): void {
    this.held ??= new Float64Array(this.values.length);
    this.holding = true;
  }

  /** Add each document's held sum raised to `power` (scoring.ts's metaPower), and stop holding. */
  compress(power: number): void {
    const held = this.held as Float64Array;
    for (const slot of this.heldSlots) {
      this.values[slot] = (this.values[slot] as number) + (held[slot] as number) ** power;
      held[slot] = 0;
    }
    this.heldSlots.length = 0;
    this.holding = false;
  }

  /** Every document touched, best first (ties in the order first touched), and how many matched each term. */
  ranked(): { hits: ScoredSlot[]; matched: Map<string, number> } {
    const count = this.touched.length;
    const order = Uint32Array.from(this.touched);
    const values = this.values;
    order.sort((a, b) => (values[b] as number) - (values[a] as number));
    const shared = new Map<number | string, { terms: string[]; docs: number }>();
    const hits: ScoredSlot[] = new Array(count);
    for (let k = 0; k < count; k++) {
      const slot = order[k] as number;
      const bits = this.bits[slot] as number;
      const extra = this.more.get(slot);
      const key = extra ? `${bits},${[...extra].sort((a, b) => a - b).join(",")}` : bits;
      let group = shared.get(key);
      if (!group) {
        const terms: string[] = [];
        for (let t = 0; t < Math.min(32, this.terms.length); t++)
          if (bits & (1 << t)) terms.push(this.terms[t] as string);
        if (extra) for (const t of [...extra].sort((a, b) => a - b)) terms.push(this.terms[t] as string);
        group = { terms, docs: 0 };
        shared.set(key, group);
      }
      group.docs++;
      hits[k] = { slot, raw: values[slot] as number, queryTerms: group.terms };
    }
    const matched = new Map<string, number>();
    for (const { terms, docs } of shared.values()) for (const t of terms) matched.set(t, (matched.get(t) ?? 0) + docs);
    return { hits, matched };
  }
}
