import { describe, expect, test } from "bun:test";
import { delimiter, join, resolve } from "node:path";
import { absolutePathEntries } from "../../src/util/path-env.ts";

describe("absolutePathEntries", () => {
  test("keeps the absolute entries in order and drops empty and relative ones", () => {
    const usr = resolve("/usr/bin");
    const bin = resolve("/bin");
    const path = ["", ".", usr, "bin", join("..", "x"), bin, ""].join(delimiter);
    expect(absolutePathEntries(path)).toBe([usr, bin].join(delimiter));
  });

  test("is empty without PATH or without an absolute entry", () => {
    expect(absolutePathEntries(undefined)).toBe("");
    expect(absolutePathEntries(["", ".", "bin"].join(delimiter))).toBe("");
  });
});
