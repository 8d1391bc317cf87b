import { afterAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { protoKeyIssue } from "../../../src/tools/support/proto-key.ts";
import { cleanupTemp, tempDir, writeSkill } from "../../helpers/fs.ts";
import { sessions } from "../../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

/** `text` parsed as a client's JSON arguments, and what `schema` keeps of them. */
function parsed(schema: z.ZodType, text: string): [unknown, unknown] {
  const args = JSON.parse(text);
  return [args, schema.parse(args)];
}

const Nested = z.object({
  a: z.array(z.object({ b: z.number().optional(), c: z.record(z.string(), z.unknown()).optional() })).optional(),
  args: z.record(z.string(), z.string()).optional(),
});

/** A value whose every read of its keys is counted in `reads.count`. */
function counted<T extends object>(value: T, reads: { count: number }): T {
  const count = () => {
    reads.count++;
  };
  return new Proxy(value, {
    get: (target, key, receiver) => (count(), Reflect.get(target, key, receiver)),
    has: (target, key) => (count(), Reflect.has(target, key)),
    ownKeys: (target) => (count(), Reflect.ownKeys(target)),
    getOwnPropertyDescriptor: (target, key) => (count(), Reflect.getOwnPropertyDescriptor(target, key)),
  });
}

describe("protoKeyIssue", () => {
  test("finds a __proto__ key parsed from JSON where the parse keeps an object, with its path; constructor and prototype pass", () => {
    expect(protoKeyIssue(...parsed(Nested, '{"a": [{"b": 1}, {"c": {"__proto__": {}}}]}'))?.path).toEqual([
      "a",
      "1",
      "c",
      "__proto__",
    ]);
    expect(protoKeyIssue(...parsed(Nested, '{"args": {"x": "1", "__proto__": "x"}}'))?.path).toEqual([
      "args",
      "__proto__",
    ]);
    expect(protoKeyIssue(...parsed(Nested, '{"__proto__": "x"}'))?.path).toEqual(["__proto__"]);
    expect(protoKeyIssue(...parsed(Nested, '{"args": {"constructor": "x", "prototype": "y"}}'))).toBeUndefined();
    expect(protoKeyIssue({ args: { name: "x" } }, { args: { name: "x" } })).toBeUndefined();
    expect(protoKeyIssue(undefined, {})).toBeUndefined();
  });

  test("a key the schema drops unread is not walked: a __proto__ inside it passes, and its values are never read", () => {
    const LoadSkill = z.object({ skill_name: z.string() });
    expect(protoKeyIssue(...parsed(LoadSkill, '{"skill_name": "x", "junk": {"__proto__": 1}}'))).toBeUndefined();
    expect(protoKeyIssue(...parsed(LoadSkill, '{"skill_name": "x", "junk": [{"a": [{"__proto__": 1}]}]}'))).toBe(
      undefined,
    );
    const reads = { count: 0 };
    const args = { skill_name: "x", junk: counted([{ a: 1 }, ...Array.from({ length: 1000 }, () => [0])], reads) };
    expect(protoKeyIssue(args, LoadSkill.parse(args))).toBeUndefined();
    expect(reads.count).toBe(0);
    // Values the parse kept as primitives are not walked either, nor are the raw values beside them.
    const Numbers = z.object({ n: z.array(z.number()) });
    const numbers = { n: counted([1, 2, 3], reads) };
    expect(protoKeyIssue(numbers, Numbers.parse({ n: [1, 2, 3] }))).toBeUndefined();
    expect(reads.count).toBe(0);
  });

  test("arguments nested far deeper than a call stack are walked without recursion", () => {
    const depth = 50_000;
    const deep = JSON.parse(`${'{"a":['.repeat(depth)}{"__proto__":1}${"]}".repeat(depth)}`);
    // What a recursive schema would keep: the same nesting, without the key zod drops.
    const kept = JSON.parse(`${'{"a":['.repeat(depth)}{}${"]}".repeat(depth)}`);
    expect(protoKeyIssue(deep, kept)?.path).toHaveLength(2 * depth + 1);
  });
});

describe("a tool call's arguments", () => {
  // run_script's tests show a __proto__ key the tool would lose refused (its `args`).
  test("an unknown key load_skill ignores is ignored whatever it holds, a __proto__ key too", async () => {
    const dir = tempDir();
    writeSkill(dir, "notes");
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    for (const junk of ['{"__proto__": 1}', '[{"a": [{"__proto__": 1}]}]', `[${"0,".repeat(100_000)}0]`]) {
      const loaded = await call("load_skill", JSON.parse(`{"skill_name": "notes", "junk": ${junk}}`));
      expect(loaded.isError).toBeFalsy();
      expect(loaded.structuredContent?.name).toBe("notes");
    }
  });
});
