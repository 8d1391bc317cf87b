import { describe, expect, test } from "bun:test";
import { findAllocatorOption } from "../../src/util/allocator-purge.ts";

const NAMES = ["show_errors", "show_stats", "verbose", "eager_commit", "arena_eager_commit", "purge_decommits"];
/** Option i's name: the first few of mimalloc's, then purge_delay as number 15, then made-up ones. */
const nameOf = (i: number) => NAMES[i] ?? (i === 15 ? "purge_delay" : `option_${i}`);

/**
 * Memory like the binary's `.data`: `before` bytes of other data, then `count` descriptors
 * { long value; int init; int option; char* name; char* legacy }, each name pointer 0x1000 + 64 * i.
 */
function table(count: number, before = 40, edit?: (view: DataView, at: (i: number) => number) => void): DataView {
  const view = new DataView(new ArrayBuffer(before + count * 32 + 48));
  for (let o = 0; o < before; o += 4) view.setInt32(o, 0x5a5a5a5a, true);
  const at = (i: number) => before + i * 32;
  for (let i = 0; i < count; i++) {
    view.setBigInt64(at(i), i === 15 ? 1000n : BigInt(i), true);
    view.setInt32(at(i) + 8, 1, true);
    view.setInt32(at(i) + 12, i, true);
    view.setBigUint64(at(i) + 16, BigInt(0x1000 + 64 * i), true);
  }
  edit?.(view, at);
  return view;
}
const names = (pointer: number) => ((pointer - 0x1000) % 64 === 0 ? nameOf((pointer - 0x1000) / 64) : undefined);

describe("findAllocatorOption: mimalloc's option table in memory", () => {
  test("finds purge_delay by the name its pointer leads to, at any 8-byte offset, with its value", () => {
    for (const before of [0, 8, 40, 4096]) {
      const found = findAllocatorOption(table(46, before), "purge_delay", names);
      expect(found).toEqual({ at: before + 15 * 32, value: 1000, fromEnvironment: false });
    }
  });

  test("says when the environment set it (init INITIALIZED), so that it is left alone", () => {
    const view = table(46, 40, (v, at) => {
      v.setBigInt64(at(15), 3n, true);
      v.setInt32(at(15) + 8, 2, true);
    });
    expect(findAllocatorOption(view, "purge_delay", names)).toEqual({
      at: 40 + 15 * 32,
      value: 3,
      fromEnvironment: true,
    });
  });

  test("nothing when the table is too short, broken before the option, unnamed or named otherwise", () => {
    // Fewer than 20 descriptors in a row is not taken for the table.
    expect(findAllocatorOption(table(19), "purge_delay", names)).toBeUndefined();
    // Numbering broken at 10: two short runs, neither a table.
    const broken = table(30, 40, (v, at) => v.setInt32(at(10) + 12, 11, true));
    expect(findAllocatorOption(broken, "purge_delay", names)).toBeUndefined();
    // An uninitialised descriptor (init 0) ends the run: mimalloc initialises every option at start.
    const uninitialised = table(30, 40, (v, at) => v.setInt32(at(5) + 8, 0, true));
    expect(findAllocatorOption(uninitialised, "purge_delay", names)).toBeUndefined();
    // Names read as something else (another allocator, another layout): nothing is found.
    expect(findAllocatorOption(table(46), "purge_delay", () => "other")).toBeUndefined();
    expect(findAllocatorOption(table(46), "purge_delay", () => undefined)).toBeUndefined();
    expect(findAllocatorOption(table(46), "no_such_option", names)).toBeUndefined();
  });
});
