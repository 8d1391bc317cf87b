/**
 * A sorted list of terms kept as one string and the offsets where each term starts: the form a field's
 * vocabulary has in the saved index file, so a load takes it whole instead of making a string per term.
 * A term is read back as a slice only where a query needs it; look-ups compare in place.
 */
export class TermList {
  /** `starts` has one more entry than there are terms: term i is text[starts[i], starts[i + 1]). */
  private constructor(
    readonly text: string,
    private readonly starts: Uint32Array,
  ) {}

  static readonly EMPTY = new TermList("", new Uint32Array(1));

  /** The list of `terms` (already sorted). */
  static of(terms: readonly string[]): TermList {
    return TermList.fromLengths(
      terms.join(""),
      Uint32Array.from(terms, (t) => t.length),
    );
  }

  /** The list whose terms are `text` cut at these UTF-16 lengths (which must add up to its length). */
  static fromLengths(text: string, lengths: Uint32Array): TermList {
    const starts = new Uint32Array(lengths.length + 1);
    for (let i = 0; i < lengths.length; i++) starts[i + 1] = (starts[i] as number) + (lengths[i] as number);
    if (starts[lengths.length] !== text.length) throw new Error("term lengths do not add up to the text");
    return new TermList(text, starts);
  }

  get length(): number {
    return this.starts.length - 1;
  }

  at(i: number): string {
    return this.text.slice(this.starts[i], this.starts[i + 1]);
  }

  /** Each term's length, in order (what the index file stores). */
  lengths(): Uint32Array {
    const out = new Uint32Array(this.length);
    for (let i = 0; i < out.length; i++) out[i] = (this.starts[i + 1] as number) - (this.starts[i] as number);
    return out;
  }

  /** Term i against `term` in UTF-16 code units (as `<` orders strings): negative, 0 or positive. */
  compare(i: number, term: string): number {
    return this.compareWith(i, term, 0, term.length);
  }

  /** Term i against `other`'s characters [from, from + length). */
  private compareWith(i: number, other: string, from: number, length: number): number {
    const start = this.starts[i] as number;
    const own = (this.starts[i + 1] as number) - start;
    const n = Math.min(own, length);
    for (let k = 0; k < n; k++) {
      const d = this.text.charCodeAt(start + k) - other.charCodeAt(from + k);
      if (d !== 0) return d;
    }
    return own - length;
  }

  /** Whether term i begins with `prefix`. */
  startsWith(i: number, prefix: string): boolean {
    const start = this.starts[i] as number;
    return (this.starts[i + 1] as number) - start >= prefix.length && this.text.startsWith(prefix, start);
  }

  /** First position whose term is not below `term`. */
  lowerBound(term: string): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(mid, term) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether every term is strictly below the next. */
  isSorted(): boolean {
    for (let i = 1; i < this.length; i++) {
      const start = this.starts[i] as number;
      if (this.compareWith(i - 1, this.text, start, (this.starts[i + 1] as number) - start) >= 0) return false;
    }
    return true;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  /**
   * This list with `added` (sorted, none already here) merged in, and where each old term (`renumber`)
   * and each added one (`placed`) went: runs of old terms between two added ones are copied as one slice.
   */
  merged(added: readonly string[]): { list: TermList; renumber: Uint32Array; placed: Uint32Array } {
    const terms = this.length + added.length;
    const renumber = new Uint32Array(this.length);
    const placed = new Uint32Array(added.length);
    const lengths = new Uint32Array(terms);
    const pieces: string[] = [];
    let i = 0;
    let k = 0;
    for (const [j, next] of added.entries()) {
      const runStart = i;
      while (i < this.length && this.compare(i, next) < 0) {
        lengths[k] = (this.starts[i + 1] as number) - (this.starts[i] as number);
        renumber[i++] = k++;
      }
      if (i > runStart) pieces.push(this.text.slice(this.starts[runStart], this.starts[i]));
      pieces.push(next);
      placed[j] = k;
      lengths[k++] = next.length;
    }
    pieces.push(this.text.slice(this.starts[i]));
    for (; i < this.length; i++) {
      lengths[k] = (this.starts[i + 1] as number) - (this.starts[i] as number);
      renumber[i] = k++;
    }
    return { list: TermList.fromLengths(pieces.join(""), lengths), renumber, placed };
  }
}
