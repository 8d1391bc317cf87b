import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describeLeaks, leaks } from "../../bench/lib/paraphrase-check.ts";
import { Scanner } from "../../src/catalog/scanner.ts";
import { searchName } from "../../src/search/search-name.ts";
import { buildSourceList } from "../../src/sources/source-list.ts";
import { corporaFor, corpusFolders } from "../helpers/corpora.ts";

const QUERY_CLASSES = [
  "exact name",
  "description paraphrase",
  "body-only detail",
  "typo",
  "two plausible skills",
  "long task",
];
const FILES = ["queries.json", "queries-new.json", "queries-heldout.json", "queries-blind.json", "queries-review.json"];
type Query = { query: string; expected: string[]; corpus: string; class: string };
const load = (file: string) =>
  JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "bench", "eval", file), "utf8")) as Query[];

describe("the blind-paraphrase rule", () => {
  const target = {
    name: "pdf-invoices",
    description: "Extract invoice numbers from scanned documents, coding each vendor",
  };

  test("a query word that is a name or description term after stemming leaks", () => {
    expect(leaks("read the invoices", [target]).map((l) => [l.word, l.field, l.how])).toEqual([
      ["invoic", "name", "same term"],
      ["invoic", "description", "same term"],
    ]);
    // "code" and "coding" are one term for the engine.
    expect(leaks("code it", [target]).map((l) => l.term)).toEqual(["cod"]);
  });

  test("stop words may be shared; other words may not reach a term by prefix or by a typo's edit", () => {
    expect(leaks("from the numbers of each one", [target]).map((l) => l.word)).toEqual(["number"]);
    expect(leaks("docum", [target]).map((l) => [l.term, l.how])).toEqual([["document", "prefix"]]);
    expect(leaks("extrakt", [target]).map((l) => [l.term, l.how])).toEqual([["extract", "fuzzy"]]);
    expect(leaks("bill the supplier", [target])).toEqual([]);
  });

  test("a leak is described by query, word, skill, field and how", () => {
    expect(describeLeaks("pdf please", leaks("pdf please", [target]))).toEqual([
      `"pdf please": "pdf" reaches pdf-invoices's name term "pdf" (same term)`,
    ]);
  });
});

test("every eval query names a class", () => {
  for (const file of FILES)
    for (const q of load(file))
      expect({ file, query: q.query, class: QUERY_CLASSES.includes(q.class) }).toEqual({
        file,
        query: q.query,
        class: true,
      });
});

const dir = corporaFor("the eval queries' tests over the real corpora");
describe.skipIf(!dir)("over the real corpora", () => {
  const catalog = new Scanner().scan(
    buildSourceList({
      dirs: dir ? corpusFolders(dir) : [],
      onlyDirs: true,
      projectDir: null,
      homeDir: "/nonexistent",
      hubHome: "/nonexistent",
    }),
    { maxDepth: 8, maxDirs: 20_000 },
  );
  // A name served by one collection may be shadowed in another: every copy's words count.
  const copies = [...catalog.skills, ...catalog.shadowed.map((s) => s.skill)];

  test("every eval query can be answered, and every skill a blind query accepts exists", () => {
    const names = new Set(copies.map((s) => s.name));
    const unanswerable = FILES.flatMap((f) => load(f).filter((q) => !q.expected.some((n) => names.has(n))));
    expect(unanswerable).toEqual([]);
    // Older files also list a skill's folder name beside its name; a blind query lists only names.
    expect(load("queries-blind.json").flatMap((q) => q.expected.filter((n) => !names.has(n)))).toEqual([]);
  });

  test("no blind query reaches its skills' names or descriptions", () => {
    const found = load("queries-blind.json").flatMap((q) => {
      const targets = copies
        .filter((s) => q.expected.includes(s.name))
        .map((s) => ({ name: searchName(s), description: s.description }));
      return describeLeaks(q.query, leaks(q.query, targets));
    });
    expect(found).toEqual([]);
  });
});
