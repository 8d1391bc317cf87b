import { describe, expect, test } from "bun:test";
import MiniSearch from "minisearch";
import { BodyPostings } from "../../src/search/body-postings.ts";
import { processTerm } from "../../src/search/text.ts";

const BODIES: Record<string, string> = {
  a: "Extract tables from PDF files and merge PDF pages into one document.",
  b: "Rotate images, crop them and convert PNG to JPEG.",
  c: "Tables in spreadsheets: pivot tables, formulas and charts for Excel workbooks.",
  d: "Deploy containers to Kubernetes clusters with Helm charts.",
  e: "Write a changelog from git commits; tables of contents for documents.",
};

/** MiniSearch with the body as its only field: the reference BodyPostings must score like. */
function reference(bodies: Record<string, string>) {
  const mini = new MiniSearch({ fields: ["body"], idField: "id", processTerm });
  mini.addAll(Object.entries(bodies).map(([id, body]) => ({ id, body })));
  return mini;
}

function scores(p: BodyPostings, query: string[], prefix = false): Record<string, number> {
  const out: Record<string, number> = {};
  const terms = query.map((w) => processTerm(w)).filter((t): t is string => t !== null);
  for (const [id, m] of p.search(terms, () => prefix, 1)) out[id] = m.score * m.terms.length;
  return out;
}

function miniScores(mini: MiniSearch, query: string, prefix = false): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of mini.search(query, { prefix, combineWith: "OR" })) out[String(r.id)] = r.score;
  return out;
}

function expectClose(a: Record<string, number>, b: Record<string, number>): void {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  for (const k of Object.keys(a)) expect(a[k]).toBeCloseTo(b[k] as number, 6);
}

describe("BodyPostings", () => {
  test("scores exactly as MiniSearch's BM25+ over one field, exact and prefix", () => {
    const p = new BodyPostings();
    for (const [id, body] of Object.entries(BODIES)) p.add(id, body);
    const mini = reference(BODIES);
    expectClose(scores(p, ["table", "pdf"]), miniScores(mini, "tables pdf"));
    expectClose(scores(p, ["chart"]), miniScores(mini, "charts"));
    expectClose(scores(p, ["tabl"], true), miniScores(mini, "tabl", true));
  });

  test("removal, re-adding and freezing keep scores in step with a fresh index", () => {
    const p = new BodyPostings();
    for (const [id, body] of Object.entries(BODIES)) p.add(id, body);
    p.remove("c");
    p.add("a", "Convert Word documents to PDF.");
    p.freeze();
    p.add("f", "Charts and tables for quarterly reports.");
    const { c: _gone, ...rest } = BODIES;
    const now = { ...rest, a: "Convert Word documents to PDF.", f: "Charts and tables for quarterly reports." };
    expect(p.size).toBe(5);
    expectClose(scores(p, ["table", "pdf", "chart"]), miniScores(reference(now), "tables pdf charts"));
  });

  test("survives a JSON round trip", () => {
    const p = new BodyPostings();
    for (const [id, body] of Object.entries(BODIES)) p.add(id, body);
    p.remove("d");
    const copy = BodyPostings.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
    expect(copy.size).toBe(4);
    expectClose(scores(copy, ["table", "imag"], true), scores(p, ["table", "imag"], true));
    copy.add("g", "Images everywhere");
    expect(Object.keys(scores(copy, ["imag"]))).toContain("g");
  });

  test("a corrupt persisted form is refused, not half-loaded", () => {
    const json = new BodyPostings().toJSON();
    expect(() => BodyPostings.fromJSON({ ...json, vocabulary: "x\ny" })).toThrow(/inconsistent/);
  });
});
