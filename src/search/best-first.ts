/**
 * The documents a query touched, best score first (ties in the order first touched), taken one at a
 * time from a binary max-heap: a long OR query touches most of 10,000 skills and the engine reads a
 * few hundred. Issue 16: the heap was closures inside a generator reading each score through the list
 * of touched slots; building it over 6,844 documents and reading 220 took 390 µs, here 160 µs.
 */
export class BestFirst {
  /** Each touched document's score, by its position in `touched`. */
  private readonly keys: Float64Array;
  /** Positions in `touched`, heap-ordered by `before`. */
  private readonly heap: Uint32Array;
  private size: number;

  /** `values` is read once, here: the scores may not change while this is read. */
  constructor(
    private readonly touched: readonly number[],
    values: Float64Array,
  ) {
    const n = touched.length;
    this.keys = new Float64Array(n);
    this.heap = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      this.keys[i] = values[touched[i] as number] as number;
      this.heap[i] = i;
    }
    this.size = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The next best document's slot, or -1 once every one was read. */
  next(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0] as number;
    this.size--;
    this.heap[0] = this.heap[this.size] as number;
    this.down(0);
    return this.touched[top] as number;
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
