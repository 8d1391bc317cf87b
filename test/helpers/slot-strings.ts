import { SlotStrings } from "../../src/search/slot-strings.ts";

/** A list of `strings`, one slot each; an undefined one is a freed slot. */
export function slotStrings(strings: readonly (string | undefined)[]): SlotStrings {
  const list = new SlotStrings();
  for (const s of strings) {
    const slot = list.push(s ?? "");
    if (s === undefined) list.free(slot);
  }
  return list;
}

/** Every slot's string, a freed slot's as undefined. */
export function stringsOf(list: SlotStrings): (string | undefined)[] {
  return Array.from({ length: list.length }, (_, slot) => (list.live(slot) ? list.at(slot) : undefined));
}
