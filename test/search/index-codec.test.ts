import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";

const fixture = join(import.meta.dir, "..", "fixtures", "ranking");
const catalog = new Scanner().scan([{ label: "dir1", dir: fixture, location: "explicit" }], {
  maxDepth: 8,
  maxDirs: 1000,
});

describe("persisted index form (guards the pinned minisearch internals)", () => {
  test("a round trip through JSON gives the same results, and keeps updating incrementally", async () => {
    const built = FullTextIndex.empty();
    built.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
    const json = JSON.parse(JSON.stringify(built.toJSON()));
    // Only arrays and string keys: no objects keyed by document numbers.
    expect(JSON.stringify(json)).not.toMatch(/\{"\d+":/);
    const loaded = await FullTextIndex.fromJSON(json, async () => {});
    for (const query of [
      "invoice totals",
      "slow sql query",
      "commit message",
      "containers database",
      "review pull request",
    ]) {
      expect(loaded.search(query)).toEqual(built.search(query));
    }
    expect(loaded.size).toBe(built.size);
    const [first, ...rest] = catalog.skills;
    expect(loaded.sync(rest, () => "")).toEqual({ added: 0, updated: 0, removed: 1 });
    expect(loaded.search("invoice").map((h) => h.id)).not.toContain(first?.id);
  });
});
