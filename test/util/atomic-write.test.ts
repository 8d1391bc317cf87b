import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeAtomic, writeAtomicSync } from "../../src/util/atomic-write.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("atomic writes (a temporary file renamed into place)", () => {
  test("pieces, text and bytes, written whole into a folder made on the way; nothing else left", async () => {
    const dir = tempDir("skillhub-atomic-");
    const sync = join(dir, "a", "sync.txt");
    const later = join(dir, "b", "async.txt");
    writeAtomicSync(sync, ["one ", new TextEncoder().encode("two")]);
    await writeAtomic(later, [new TextEncoder().encode("three "), "four"]);
    expect(readFileSync(sync, "utf8")).toBe("one two");
    expect(readFileSync(later, "utf8")).toBe("three four");
    expect(readdirSync(join(dir, "a"))).toEqual(["sync.txt"]);
    expect(readdirSync(join(dir, "b"))).toEqual(["async.txt"]);
  });

  test("many pieces, empty and multi-byte ones among them, written in order byte for byte", async () => {
    const dir = tempDir("skillhub-atomic-many-");
    const pieces: (string | Uint8Array)[] = [];
    for (let i = 0; i < 300; i++)
      pieces.push(i % 3 === 0 ? `${i} café 日本 🎉\n` : i % 3 === 1 ? new TextEncoder().encode(`${i} bytes\n`) : "");
    pieces.push("x".repeat(3_000_000));
    const target = join(dir, "many.txt");
    await writeAtomic(target, pieces);
    const expected = pieces.map((p) => (typeof p === "string" ? p : new TextDecoder().decode(p))).join("");
    expect(readFileSync(target, "utf8")).toBe(expected);
    expect(readdirSync(dir)).toEqual(["many.txt"]);
  });

  test("a write that cannot be renamed into place throws and leaves no temporary file", async () => {
    const dir = tempDir("skillhub-atomic-fail-");
    const target = join(dir, "taken");
    mkdirSync(join(target, "inside"), { recursive: true });
    expect(() => writeAtomicSync(target, ["x"])).toThrow();
    await expect(writeAtomic(target, ["x"])).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(["taken"]);
  });
});
