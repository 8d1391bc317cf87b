import { describe, expect, test } from "bun:test";
import { SlotStrings } from "../../src/search/slot-strings.ts";
import { slotStrings, stringsOf } from "../helpers/slot-strings.ts";

const IDS = ["dir1:pdf", "dir1:git", "team:review", "dir1:pdf-tools", ""];

describe("SlotStrings: one string per document slot", () => {
  test("pushed strings read back the same", () => {
    const list = new SlotStrings();
    for (const [i, id] of IDS.entries()) expect(list.push(id)).toBe(i);
    expect(IDS.map((_, slot) => list.at(slot))).toEqual(IDS);
    expect(list.length).toBe(IDS.length);
    expect(list.size).toBe(IDS.length);
    for (const [slot, id] of IDS.entries()) expect(list.is(slot, id)).toBe(true);
    expect(list.is(0, "dir1:pd")).toBe(false);
    expect(list.is(0, "dir1:pdf-")).toBe(false);
  });

  test("strings pushed after a look-up are found too", () => {
    const list = slotStrings(["a", "bb"]);
    expect(list.slotOf("bb")).toBe(1);
    list.push("ccc");
    list.push("dddd");
    expect(list.at(2)).toBe("ccc");
    expect(list.slotOf("dddd")).toBe(3);
    expect(stringsOf(list)).toEqual(["a", "bb", "ccc", "dddd"]);
  });

  test("a freed slot is not live and not found; the same string pushed again gets a new slot", () => {
    const list = slotStrings(["dir1:a", "dir1:b", "dir1:c"]);
    list.free(1);
    list.free(1);
    expect(list.live(1)).toBe(false);
    expect(list.live(0)).toBe(true);
    expect(list.size).toBe(2);
    expect(list.slotOf("dir1:b")).toBe(-1);
    expect(list.push("dir1:b")).toBe(3);
    expect(list.slotOf("dir1:b")).toBe(3);
    list.free(3);
    expect(list.slotOf("dir1:b")).toBe(-1);
    expect(list.push("dir1:b")).toBe(4);
    expect(list.slotOf("dir1:b")).toBe(4);
    expect(stringsOf(list)).toEqual(["dir1:a", undefined, "dir1:c", undefined, "dir1:b"]);
    // Past the slots given out: not live.
    expect(list.live(5)).toBe(false);
  });

  test("look-ups find every live slot among many, through pushes and frees, and nothing else", () => {
    const list = new SlotStrings();
    const id = (i: number) => `src${i % 7}:skill-${i}`;
    for (let i = 0; i < 500; i++) list.push(id(i));
    // The look-up is made by the first one, then kept up to date by pushes and frees.
    expect(list.slotOf(id(10))).toBe(10);
    for (let i = 500; i < 5000; i++) list.push(id(i));
    for (let i = 0; i < 5000; i += 3) list.free(i);
    for (let i = 5000; i < 6000; i++) list.push(id(i));
    for (let i = 0; i < 6000; i++) expect(list.slotOf(id(i))).toBe(i < 5000 && i % 3 === 0 ? -1 : i);
    expect(list.slotOf("src0:skill-")).toBe(-1);
    expect(list.slotOf("src0:skill-60000")).toBe(-1);
    expect(list.slotOf("")).toBe(-1);
  });

  test("non-ASCII strings: lengths in UTF-16 units, found exactly", () => {
    const ids = ["équipe:café", "团队:技能", "dir1:emoji-😀", "dir1:e\u0301"];
    const list = slotStrings(ids);
    expect(stringsOf(list)).toEqual(ids);
    for (const [slot, id] of ids.entries()) expect(list.slotOf(id)).toBe(slot);
    // Composed and decomposed é are different ids; so is half a surrogate pair.
    expect(list.slotOf("dir1:é")).toBe(-1);
    expect(list.slotOf("dir1:emoji-\ud83d")).toBe(-1);
    const lengths = new Uint32Array(ids.length);
    expect(list.joined(0, ids.length, lengths)).toBe(ids.join(""));
    expect([...lengths]).toEqual(ids.map((s) => s.length));
  });

  test("joined: a range's live strings in one, a freed slot's empty (the index file's form)", () => {
    const list = slotStrings([undefined, "a", "bb", undefined, "ccc", "d", undefined]);
    const lengths = new Uint32Array(7);
    expect(list.joined(0, 7, lengths)).toBe("abbcccd");
    expect([...lengths]).toEqual([0, 1, 2, 0, 3, 1, 0]);
    const part = new Uint32Array(7);
    expect(list.joined(2, 5, part)).toBe("bbccc");
    expect([...part]).toEqual([0, 0, 2, 0, 3, 0, 0]);
  });

  test("fromLengths cuts one text into slots: empty ones are freed, or liveness is another list's", () => {
    const ids = SlotStrings.fromLengths("dir1:adir1:c", Uint32Array.from([6, 0, 6]));
    expect(stringsOf(ids)).toEqual(["dir1:a", undefined, "dir1:c"]);
    expect(ids.slotOf("dir1:c")).toBe(2);
    const hashes = SlotStrings.fromLengths("h1h2h3", Uint32Array.from([2, 2, 2]), ids);
    expect(stringsOf(hashes)).toEqual(["h1", undefined, "h3"]);
    expect(() => SlotStrings.fromLengths("abc", Uint32Array.from([1, 1]))).toThrow("add up");
    // Grows from a loaded list like from a new one.
    expect(ids.push("dir1:d")).toBe(3);
    expect(stringsOf(ids)).toEqual(["dir1:a", undefined, "dir1:c", "dir1:d"]);
  });

  test("a copy is unchanged by later pushes and frees of its original", () => {
    const list = slotStrings(["a", "b"]);
    const copy = list.copy();
    list.free(0);
    list.push("c");
    expect(stringsOf(copy)).toEqual(["a", "b"]);
    expect(copy.slotOf("a")).toBe(0);
    expect(stringsOf(list)).toEqual([undefined, "b", "c"]);
  });
});
