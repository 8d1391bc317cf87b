import { describe, expect, test } from "bun:test";
import { TermList } from "../../src/util/term-list.ts";

// Code-unit order, as `<` and the default sort have it: upper case, accents and astral characters included.
const words = ["Zeta", "alpha", "alphabet", "beta", "béta", "betas", "z", "é", "\u{1F600}x"].sort();

describe("a packed term list (one string for a field's vocabulary)", () => {
  test("reads back every term, in order, with its length", () => {
    const list = TermList.of(words);
    expect(list.length).toBe(words.length);
    expect([...list]).toEqual(words);
    expect(words.map((_, i) => list.at(i))).toEqual(words);
    expect([...list.lengths()]).toEqual(words.map((w) => w.length));
    expect(TermList.fromLengths(list.text, list.lengths()).at(3)).toBe(words[3] as string);
  });

  test("compares and finds terms as `<` orders strings, without a slice", () => {
    const list = TermList.of(words);
    for (const probe of [...words, "", "a", "alp", "alphabets", "bet", "c", "zz", "\u{1F600}", "\uffff"]) {
      const expected = words.findIndex((w) => !(w < probe));
      expect(list.lowerBound(probe)).toBe(expected === -1 ? words.length : expected);
      for (const [i, w] of words.entries()) {
        expect(Math.sign(list.compare(i, probe))).toBe(w < probe ? -1 : w === probe ? 0 : 1);
        expect(list.startsWith(i, probe)).toBe(w.startsWith(probe));
      }
    }
  });

  test("merging added terms keeps the order and says where every old and added term went", () => {
    const old = TermList.of(["b", "d", "f", "g"]);
    const added = ["a", "c", "e", "h", "i"];
    const { list, renumber, placed } = old.merged(added);
    expect([...list]).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
    expect([...renumber]).toEqual([1, 3, 5, 6]);
    expect([...placed]).toEqual([0, 2, 4, 7, 8]);
    expect([...TermList.EMPTY.merged(["x"]).list]).toEqual(["x"]);
    expect([...old.merged([]).list]).toEqual(["b", "d", "f", "g"]);
  });

  test("sortedness and lengths that do not add up are caught", () => {
    expect(TermList.of(words).isSorted()).toBe(true);
    expect(TermList.of(["b", "a"]).isSorted()).toBe(false);
    expect(TermList.of(["a", "a"]).isSorted()).toBe(false);
    expect(() => TermList.fromLengths("abc", Uint32Array.of(1, 1))).toThrow("do not add up");
  });
});
