import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { importGraph, sourceFiles } from "./import-graph.ts";

/**
 * Every temp folder a test makes is gone when its test file ends. Under `bun test --parallel` each file
 * runs apart, so a file that does not remove its own folders leaves them for good: each test file that
 * reaches tempDir() (itself or through a helper) removes them in an afterAll, and no file under test/
 * makes a temp folder tempDir() does not know of (bench/ scripts remove their own).
 */

afterAll(cleanupTemp);

const ROOT = resolve(import.meta.dir, "../..");
const FS_HELPER = join(ROOT, "test/helpers/fs.ts");
const files = [...sourceFiles(join(ROOT, "test")), ...sourceFiles(join(ROOT, "bench"))];
const imports = importGraph(files);
const text = new Map(files.map((file) => [file, readFileSync(file, "utf8")]));
const shown = (file: string) => relative(ROOT, file);

/** `file` and every file it imports, directly or not. */
function reached(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const target of imports.get(file) ?? []) reached(target, seen);
  return seen;
}

const testFiles = files.filter((file) => file.endsWith(".test.ts"));
const makesTempDirs = (file: string) => file !== FS_HELPER && /\btempDir\(/.test(text.get(file) as string);
// clientFixture() registers the removal itself, after it stops the server it started.
const removesTempDirs = (file: string) =>
  /afterAll\(cleanupTemp\)|await cleanupTemp\(\)|clientFixture\(\)/.test(text.get(file) as string);

describe("temp folders of the tests", () => {
  const needing = testFiles.filter((file) => [...reached(file)].some(makesTempDirs));

  test("the scan sees the tests", () => {
    expect(testFiles.length).toBeGreaterThan(200);
    expect(needing.length).toBeGreaterThan(150);
  });

  test("each test file that makes temp folders removes them when it ends", () => {
    expect(needing.filter((file) => !removesTempDirs(file)).map(shown)).toEqual([]);
  });

  test("test code makes temp folders through tempDir() only", () => {
    const own = files.filter(
      (file) =>
        file.startsWith(join(ROOT, "test/")) &&
        file !== FS_HELPER &&
        /\bmkdtemp(Sync)?\(/.test(text.get(file) as string),
    );
    expect(own.map(shown)).toEqual([]);
  });

  test("cleanupTemp removes what a test left unreadable or read-only", async () => {
    const dir = tempDir();
    write(join(dir, "a", "b", "c", "file"), "x");
    write(join(dir, "read-only", "file"), "x");
    chmodSync(join(dir, "read-only", "file"), 0o400);
    chmodSync(join(dir, "read-only"), 0o555);
    chmodSync(join(dir, "a", "b", "c"), 0o000);
    chmodSync(join(dir, "a", "b"), 0o500);
    chmodSync(join(dir, "a"), 0o000);
    mkdirSync(join(dir, "empty"), { mode: 0o000 });
    await cleanupTemp();
    expect(existsSync(dir)).toBe(false);
  });
});
