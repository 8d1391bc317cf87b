import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/catalog/catalog.ts";
import { BodyZones } from "../../src/search/body-zones.ts";
import { rank } from "../../src/search/engine.ts";
import { fieldTerms } from "../../src/search/field-terms.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { decodeIndexFile, encodeIndexFile } from "../../src/search/index-file.ts";
import { Scores } from "../../src/search/scores.ts";
import { LEAD_CHARS, LEAD_WORD_END } from "../../src/search/scoring.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { fakeSkill } from "../helpers/skill.ts";

function catalogOf(skills: Skill[]): Catalog {
  return new Catalog([
    {
      source: { label: "dir1", dir: "/s", location: "explicit" },
      exists: true,
      dirCount: skills.length,
      skills,
      diagnostics: [],
    },
  ]);
}

/** Filler prose of about `chars` characters, none of it a query word below. */
function filler(chars: number): string {
  const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike".split(" ");
  let out = "";
  for (let i = 0; out.length < chars; i++) out += `${words[i % words.length]} `;
  return out;
}

describe("whole bodies, ranked by zones", () => {
  const generalist = fakeSkill("platform-handbook", { description: "Everything about our platform.", hash: "1" });
  const specialist = fakeSkill("invoice-reconciler", { description: "Matches payments to open invoices.", hash: "2" });
  const deep = fakeSkill("ledger-notes", { description: "Notes on the ledger.", hash: "3" });
  const bodies: Record<string, string> = {
    // A long reference body that mentions every word of the query, deep down.
    [generalist.id]: `${filler(2000)}${" invoices payments reconcile bank statements quarterly".repeat(3)} ${filler(4000)}`,
    [specialist.id]: "Reconcile bank statements: match each payment to its invoice, flag the rest.",
    [deep.id]: `${filler(LEAD_CHARS * 3)} the zanzibar procedure is described here`,
  };
  const catalog = catalogOf([generalist, specialist, deep]);
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => bodies[s.id] ?? "");
  const names = (q: string) => rank(index, catalog, q, { limit: 10, threshold: 0 }).map((h) => h.skill.name);

  test("a word far past the lead is still found: the whole body is indexed", () => {
    expect(names("zanzibar procedure")).toEqual(["ledger-notes"]);
  });

  test("a long body mentioning every query word in its details does not outrank a skill about them", () => {
    expect(names("reconcile quarterly bank statements against invoices and payments")).toEqual([
      "invoice-reconciler",
      "platform-handbook",
    ]);
  });

  test("the same body scores the same whether it is indexed in one pass or restored from a save", () => {
    const header = { schema: 0, fingerprint: "", savedAt: "" };
    const restored = FullTextIndex.fromParts(decodeIndexFile(Buffer.concat(encodeIndexFile(header, index.snapshot()))));
    expect(restored.search("reconcile invoices zanzibar")).toEqual(index.search("reconcile invoices zanzibar"));
  });
});

describe("prefix matching: from five letters, in the metadata only", () => {
  const storage = fakeSkill("blob-keeper", { description: "Storage of uploaded files.", hash: "1" });
  const poster = fakeSkill("print-shop", { description: "Print shop orders.", hash: "2" });
  const kubernetes = fakeSkill("cluster-ops", { description: "Kubernetes deployments.", hash: "3" });
  const bodies: Record<string, string> = { [poster.id]: "Estimate the posterior of a model." };
  const catalog = catalogOf([storage, poster, kubernetes]);
  const index = FullTextIndex.empty();
  index.sync(catalog.skills, (s) => bodies[s.id] ?? "");
  const names = (q: string) => rank(index, catalog, q, { limit: 10, threshold: 0 }).map((h) => h.skill.name);

  test("a four-letter word is matched whole: a shop's store is not storage", () => {
    expect(names("store")).toEqual([]);
  });

  test("a longer one still finds the words it starts, in names and descriptions", () => {
    expect(names("kuber")).toEqual(["cluster-ops"]);
  });

  test("in the body, words are matched whole: a poster is not a posterior", () => {
    expect(names("poster")).toEqual([]);
    expect(names("posterior")).toEqual(["print-shop"]);
  });
});

