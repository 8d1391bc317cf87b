import { grown, type LiveSlots } from "./freeze.ts";

/**
 * One string per document slot (an index's ids, its content hashes). A freed slot keeps its old string
 * but is no longer live nor found (slots are never given out again). The id → slot look-up is a map
 * made on the first look-up (ids need one, hashes never do), then kept up to date.
 */
export class SlotStrings implements LiveSlots {
  private strings: string[] = [];
  /** 1 per live slot. */
  private alive = new Uint8Array(64);
  private liveCount = 0;
  private bySlot?: Map<string, number>;

  /**
   * The list whose slot strings are `text` cut at these UTF-16 lengths (the index file's form); a slot
   * is live where `live` says, by default where its string is not empty.
   */
  static fromLengths(text: string, lengths: Uint32Array, live?: LiveSlots): SlotStrings {
    const list = new SlotStrings();
    list.alive = new Uint8Array(Math.max(64, lengths.length));
    let start = 0;
    for (let i = 0; i < lengths.length; i++) {
      const end = start + (lengths[i] as number);
      list.strings.push(text.slice(start, end));
      if (live ? live.live(i) : end > start) {
        list.alive[i] = 1;
        list.liveCount++;
      }
      start = end;
    }
    if (start !== text.length) throw new Error("slot string lengths do not add up to the text");
    return list;
  }

  get length(): number {
    return this.strings.length;
  }

  /** Live slots. */
  get size(): number {
    return this.liveCount;
  }

  live(slot: number): boolean {
    return this.alive[slot] === 1;
  }

  /** The string at `slot` (a freed slot's old string). */
  at(slot: number): string {
    return this.strings[slot] ?? "";
  }

  /** Whether `slot` holds `s`. */
  is(slot: number, s: string): boolean {
    return this.strings[slot] === s;
  }

  /** Give `s` the next slot; returns it. */
  push(s: string): number {
    const slot = this.strings.length;
    this.strings.push(s);
    if (slot === this.alive.length) this.alive = grown(this.alive, slot * 2);
    this.alive[slot] = 1;
    this.liveCount++;
    this.bySlot?.set(s, slot);
    return slot;
  }

  /** Free `slot` for good (its string is no longer found or live). */
  free(slot: number): void {
    if (this.alive[slot] !== 1) return;
    this.alive[slot] = 0;
    this.liveCount--;
    const s = this.strings[slot] as string;
    if (this.bySlot?.get(s) === slot) this.bySlot.delete(s);
  }

  /** The live slot holding `s`, or -1. */
  slotOf(s: string): number {
    if (!this.bySlot) {
      this.bySlot = new Map();
      for (let slot = 0; slot < this.strings.length; slot++)
        if (this.alive[slot] === 1) this.bySlot.set(this.strings[slot] as string, slot);
    }
    return this.bySlot.get(s) ?? -1;
  }

  /** This list as it is now, unchanged by later updates (a save encodes it between pauses). */
  copy(): SlotStrings {
    const list = new SlotStrings();
    list.strings = this.strings.slice();
    list.alive = this.alive.slice(0, Math.max(64, this.strings.length));
    list.liveCount = this.liveCount;
    return list;
  }

  /** Slots [from, to)'s strings joined (a freed slot's as ""), and their lengths written to `lengths`. */
  joined(from: number, to: number, lengths: Uint32Array): string {
    const pieces: string[] = [];
    for (let slot = from; slot < to; slot++) {
      const s = this.alive[slot] === 1 ? (this.strings[slot] as string) : "";
      lengths[slot] = s.length;
      pieces.push(s);
    }
    return pieces.join("");
  }
}
