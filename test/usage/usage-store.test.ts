import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { USAGE_MAX_SKILLS, UsageStore } from "../../src/usage/usage-store.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** A store whose save timer is held by the test (saved by save(), as a server does when it closes). */
function store(file: string, now = () => 1_000) {
  const logger = createMemoryLogger();
  return { usage: new UsageStore({ file, logger, now, setTimeout: () => 1, clearTimeout: () => undefined }), logger };
}

describe("usage counts kept across processes", () => {
  test("a load counted by one server is known to the next one, from the file", () => {
    const file = join(tempDir("skillhub-usage-"), "usage.json");
    const first = store(file).usage;
    first.record("project:deploy");
    first.record("project:deploy");
    first.record("global:git");
    first.save();
    const next = store(file).usage;
    expect(next.get("project:deploy")).toBe(2);
    expect(next.get("global:git")).toBe(1);
    expect(next.lastUsed("global:git")).toBe(1_000);
    expect(next.get("hub:never")).toBeUndefined();
  });

  test("servers running at once each add their own loads: none replaces another's counts", () => {
    const file = join(tempDir("skillhub-usage-"), "usage.json");
    const a = store(file).usage;
    const b = store(file).usage;
    a.record("x:pdf");
    b.record("x:pdf");
    b.record("x:pdf");
    a.save();
    b.save();
    a.record("x:git");
    a.save();
    expect(store(file).usage.get("x:pdf")).toBe(3);
    expect(store(file).usage.get("x:git")).toBe(1);
    // A save with nothing new writes nothing.
    const before = readFileSync(file, "utf8");
    b.save();
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test("the file holds ids, counts and times only; it is written whole (no temporary file left) and bounded", () => {
    const dir = tempDir("skillhub-usage-");
    const file = join(dir, "usage.json");
    let t = 0;
    const { usage } = store(file, () => ++t);
    for (let i = 0; i < USAGE_MAX_SKILLS + 50; i++) usage.record(`dir:skill-${i}`);
    usage.save();
    expect(readdirSync(dir)).toEqual(["usage.json"]);
    const data = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(data)).toEqual(["format", "version", "skills"]);
    const ids = Object.keys(data.skills);
    // The most recently loaded are kept.
    expect(ids).toHaveLength(USAGE_MAX_SKILLS);
    expect(ids).toContain(`dir:skill-${USAGE_MAX_SKILLS + 49}`);
    expect(ids).not.toContain("dir:skill-0");
    for (const record of Object.values(data.skills))
      expect(Object.keys(record as object).sort()).toEqual(["count", "last"]);
  });

  test("a damaged, foreign, oversized or special file is ignored with a warning and replaced at the next save", () => {
    const dir = tempDir("skillhub-usage-");
    const file = join(dir, "usage.json");
    for (const [text, says] of [
      ["{not json", "is not JSON"],
      ['{"skills": {"a:b": {"count": 3}}}', "is not a SkillHub usage file"],
      [`{"format":"skillhub-usage","skills":{},"pad":"${"x".repeat(300 * 1024)}"}`, "the limit is"],
    ] as const) {
      writeFileSync(file, text);
      const { usage, logger } = store(file);
      expect(usage.get("a:b")).toBeUndefined();
      expect(logger.lines.join("\n")).toContain(says);
      usage.record("a:b");
      usage.save();
      expect(store(file).usage.get("a:b")).toBe(1);
    }
    // Entries that are not a count are skipped; the others are kept.
    writeFileSync(
      file,
      '{"format":"skillhub-usage","version":1,"skills":{"a:b":{"count":"9"},"c:d":{"count":2,"last":5}}}',
    );
    expect(store(file).usage.get("a:b")).toBeUndefined();
    expect(store(file).usage.get("c:d")).toBe(2);
  });

  test("Security: a FIFO under the file's name is refused, never opened (a read would block the server)", () => {
    const dir = tempDir("skillhub-usage-");
    const file = join(dir, "usage.json");
    execFileSync("mkfifo", [file]);
    const { usage, logger } = store(file);
    expect(usage.get("a:b")).toBeUndefined();
    expect(logger.lines.join("\n")).toContain("FIFO");
  });

  test("without a file, loads are counted in memory only", () => {
    const usage = new UsageStore();
    usage.record("a:b");
    usage.save();
    expect(usage.get("a:b")).toBe(1);
  });
});
