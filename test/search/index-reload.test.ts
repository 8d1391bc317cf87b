import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { loadIndexFile, saveIndexFile } from "../../src/search/persist.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 10_000 };
const pause = () => Promise.resolve();
const body = (s: Skill) => skillBody(readFileSync(s.file, "utf8"));

/** `count` skills numbered 0..count-1, a source over them, and an index built and saved, then loaded again. */
async function savedAndLoaded(count: number) {
  const dir = tempDir("skillhub-reload-");
  for (let i = 0; i < count; i++) writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}.` });
  const sources = [{ label: "dir1", dir, location: "explicit" as const }];
  const built = FullTextIndex.empty();
  built.sync(new Scanner().scan(sources, limits).skills, body);
  const file = `${tempDir("skillhub-reload-index-")}/index.bin`;
  await saveIndexFile(file, "fp", built.snapshot(), pause);
  const result = await loadIndexFile(file, pause);
  if (!result.ok) throw new Error(result.reason);
  return { dir, sources, built, loaded: FullTextIndex.fromParts(result.parts) };
}

describe("an index saved and loaded again", () => {
  test("tells a skill edited since the save by its saved hash, and updates only that one", async () => {
    const { dir, sources, loaded } = await savedAndLoaded(300);
    writeSkill(dir, "skill-7", { description: "Skill number 7, edited after the index was saved." });
    const next = new Scanner().scan(sources, limits);
    expect(loaded.search("number 234").map((h) => h.id)[0]).toBe("dir1:skill-234");
    expect(loaded.sync(next.skills, body)).toEqual({ added: 0, updated: 1, removed: 0 });
    expect(loaded.search("edited after the index").map((h) => h.id)[0]).toBe("dir1:skill-7");
  });

  test("expands a prefix over its whole vocabulary, as the index it was saved from does", async () => {
    const { built, loaded } = await savedAndLoaded(300);
    for (const index of [built, loaded]) {
      expect(index.search("number 234").map((h) => h.id)[0]).toBe("dir1:skill-234");
      // "12" reaches 12 and 120–129.
      expect(index.search("skill 12").length).toBeGreaterThanOrEqual(11);
    }
  });
});
