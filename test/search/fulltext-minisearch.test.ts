import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import MiniSearch, { type SearchOptions } from "minisearch";
import { Scanner } from "../../src/catalog/scanner.ts";
import { BOOSTS, FullTextIndex, MAX_HEADINGS, SEARCH_OPTIONS } from "../../src/search/fulltext.ts";
import { searchName } from "../../src/search/search-name.ts";
import { processTerm } from "../../src/search/text.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import type { Skill } from "../../src/skills/skill.ts";

/**
 * FullTextIndex keeps its postings in typed arrays but must rank exactly as one MiniSearch over the
 * same fields (issue 16): the reference here is a real MiniSearch with the same options.
 */

const fixture = join(import.meta.dir, "..", "fixtures", "ranking");
const catalog = new Scanner().scan([{ label: "dir1", dir: fixture, location: "explicit" }], {
  maxDepth: 8,
  maxDirs: 1000,
});
const bodyOf = (s: Skill) => skillBody(readFileSync(s.file, "utf8"));

const META = ["name", "description", "tags", "category", "keywords"];

function reference(skills: readonly Skill[], fields: string[], body: (s: Skill) => string) {
  const mini = new MiniSearch({ fields, idField: "id", processTerm, storeFields: [] });
  mini.addAll(
    skills.map((s) => ({
      id: s.id,
      name: searchName(s),
      description: s.description,
      tags: s.tags.join(" "),
      category: s.category ?? "",
      keywords: s.keywords.join(" "),
      headings: s.headings.slice(0, MAX_HEADINGS).join("\n"),
      body: body(s),
    })),
  );
  return mini;
}

function expectSame(ours: FullTextIndex, mini: MiniSearch, query: string, options: SearchOptions): void {
  const theirs = new Map(mini.search(query, { ...options, combineWith: "OR" }).map((r) => [String(r.id), r]));
  const hits = ours.search(query, options);
  expect(hits.map((h) => h.id).sort()).toEqual([...theirs.keys()].sort());
  for (const hit of hits) {
    const r = theirs.get(hit.id);
    expect(hit.raw).toBeCloseTo(r?.score ?? Number.NaN, 8);
    expect([...hit.queryTerms].sort()).toEqual([...(r?.queryTerms ?? [])].sort());
  }
}

const QUERIES = [
  "pull the totals out of a stack of invoices",
  "why is my SQL query so slow",
  "describe our REST endpoints",
  "containers for local development with a database",
  "review review a pull request",
  "invoic databse conteiners", // prefixes and typos
  "commit",
];

describe("FullTextIndex scores as MiniSearch does", () => {
  test("metadata fields: exact, prefix and fuzzy matches, field boosts, repeated query words", () => {
    // Headings and bodies empty: the metadata alone, with SEARCH_OPTIONS (fuzzy included).
    const skills = catalog.skills.map((s) => ({ ...s, headings: [] }));
    const ours = FullTextIndex.empty();
    ours.sync(skills, () => "");
    const mini = reference(skills, META, () => "");
    for (const q of QUERIES) expectSame(ours, mini, q, { ...SEARCH_OPTIONS, boost: SEARCH_OPTIONS.boost });
  });

  test("every field with bodies and headings, fuzzy off (bodies never get it)", () => {
    const ours = FullTextIndex.empty();
    ours.sync(catalog.skills, bodyOf);
    const mini = reference(catalog.skills, [...META, "headings", "body"], bodyOf);
    const options = { ...SEARCH_OPTIONS, fuzzy: false, boost: BOOSTS };
    for (const q of QUERIES.filter((q) => !q.includes("review review"))) expectSame(ours, mini, q, options);
  });

  test("after removals, edits and freezes it still equals a fresh MiniSearch of what is left", () => {
    const ours = FullTextIndex.empty();
    ours.sync(catalog.skills, bodyOf);
    const [first, second, ...rest] = catalog.skills as [Skill, Skill, ...Skill[]];
    const edited: Skill = { ...second, hash: "edited", description: "Tables of invoices in spreadsheets" };
    expect(ours.sync([edited, ...rest], bodyOf)).toEqual({ added: 0, updated: 1, removed: 1 });
    expect(ours.has(first.id)).toBe(false);
    const mini = reference([edited, ...rest], [...META, "headings", "body"], bodyOf);
    const options = { ...SEARCH_OPTIONS, fuzzy: false, boost: BOOSTS };
    for (const q of [...QUERIES.slice(0, 4), "spreadsheet tables"]) expectSame(ours, mini, q, options);
    // A freeze (snapshot) drops the freed postings: the same again.
    ours.snapshot();
    for (const q of [...QUERIES.slice(0, 4), "spreadsheet tables"]) expectSame(ours, mini, q, options);
  });

  test("a build in slices, with a save's snapshot taken between two of them, ranks as a build in one go", async () => {
    const whole = FullTextIndex.empty();
    whole.sync(catalog.skills, bodyOf);
    const sliced = FullTextIndex.empty();
    let ticks = 0;
    await sliced.syncAsync(
      catalog.skills,
      bodyOf,
      async () => {
        // A save freezes and reads the index while the build is paused.
        if (++ticks === 3) sliced.snapshot();
      },
      0,
    );
    expect(ticks).toBeGreaterThan(3);
    for (const q of QUERIES) expect(sliced.search(q)).toEqual(whole.search(q));
  });
});
