/**
 * Per-document scores of one query, by document slot: a dense Float64Array and a bit set of the
 * query terms each document matched, instead of a Map entry and an array per document (issue 16:
 * an OR query touches a third of 10,000 skills). Query terms are numbered in the order first seen;
 * the first 32 use the bit set, any further ones a small map.
 */
export class Scores {
  private readonly values: Float64Array;
  private readonly bits: Uint32Array;
  private readonly more = new Map<number, Set<number>>();
  private readonly touched: number[] = [];
  private readonly termIndex = new Map<string, number>();
  private readonly terms: string[] = [];

  constructor(slots: number) {
    this.values = new Float64Array(slots);
    this.bits = new Uint32Array(slots);
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
    this.values[slot] = (this.values[slot] as number) + value;
    if (term < 32) this.bits[slot] = bits | (1 << term);
    else {
      const set = this.more.get(slot) ?? new Set<number>();
      set.add(term);
      this.more.set(slot, set);
    }
  }

  /** Each document touched: its slot, score and the query terms it matched (in query order). */
  *entries(): Generator<[slot: number, score: number, terms: string[]]> {
    for (const slot of this.touched) {
      const terms: string[] = [];
      const bits = this.bits[slot] as number;
      for (let t = 0; t < Math.min(32, this.terms.length); t++)
        if (bits & (1 << t)) terms.push(this.terms[t] as string);
      const extra = this.more.get(slot);
      if (extra) for (const t of [...extra].sort((a, b) => a - b)) terms.push(this.terms[t] as string);
      yield [slot, this.values[slot] as number, terms];
    }
  }
}
