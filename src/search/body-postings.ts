import MiniSearch from "minisearch";
import { processTerm } from "./text.ts";

/**
 * Skill bodies' postings in typed arrays (issue 16): MiniSearch keeps a Map
 * entry per posting (~170 bytes each in JavaScriptCore), which made full
 * bodies at 10,000 skills cost more than the whole catalog. Here a posting is
 * 6 bytes (document slot + term frequency) in one compressed-sparse-row block,
 * plus a small per-term overflow for documents added since the last freeze.
 * Scores are MiniSearch's own BM25+ with the same parameters, term weights for
 * prefix matches and field length (unique tokens), so FullTextIndex can add
 * them to MiniSearch's metadata scores as if body were one more field.
 */

/** MiniSearch's defaults (bm25 k, b, d; prefix weight), kept identical so scores add up. */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const PREFIX_WEIGHT = 0.375;
/** Term frequencies saturate long before this; stored in 16 bits. */
const MAX_TF = 0xffff;

const tokenize = MiniSearch.getDefault("tokenize") as (text: string) => string[];

export interface BodyMatch {
  /** Weighted BM25+ sum over the query terms that matched (before MiniSearch's coverage factor). */
  score: number;
  /** Query terms (processed) that matched the body. */
  terms: string[];
}

/** The persisted form: plain arrays and base64 blocks (see toJSON). */
export interface EncodedBodyPostings {
  ids: (string | null)[];
  lengths: string;
  vocabulary: string;
  offsets: string;
  docs: string;
  tfs: string;
}

export class BodyPostings {
  private readonly termIds = new Map<string, number>();
  private vocabulary: string[] = [];
  /** Vocabulary in sorted order up to the last freeze (prefix expansion by binary search). */
  private sorted: string[] = [];
  /** Terms first seen since the last freeze (scanned linearly for prefixes). */
  private newTerms: string[] = [];
  private offsets = new Uint32Array(1);
  private docs = new Uint32Array(0);
  private tfs = new Uint16Array(0);
  /** termId → [slot, tf, slot, tf, …] for documents added since the last freeze. */
  private pending = new Map<number, number[]>();
  private pendingCount = 0;
  private ids: (string | undefined)[] = [];
  private readonly slots = new Map<string, number>();
  private lengths = new Uint32Array(64);
  private totalLength = 0;
  private dead = 0;

  get size(): number {
    return this.slots.size;
  }

  /** Postings held (frozen + pending), for the benchmark's memory accounting. */
  get postings(): number {
    return this.docs.length + this.pendingCount;
  }

