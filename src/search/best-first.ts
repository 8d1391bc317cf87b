/**
 * The documents a query touched, best score first (ties in the order first touched), taken one at a
 * time from a binary max-heap: a long OR query touches most of 10,000 skills (9,400 at the median)
 * and the engine reads a couple of hundred. Only documents scoring at least an eighth of the best are
 * heaped at first (470 at the median); the others are heaped if a reader gets to them, and all of
 * them score lower, so the order read is the same. Heaping every document touched was 18 %
 * of a search's ranking at 10,000 skills.
 */
export class BestFirst {
  /** Each touched document's score, by its position in `touched`. */
  private readonly keys: Float64Array;
  /** Positions in `touched`, heap-ordered by `before`: the leading ones, then the others. */
  private heap = new Uint32Array(0);
  private size = 0;
  /** Scores below this are left for later; undefined once they are heaped. */
  private below?: number;

  /** The first `n` of `touched`; `values` is read once, here: the scores may not change while this is read. */
  constructor(
    private readonly touched: ArrayLike<number>,
    values: Float64Array,
    n = touched.length,
  ) {
    this.keys = new Float64Array(n);
    let best = 0;
    for (let i = 0; i < n; i++) {
      const key = values[touched[i] as number] as number;
      this.keys[i] = key;
      if (key > best) best = key;
    }
    this.below = best / LEADING_SHARE;
    this.heapOf((key) => key >= (this.below as number));
  }

  /** The next best document's slot, or -1 once every one was read. */
  next(): number {
    if (this.size === 0 && this.below !== undefined) {
      const below = this.below;
      this.below = undefined;
      this.heapOf((key) => key < below);
    }
    if (this.size === 0) return -1;
    const top = this.heap[0] as number;
    this.size--;
    this.heap[0] = this.heap[this.size] as number;
    this.down(0);
    return this.touched[top] as number;
  }

  /** Make the heap of the positions whose score passes `take`. */
  private heapOf(take: (key: number) => boolean): void {
    const { keys } = this;
    let n = 0;
    for (let i = 0; i < keys.length; i++) if (take(keys[i] as number)) n++;
    const heap = new Uint32Array(n);
    n = 0;
    for (let i = 0; i < keys.length; i++) if (take(keys[i] as number)) heap[n++] = i;
    this.heap = heap;
    this.size = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** Higher score first, then the earlier touched: a total order, so the order read is fixed. */
  private before(a: number, b: number): boolean {
    const ka = this.keys[a] as number;
    const kb = this.keys[b] as number;
    return ka > kb || (ka === kb && a < b);
  }

  private down(from: number): void {
    const heap = this.heap;
    const size = this.size;
    const item = heap[from] as number;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && this.before(heap[right] as number, heap[left] as number) ? right : left;
      if (!this.before(heap[child] as number, item)) break;
      heap[at] = heap[child] as number;
      at = child;
    }
    heap[at] = item;
  }
}

/** Documents scoring at least 1/LEADING_SHARE of the best are heaped first (the engine rarely reads past them). */
const LEADING_SHARE = 8;
