import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import MiniSearch, { type SearchOptions } from "minisearch";
import { Scanner } from "../../src/catalog/scanner.ts";
import { FieldPostings } from "../../src/search/field-postings.ts";
import { fieldTerms } from "../../src/search/field-terms.ts";
import { BOOSTS } from "../../src/search/fields.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { MAX_HEADINGS, SEARCH_OPTIONS } from "../../src/search/index-settings.ts";
import { scoreParams, termSpecs } from "../../src/search/query-spec.ts";
import { Scores } from "../../src/search/scores.ts";
import { LEAD_CHARS, SCORING } from "../../src/search/scoring.ts";
import { searchName } from "../../src/search/search-name.ts";
import type { SlotStrings } from "../../src/search/slot-strings.ts";
import { processTerm } from "../../src/search/text.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { headingsOf } from "../../src/skills/markdown.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { fakeSkill } from "../helpers/skill.ts";
import { slotStrings } from "../helpers/slot-strings.ts";

/**
 * FullTextIndex keeps its postings in typed arrays and combines field scores as scoring.ts says.
 * The reference here is real MiniSearch: each field's BM25+ must equal MiniSearch's for
 * the same parameters, and a whole query must equal scoring.ts's recipe computed with MiniSearch
 * (one single-term search per query term over the metadata, compressed; one per zone).
 */

const fixture = join(import.meta.dir, "..", "fixtures", "ranking");
const scanned = new Scanner().scan([{ label: "dir1", dir: fixture, location: "explicit" }], {
  maxDepth: 8,
  maxDirs: 1000,
}).skills;

/** Filler prose of `chars` characters, none of it a query word below. */
function filler(chars: number): string {
  const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike ".repeat(40);
  return words.repeat(Math.ceil(chars / words.length)).slice(0, chars);
}

// Long bodies whose lead ends in each way: on a word's end, at LEAD_CHARS inside an unbroken run, and
// inside a run that reaches the end of the body.
const long: [Skill, string][] = [
  [fakeSkill("kube-notes"), `${filler(LEAD_CHARS - 4)}kubernetes deployments ${filler(3000)} zanzibar procedure`],
  [fakeSkill("run-on"), `${filler(LEAD_CHARS - 10)}${"invoice".repeat(20)} totals ${filler(500)}`],
  [fakeSkill("short-tail"), `${filler(LEAD_CHARS - 3)}databases`],
];
const skills = [...scanned, ...long.map(([s]) => s)];
const bodies = new Map(long.map(([s, b]) => [s.id, b]));
const bodyOf = (s: Skill) => bodies.get(s.id) ?? skillBody(readFileSync(s.file, "utf8"));
/** The body as the service feeds it: in small chunks. */
const streamed = (s: Skill, sink: (chunk: string) => boolean) => {
  const body = bodyOf(s);
  for (let at = 0; at < body.length; at += 7) if (!sink(body.slice(at, at + 7))) return;
};

/** The lead's end as scoring.ts defines it, on the whole body. */
function leadEnd(body: string): number {
  if (body.length <= LEAD_CHARS) return body.length;
  const after = body.slice(LEAD_CHARS, LEAD_CHARS + 64).search(/\s/);
  return after < 0 ? LEAD_CHARS : LEAD_CHARS + after;
}

const META = ["name", "description", "tags", "category", "keywords"];

function reference(docs: readonly Skill[]): MiniSearch {
  const mini = new MiniSearch({
    fields: [...META, "headings", "lead", "body"],
    idField: "id",
    processTerm,
    storeFields: [],
  });
  mini.addAll(
    docs.map((s) => {
      const body = bodyOf(s);
      const cut = leadEnd(body);
      return {
        id: s.id,
        name: searchName(s),
        description: s.description,
        tags: s.tags.join(" "),
        category: s.category ?? "",
        keywords: s.keywords.join(" "),
        headings: headingsOf(body).slice(0, MAX_HEADINGS).join("\n"),
        lead: body.slice(0, cut),
        body: body.slice(cut),
      };
    }),
  );
  return mini;
}