describe("BodyZones: the lead ends at LEAD_CHARS, moved on to the end of its word", () => {
  /** The split on the whole text, as scoring.ts defines it. */
  function whole(body: string) {
    let cut = body.length;
    if (body.length > LEAD_CHARS) {
      const after = body.slice(LEAD_CHARS, LEAD_CHARS + LEAD_WORD_END).search(/\s/);
      cut = after < 0 ? LEAD_CHARS : LEAD_CHARS + after;
    }
    return { lead: fieldTerms(body.slice(0, cut)), rest: fieldTerms(body.slice(cut)) };
  }
  const BODIES = [
    "",
    "short body",
    `${"a".repeat(LEAD_CHARS - 3)} straddling word then more`,
    `${"b".repeat(LEAD_CHARS - 3)}${"c".repeat(100)} an unbroken run past the reach`,
    `${"d ".repeat(LEAD_CHARS / 2)}exact`,
    `${"e".repeat(LEAD_CHARS + 10)}`,
    `${"f ".repeat(LEAD_CHARS)}\ttabbed\nlines`,
  ];

  test("chunked at any size, each zone counts as the whole text split first", () => {
    for (const body of BODIES) {
      const want = whole(body);
      for (const size of [1, 3, 7, 64, 1499, 1500, 1501, 100_000]) {
        const zones = new BodyZones();
        for (let at = 0; at < body.length; at += size) zones.push(body.slice(at, at + size));
        const got = zones.end();
        for (const zone of ["lead", "rest"] as const) {
          expect(got[zone].length).toBe(want[zone].length);
          expect([...got[zone].counts].sort()).toEqual([...want[zone].counts].sort());
        }
      }
    }
  });

  test("maxChars: only that many characters are split, and push says when to stop", () => {
    const zones = new BodyZones(LEAD_CHARS + 5);
    expect(zones.push(`${"g ".repeat(LEAD_CHARS / 2)}hello`)).toBe(false);
    expect(zones.push(" world")).toBe(false);
    expect([...zones.end().rest.counts.keys()]).toEqual(["hello"]);
  });
});

describe("Scores", () => {
  test("sums per document, best first, with the terms each matched and how many matched each term", () => {
    const scores = new Scores(4, ["pdf", "table", "merge"]);
    scores.add(0, scores.term("pdf"), 2);
    scores.add(1, scores.term("table"), 1);
    scores.add(0, scores.term("table"), 0.5);
    scores.add(2, scores.term("pdf"), 3);
    scores.add(2, scores.term("table"), 0);
    const { hits, matched } = scores.ranked();
    expect(hits.map((h) => [h.slot, h.raw, h.queryTerms])).toEqual([
      [2, 3, ["pdf", "table"]],
      [0, 2.5, ["pdf", "table"]],
      [1, 1, ["table"]],
    ]);
    // Documents that matched the same terms share one array (the engine's coverage is computed once per set).
    expect(hits[0]?.queryTerms).toBe(hits[1]?.queryTerms as string[]);
    expect(Object.fromEntries(matched)).toEqual({ pdf: 2, table: 3 });
  });

  test("released arrays serve the next query of the same size, zeroed; the released object cannot be read", () => {
    const first = new Scores(3, ["pdf"]);
    first.add(1, 0, 5);
    first.hold();
    first.add(2, 0, 4); // held, never compressed
    first.release();
    expect(() => [...first.bestFirst()]).toThrow("Scores read after release()");
    const next = new Scores(3, ["table"]);
    next.add(0, 0, 1);
    next.hold();
    next.add(2, 0, 9);
    next.compress(0.5);
    expect(next.ranked().hits.map((h) => [h.slot, h.raw, h.queryTerms])).toEqual([
      [2, 3, ["table"]],
      [0, 1, ["table"]],
    ]);
  });

  test("a search left early gives its arrays back: the next one ranks as a fresh index does", () => {
    const skills = ["alpha", "beta", "gamma"].map((n, i) =>
      fakeSkill(n, { description: `${n} report`, hash: String(i) }),
    );
    const catalog = catalogOf(skills);
    const index = FullTextIndex.empty();
    index.sync(catalog.skills, () => "");
    for (const _ of index.searchWithCounts("report").hits) break;
    const fresh = FullTextIndex.empty();
    fresh.sync(catalog.skills, () => "");
    expect(index.search("beta report")).toEqual(fresh.search("beta report"));
  });

  test("held values are summed per document, then raised to the power (one term's metadata score)", () => {
    const scores = new Scores(2, ["pdf"]);
    scores.add(0, 0, 1);
    scores.hold();
    scores.add(0, 0, 3);
    scores.add(0, 0, 1);
    scores.add(1, 0, 9);
    scores.compress(0.5);
    expect(scores.ranked().hits.map((h) => [h.slot, h.raw])).toEqual([
      [0, 3],
      [1, 3],
    ]);
  });

  test("more than 32 query terms keep their matches apart", () => {
    const terms = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const scores = new Scores(300, terms);
    for (let i = 0; i < 300; i++) {
      scores.add(i, i % 40, i);
      scores.add(i, 39, 0);
    }
    const { hits, matched } = scores.ranked();
    expect(hits).toHaveLength(300);
    expect(hits[0]).toEqual({ slot: 299, raw: 299, queryTerms: ["t19", "t39"] });
    expect(matched.get("t39")).toBe(300);
    expect(matched.get("t33")).toBe(7);
  });
});
