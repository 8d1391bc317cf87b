import { describe, expect, test } from "bun:test";
import { protoKeyIssue } from "../../../src/tools/support/proto-key.ts";

describe("protoKeyIssue", () => {
  test("finds a __proto__ key parsed from JSON at any depth, with its path; constructor and prototype pass", () => {
    expect(protoKeyIssue(JSON.parse('{"a": [{"b": 1}, {"c": {"__proto__": {}}}]}'))?.path).toEqual([
      "a",
      "1",
      "c",
      "__proto__",
    ]);
    expect(protoKeyIssue(JSON.parse('{"__proto__": "x"}'))?.path).toEqual(["__proto__"]);
    expect(protoKeyIssue(JSON.parse('{"args": {"constructor": "x", "prototype": "y"}}'))).toBeUndefined();
    expect(protoKeyIssue({ args: { name: "x" } })).toBeUndefined();
    expect(protoKeyIssue(undefined)).toBeUndefined();
  });

  test("arguments nested far deeper than a call stack are walked without recursion", () => {
    const depth = 50_000;
    const deep = JSON.parse(`${'{"a":['.repeat(depth)}{"__proto__":1}${"]}".repeat(depth)}`);
    expect(protoKeyIssue(deep)?.path).toHaveLength(2 * depth + 1);
  });
});