/** scoring.ts's recipe, with MiniSearch doing every field's matching and BM25+. */
function referenceSearch(mini: MiniSearch, query: string, fuzzy: SearchOptions["fuzzy"]) {
  const out = new Map<string, { raw: number; terms: Set<string> }>();
  const add = (id: string, raw: number, term: string) => {
    const hit = out.get(id) ?? { raw: 0, terms: new Set<string>() };
    hit.raw += raw;
    hit.terms.add(term);
    out.set(id, hit);
  };
  const single = { tokenize: (t: string) => [t], processTerm: (t: string) => t, prefix: SEARCH_OPTIONS.prefix };
  for (const term of FullTextIndex.queryTerms(query)) {
    for (const r of mini.search(term, { ...single, fields: META, boost: BOOSTS, fuzzy, maxFuzzy: 2 }))
      add(String(r.id), r.score ** SCORING.metaPower, term);
    for (const [field, zone] of [
      ["lead", SCORING.lead],
      ["body", SCORING.rest],
      ["headings", SCORING.headings],
    ] as const)
      for (const r of mini.search(term, {
        ...single,
        prefix: false,
        fields: [field],
        boost: { [field]: zone.boost },
        bm25: zone,
      }))
        add(String(r.id), r.score, term);
  }
  return out;
}

function expectSame(ours: FullTextIndex, mini: MiniSearch, query: string, fuzzy: SearchOptions["fuzzy"]): void {
  const theirs = referenceSearch(mini, query, fuzzy);
  const counted = ours.searchWithCounts(query, { fuzzy });
  const hits = [...counted.hits];
  const matched = counted.matched;
  expect(hits.map((h) => h.id).sort()).toEqual([...theirs.keys()].sort());
  for (const hit of hits) {
    const r = theirs.get(hit.id);
    expect(hit.raw).toBeCloseTo(r?.raw ?? Number.NaN, 8);
    expect([...hit.queryTerms].sort()).toEqual([...(r?.terms ?? [])].sort());
  }
  for (let i = 1; i < hits.length; i++) expect(hits[i - 1]?.raw).toBeGreaterThanOrEqual(hits[i]?.raw as number);
  for (const [term, n] of matched) expect(n).toBe([...theirs.values()].filter((h) => h.terms.has(term)).length);
}

const QUERIES = [
  "pull the totals out of a stack of invoices",
  "why is my SQL query so slow",
  "describe our REST endpoints",
  "containers for local development with a database",
  "review review a pull request",
  "invoic databse conteiners", // prefixes and typos
  "commit",
  "kubernetes deployments zanzibar procedure",
  "invoiceinvoice totals databases",
];

describe("each field's BM25+ equals MiniSearch's for the same parameters", () => {
  const texts: Record<string, (s: Skill) => string> = {
    name: searchName,
    description: (s) => s.description,
    body: bodyOf,
  };
  for (const [field, text] of Object.entries(texts))
    for (const bm25 of [{ k: 1.2, b: 0.7, d: 0.5 }, SCORING.lead])
      test(`${field}, k ${bm25.k} b ${bm25.b}: exact, prefix and fuzzy matches`, () => {
        const store = new FieldPostings();
        const ids = slotStrings(skills.map((s) => s.id));
        skills.forEach((s, slot) => {
          const { counts, length } = fieldTerms(text(s));
          store.add(slot, counts, length);
        });
        const mini = new MiniSearch({ fields: [field], idField: "id", processTerm, storeFields: [] });
        mini.addAll(skills.map((s) => ({ id: s.id, [field]: text(s) })));
        const options = { ...SEARCH_OPTIONS, bm25, boost: { [field]: 3 } };
        for (const q of QUERIES)
          for (const spec of termSpecs(FullTextIndex.queryTerms(q), options)) {
            const scores = new Scores(ids.length, [spec.term]);
            store.score(spec, 3, scoreParams(options), ids, ids.length, scores);
            const ours = new Map(scores.ranked().hits.map((h) => [ids.at(h.slot), h.raw]));
            const single = { ...options, tokenize: (t: string) => [t], processTerm: (t: string) => t };
            const theirs = new Map(mini.search(spec.term, single).map((r) => [String(r.id), r.score]));
            expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
            for (const [id, raw] of ours) expect(raw).toBeCloseTo(theirs.get(id as string) ?? Number.NaN, 8);
          }
      });
});