  add(id: string, text: string): void {
    if (this.slots.has(id)) this.remove(id);
    const slot = this.ids.length;
    this.ids.push(id);
    this.slots.set(id, slot);
    const tokens = tokenize(text);
    const counts = new Map<string, number>();
    for (const token of tokens) {
      const term = processTerm(token);
      if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    // Field length as MiniSearch counts it: distinct raw tokens.
    const length = new Set(tokens).size;
    if (slot >= this.lengths.length) {
      const grown = new Uint32Array(this.lengths.length * 2);
      grown.set(this.lengths);
      this.lengths = grown;
    }
    this.lengths[slot] = length;
    this.totalLength += length;
    for (const [term, tf] of counts) {
      let termId = this.termIds.get(term);
      if (termId === undefined) {
        termId = this.vocabulary.length;
        this.vocabulary.push(term);
        this.termIds.set(term, termId);
        this.newTerms.push(term);
      }
      let list = this.pending.get(termId);
      if (!list) {
        list = [];
        this.pending.set(termId, list);
      }
      list.push(slot, Math.min(tf, MAX_TF));
      this.pendingCount++;
    }
    // Geometric freezing keeps the overflow at most a third of all postings: amortised linear build.
    if (this.pendingCount > 50_000 && this.pendingCount > this.docs.length / 2) this.freeze();
  }

  remove(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    this.slots.delete(id);
    this.ids[slot] = undefined;
    this.totalLength -= this.lengths[slot] ?? 0;
    this.dead++;
    // Stale postings are skipped at query time and dropped at the next freeze.
    if (this.dead > 1000 && this.dead > this.slots.size / 4) this.freeze();
  }

  /**
   * Body scores per document slot id for the processed query terms; `prefix`
   * says which terms also expand to longer vocabulary terms (as MiniSearch does).
   */
  search(terms: readonly string[], prefix: (term: string) => boolean, boost: number): Map<string, BodyMatch> {
    const out = new Map<number, BodyMatch>();
    const live = this.slots.size;
    if (live === 0) return new Map();
    const avg = this.totalLength / live;
    for (const query of terms) {
      const exact = this.termIds.get(query);
      if (exact !== undefined) this.score(query, exact, 1, boost, avg, live, out);
      if (!prefix(query)) continue;
      for (const term of this.withPrefix(query)) {
        const distance = term.length - query.length;
        const weight = (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance);
        this.score(query, this.termIds.get(term) as number, weight, boost, avg, live, out);
      }
    }
    const byId = new Map<string, BodyMatch>();
    for (const [slot, match] of out) byId.set(this.ids[slot] as string, match);
    return byId;
  }

  /**
   * After a batch of changes: freeze when the overflow has grown enough to slow queries (its new
   * terms are scanned linearly for prefixes); a single edited skill stays in the overflow.
   */
  settle(): void {
    if (this.newTerms.length > 256 || this.pendingCount > 10_000 || this.dead > 256) this.freeze();
  }

  /** Fold the overflow and removals into the typed arrays. */
  freeze(): void {
    const terms = this.vocabulary.length;
    const counts = new Uint32Array(terms + 1);
    for (let t = 0; t < this.offsets.length - 1; t++)
      for (let i = this.offsets[t] as number; i < (this.offsets[t + 1] as number); i++)
        if (this.ids[this.docs[i] as number] !== undefined) counts[t + 1] = (counts[t + 1] as number) + 1;
    for (const [t, list] of this.pending)
      for (let i = 0; i < list.length; i += 2)
        if (this.ids[list[i] as number] !== undefined) counts[t + 1] = (counts[t + 1] as number) + 1;
    for (let t = 1; t <= terms; t++) counts[t] = (counts[t] as number) + (counts[t - 1] as number);
    const docs = new Uint32Array(counts[terms] as number);
    const tfs = new Uint16Array(docs.length);
    const fill = counts.slice();
    for (let t = 0; t < terms; t++) {
      if (t < this.offsets.length - 1)
        for (let i = this.offsets[t] as number; i < (this.offsets[t + 1] as number); i++) {
          const slot = this.docs[i] as number;
          if (this.ids[slot] === undefined) continue;
          const at = fill[t] as number;
          docs[at] = slot;
          tfs[at] = this.tfs[i] as number;
          fill[t] = at + 1;
        }
      const list = this.pending.get(t);
      if (list)
        for (let i = 0; i < list.length; i += 2) {
          const slot = list[i] as number;
          if (this.ids[slot] === undefined) continue;
          const at = fill[t] as number;
          docs[at] = slot;
          tfs[at] = list[i + 1] as number;
          fill[t] = at + 1;
        }
    }
    this.offsets = counts;
    this.docs = docs;
    this.tfs = tfs;
    this.pending = new Map();
    this.pendingCount = 0;
    this.dead = 0;
    if (this.newTerms.length > 0) {
      this.sorted = mergeSorted(this.sorted, this.newTerms.sort());
      this.newTerms = [];
    }
  }

  toJSON(): EncodedBodyPostings {
    this.freeze();
    const b64 = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
    return {
      ids: this.ids.map((id) => id ?? null),
      lengths: b64(this.lengths.subarray(0, this.ids.length)),
      vocabulary: this.vocabulary.join("\n"),
      offsets: b64(this.offsets),
      docs: b64(this.docs),
      tfs: b64(this.tfs),
    };
  }

  static fromJSON(json: EncodedBodyPostings): BodyPostings {
    const p = new BodyPostings();
    const bytes = (s: string) => {
      const buf = Buffer.from(s, "base64");
      // Copy into a fresh, aligned buffer (a pooled Buffer's offset may not be a multiple of 4).
      return new Uint8Array(buf).buffer;
    };
    p.ids = json.ids.map((id) => id ?? undefined);
    p.ids.forEach((id, slot) => {
      if (id !== undefined) p.slots.set(id, slot);
    });
    p.dead = p.ids.length - p.slots.size;
    const lengths = new Uint32Array(bytes(json.lengths));
    p.lengths = new Uint32Array(Math.max(64, lengths.length * 2));
    p.lengths.set(lengths);
    for (const [, slot] of p.slots) p.totalLength += lengths[slot] as number;
    p.vocabulary = json.vocabulary === "" ? [] : json.vocabulary.split("\n");
    for (let id = 0; id < p.vocabulary.length; id++) p.termIds.set(p.vocabulary[id] as string, id);
    p.sorted = [...p.vocabulary].sort();
    p.offsets = new Uint32Array(bytes(json.offsets));
    p.docs = new Uint32Array(bytes(json.docs));
    p.tfs = new Uint16Array(bytes(json.tfs));
    if (p.offsets.length !== p.vocabulary.length + 1 || p.docs.length !== p.tfs.length)
      throw new Error("body postings are inconsistent");
    return p;
  }

  private *withPrefix(query: string): Generator<string> {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.sorted[mid] as string) < query) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.sorted.length; i++) {
      const term = this.sorted[i] as string;
      if (!term.startsWith(query)) break;
      if (term !== query) yield term;
    }
    for (const term of this.newTerms) if (term !== query && term.startsWith(query)) yield term;
  }

  private score(
    query: string,
    termId: number,
    weight: number,
    boost: number,
    avg: number,
    live: number,
    out: Map<number, BodyMatch>,
  ): void {
    const start = termId < this.offsets.length - 1 ? (this.offsets[termId] as number) : 0;
    const end = termId < this.offsets.length - 1 ? (this.offsets[termId + 1] as number) : 0;
    const extra = this.pending.get(termId) ?? [];
    let df = 0;
    for (let i = start; i < end; i++) if (this.ids[this.docs[i] as number] !== undefined) df++;
    for (let i = 0; i < extra.length; i += 2) if (this.ids[extra[i] as number] !== undefined) df++;
    if (df === 0) return;
    const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
    const add = (slot: number, tf: number) => {
      if (this.ids[slot] === undefined) return;
      const length = this.lengths[slot] as number;
      const bm25 = idf * (BM25.d + (tf * (BM25.k + 1)) / (tf + BM25.k * (1 - BM25.b + (BM25.b * length) / avg)));
      const value = weight * boost * bm25;
      const match = out.get(slot);
      if (!match) out.set(slot, { score: value, terms: [query] });
      else {
        match.score += value;
        if (!match.terms.includes(query)) match.terms.push(query);
      }
    };
    for (let i = start; i < end; i++) add(this.docs[i] as number, this.tfs[i] as number);
    for (let i = 0; i < extra.length; i += 2) add(extra[i] as number, extra[i + 1] as number);
  }
}

function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length)
    out[k++] = (a[i] as string) < (b[j] as string) ? (a[i++] as string) : (b[j++] as string);
  while (i < a.length) out[k++] = a[i++] as string;
  while (j < b.length) out[k++] = b[j++] as string;
  return out;
}
