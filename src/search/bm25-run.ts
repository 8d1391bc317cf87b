import type { SlotArray } from "./freeze.ts";

/**
 * A term's postings scored in plain loops: BM25+ into a run of slots and values here, then summed by
 * Scores.addRun (a query's 20,700 postings at 10,000 skills, scored through a closure and added
 * one Scores.add call each, took 33 + 21 ns a posting in process; these loops, 12 + 16).
 */

/** The run, shared by every field: queries run one at a time, and a run is added before the next is made. */
const run = { slots: new Uint32Array(4096), values: new Float64Array(4096) };

/**
 * scoreTerm's BM25+ for frozen postings `start`..`end` when every slot is live, written to `outSlots`
 * and `outValues` from 0; returns how many (a slot past `slots` is skipped: a damaged saved index).
 */
export function bm25Run(
  docs: SlotArray,
  tfs: Uint8Array,
  start: number,
  end: number,
  lengths: Uint32Array,
  slots: number,
  outSlots: Uint32Array,
  outValues: Float64Array,
  scale: number,
  k: number,
  b: number,
  d: number,
  avg: number,
): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const slot = docs[i] as number;
    if (slot >= slots) continue;
    const tf = tfs[i] as number;
    outSlots[n] = slot;
    outValues[n++] = bm25(scale, tf, lengths[slot] as number, k, b, d, avg);
  }
  return n;
}

/** MiniSearch's BM25+ of one posting: `scale` is the term's weight × idf, `length` the document field's. */
export function bm25(scale: number, tf: number, length: number, k: number, b: number, d: number, avg: number): number {
  return scale * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * length) / avg)));
}

/** The run, at least `size` long. */
export function termRun(size: number): typeof run {
  if (size > run.slots.length) {
    const grownTo = Math.max(size, 2 * run.slots.length);
    run.slots = new Uint32Array(grownTo);
    run.values = new Float64Array(grownTo);
  }
  return run;
}