describe("FullTextIndex scores as scoring.ts's recipe over MiniSearch", () => {
  test("every field, bodies streamed in chunks and split into zones, fuzzy on and off", () => {
    const ours = FullTextIndex.empty();
    ours.sync(skills, streamed);
    const mini = reference(skills);
    for (const q of QUERIES) {
      expectSame(ours, mini, q, SEARCH_OPTIONS.fuzzy);
      expectSame(ours, mini, q, false);
    }
  });

  test("after removals, edits and freezes it still equals a fresh reference of what is left", () => {
    const ours = FullTextIndex.empty();
    ours.sync(skills, bodyOf);
    const [first, second, ...rest] = skills as [Skill, Skill, ...Skill[]];
    const edited: Skill = { ...second, hash: "edited", description: "Tables of invoices in spreadsheets" };
    expect(ours.sync([edited, ...rest], bodyOf)).toEqual({ added: 0, updated: 1, removed: 1 });
    expect(ours.has(first.id)).toBe(false);
    const mini = reference([edited, ...rest]);
    for (const q of [...QUERIES.slice(0, 4), "spreadsheet tables"]) expectSame(ours, mini, q, false);
    // A freeze (snapshot) drops the freed postings: the same again.
    ours.snapshot();
    for (const q of [...QUERIES.slice(0, 4), "spreadsheet tables"]) expectSame(ours, mini, q, false);
  });

  test("a build in slices, with a save's snapshot taken between two of them, ranks as a build in one go", async () => {
    const whole = FullTextIndex.empty();
    whole.sync(skills, bodyOf);
    const sliced = FullTextIndex.empty();
    let ticks = 0;
    await sliced.syncAsync(
      skills,
      streamed,
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

test("a worker's build skill by skill, in batches, some skills sent twice, ranks as a sync in one go", () => {
  const whole = FullTextIndex.empty();
  whole.sync(skills, bodyOf);
  const added = FullTextIndex.empty();
  let between = 0;
  const half = Math.ceil(skills.length / 2);
  added.addNew(skills.slice(0, half), streamed, () => between++);
  expect(between).toBe(half);
  // The second batch repeats the first one's last skill: it is not indexed twice.
  added.addNew(skills.slice(half - 1), streamed, () => between++);
  expect(between).toBe(skills.length);
  expect(added.size).toBe(skills.length);
  added.snapshot();
  for (const q of QUERIES) expect(added.search(q)).toEqual(whole.search(q));
});

describe("a field's freed slots (scoring skips the live check while there are none)", () => {
  const counts = new Map([["pdf", 1]]);
  const score = (store: FieldPostings, ids: SlotStrings) => {
    const scores = new Scores(ids.length, ["pdf"]);
    store.score({ term: "pdf", prefix: false, maxDistance: 0 }, 1, scoreParams({}), ids, 1, scores);
    return scores.ranked().hits.map((h) => [h.slot, h.raw]);
  };

  test("a freed slot is never scored, before a freeze and after one, even one the index asks to keep it for", () => {
    const store = new FieldPostings();
    store.add(0, counts, 3);
    store.add(1, counts, 3);
    store.freeze(slotStrings(["a", "b"]));
    const ids = slotStrings(["a", undefined]);
    store.remove(1);
    const before = score(store, ids);
    expect(before.map(([slot]) => slot)).toEqual([0]);
    // The index asks for no drop (it counts no freed slot of its own); the store knows better.
    store.freeze(ids, false);
    expect(store.postings).toBe(1);
    expect(score(store, ids)).toEqual(before);
  });
});
