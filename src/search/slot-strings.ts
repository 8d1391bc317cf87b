import { grown, type LiveSlots } from "./freeze.ts";

/** An empty look-up table entry; an entry is otherwise its slot + 1. */
const EMPTY = 0;

/**
 * One string per document slot (an index's ids, its content hashes), packed (issue 16, idle): a
 * string per slot was 20,000 cells at 10,000 skills, each visited by every full collection of the
 * heap. Here the packed strings are one string and their offsets; those added since the last `pack`
 * wait in a small overlay; a freed slot is a cleared liveness bit (slots are never given out again, so
 * its text simply stays behind). A string is read back as a slice only where it is needed; the id → slot
 * look-up is an open-addressing table of slots, compared in place against the packed text.
 */
export class SlotStrings implements LiveSlots {
  /** Packed strings: slot i < packed is text[ends[i - 1] (0 for slot 0), ends[i]). */
  private text = "";
  private ends = new Uint32Array(64);
  private packed = 0;
  /** Strings of the slots from `packed` up, until the next pack. */
  private overlay = new Map<number, string>();
  private count = 0;
  /** 1 per live slot. */
  private alive = new Uint8Array(64);
  private liveCount = 0;
  /** Built by the first look-up (ids need one, hashes never do), then kept up to date. */
  private table?: Int32Array;
  /** Slots entered in the table, freed ones included (they stay until it is rebuilt). */
  private entered = 0;

  /**
   * The list whose slot strings are `text` cut at these UTF-16 lengths (the index file's form); a slot
   * is live where `live` says, by default where its string is not empty.
   */
  static fromLengths(text: string, lengths: Uint32Array, live?: LiveSlots): SlotStrings {
    const list = new SlotStrings();
    const n = lengths.length;
    list.ends = new Uint32Array(Math.max(64, n));
    list.alive = new Uint8Array(list.ends.length);
    let end = 0;
    for (let i = 0; i < n; i++) {
      const length = lengths[i] as number;
      end += length;
      list.ends[i] = end;
      if (live ? live.live(i) : length > 0) {
        list.alive[i] = 1;
        list.liveCount++;
      }
    }
    if (end !== text.length) throw new Error("slot string lengths do not add up to the text");
    list.text = text;
    list.packed = list.count = n;
    return list;
  }

  get length(): number {
    return this.count;
  }

  /** Live slots. */
  get size(): number {
    return this.liveCount;
  }

  live(slot: number): boolean {
    return this.alive[slot] === 1;
  }

  /** The string at `slot` (a fresh slice; a freed slot's old string). */
  at(slot: number): string {
    if (slot >= this.packed) return this.overlay.get(slot) ?? "";
    return this.text.slice(this.start(slot), this.ends[slot]);
  }

  /** Whether `slot` holds `s`, compared in place. */
  is(slot: number, s: string): boolean {
    if (slot >= this.packed) return this.overlay.get(slot) === s;
    const start = this.start(slot);
    return (this.ends[slot] as number) - start === s.length && this.text.startsWith(s, start);
  }

  /** Give `s` the next slot; returns it. */
  push(s: string): number {
    const slot = this.count++;
    if (slot === this.alive.length) this.alive = grown(this.alive, slot * 2);
    this.alive[slot] = 1;
    this.liveCount++;
    this.overlay.set(slot, s);
    // A table at most half full keeps probes short; a rebuild drops freed slots' entries too.
    if (this.table && 2 * (this.entered + 1) > this.table.length) this.build();
    else if (this.table) this.enter(slot, s, 0, s.length);
    return slot;
  }

  /** Free `slot` for good (its string is no longer found or live). */
  free(slot: number): void {
    if (this.alive[slot] !== 1) return;
    this.alive[slot] = 0;
    this.liveCount--;
  }

  /** Fold the overlay into the packed text: call once a batch of pushes is done. */
  pack(): void {
    if (this.overlay.size === 0) return;
    if (this.count > this.ends.length) this.ends = grown(this.ends, Math.max(this.count, this.ends.length * 2));
    const pieces = [this.text];
    let end = this.text.length;
    for (let slot = this.packed; slot < this.count; slot++) {
      const s = this.overlay.get(slot) ?? "";
      pieces.push(s);
      end += s.length;
      this.ends[slot] = end;
    }
    // join makes one flat string: `+` would leave a rope holding every piece.
    this.text = pieces.join("");
    this.packed = this.count;
    this.overlay = new Map();
  }

  /** The live slot holding `s`, or -1. */
  slotOf(s: string): number {
    const table = this.table ?? this.build();
    const mask = table.length - 1;
    for (let i = hash(s, 0, s.length) & mask; ; i = (i + 1) & mask) {
      const entry = table[i] as number;
      if (entry === EMPTY) return -1;
      if (this.alive[entry - 1] === 1 && this.is(entry - 1, s)) return entry - 1;
    }
  }

  /**
   * This list as it is now, unchanged by later updates (a save encodes it between pauses). Call pack
   * first: the copy shares the packed text.
   */
  copy(): SlotStrings {
    if (this.overlay.size > 0) throw new Error("pack before copying slot strings");
    const list = new SlotStrings();
    list.text = this.text;
    list.ends = this.ends.slice(0, Math.max(64, this.count));
    list.alive = this.alive.slice(0, Math.max(64, this.count));
    list.packed = list.count = this.count;
    list.liveCount = this.liveCount;
    return list;
  }

  /** Slots [from, to)'s strings joined (a freed slot's as ""), and their lengths written to `lengths` (packed slots only). */
  joined(from: number, to: number, lengths: Uint32Array): string {
    if (to > this.packed) throw new Error("pack before reading slot strings in bulk");
    const pieces: string[] = [];
    // Each run of live slots is one slice.
    let run = from;
    for (let slot = from; slot < to; slot++) {
      if (this.alive[slot] === 1) {
        lengths[slot] = (this.ends[slot] as number) - this.start(slot);
        continue;
      }
      lengths[slot] = 0;
      if (run < slot) pieces.push(this.text.slice(this.start(run), this.start(slot)));
      run = slot + 1;
    }
    if (run < to) pieces.push(this.text.slice(this.start(run), this.ends[to - 1]));
    return pieces.join("");
  }

  /** Where packed `slot`'s string starts in the text. */
  private start(slot: number): number {
    return slot === 0 ? 0 : (this.ends[slot - 1] as number);
  }

  /** The look-up table over the live slots, at most half full. */
  private build(): Int32Array {
    let size = 64;
    while (size < this.liveCount * 2 + 2) size *= 2;
    this.table = new Int32Array(size);
    this.entered = 0;
    for (let slot = 0; slot < this.count; slot++) {
      if (this.alive[slot] !== 1) continue;
      if (slot >= this.packed) {
        const s = this.overlay.get(slot) ?? "";
        this.enter(slot, s, 0, s.length);
      } else this.enter(slot, this.text, this.start(slot), this.ends[slot] as number);
    }
    return this.table;
  }

  /** Put `slot`, whose string is source[start, end), in the table (which has room). */
  private enter(slot: number, source: string, start: number, end: number): void {
    const table = this.table as Int32Array;
    const mask = table.length - 1;
    let i = hash(source, start, end) & mask;
    while (table[i] !== EMPTY) i = (i + 1) & mask;
    table[i] = slot + 1;
    this.entered++;
  }
}

/** FNV-1a over UTF-16 code units of source[start, end). */
function hash(source: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ source.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
