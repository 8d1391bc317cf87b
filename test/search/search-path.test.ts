import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/catalog/catalog.ts";
import { BestFirst } from "../../src/search/best-first.ts";
import { rank } from "../../src/search/engine.ts";
import { cutAround, matchedExcerpt } from "../../src/search/excerpt.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { fakeSkill } from "../helpers/skill.ts";

/**
 * The search path's savings give the same answers as the code they replaced: the
 * excerpt's one-pass window, the heap read best first, and the served skill kept per index slot.
 */

/** A seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The window choice as it was: for each match, a Set of the distinct terms within `span` after it. */
function naiveWindowStart(hits: { index: number; term: string }[], span: number): number {
  let at = hits[0]?.index ?? 0;
  let best = 0;
  for (let i = 0; i < hits.length; i++) {
    const seen = new Set<string>();
    for (let j = i; j < hits.length && (hits[j]?.index ?? 0) - (hits[i]?.index ?? 0) < span; j++)
      seen.add(hits[j]?.term ?? "");
    if (seen.size > best) {
      best = seen.size;
      at = hits[i]?.index ?? 0;
    }
  }
  return at;
}

/**
 * The excerpt made the plain way (the same cut, cutAround; the naive window): matches and the window
 * in the text as given, then the whole text collapsed and the window's start found in it.
 */
function naiveExcerpt(raw: string, terms: string[], size: number): string | undefined {
  const lower = raw.toLowerCase();
  const hits: { index: number; term: string }[] = [];
  for (const term of terms)
    for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + 1))
      if (at === 0 || !/[a-z0-9]/.test(lower[at - 1] as string)) hits.push({ index: at, term });
  hits.sort((a, b) => a.index - b.index);
  if (hits.length === 0) return undefined;
  const at = naiveWindowStart(hits, size * 0.8);
  const flat = raw.replace(/\s+/g, " ").trim();
  const flatAt = raw.slice(0, at).replace(/\s+/g, " ").trimStart().length;
  return flat.length <= size ? flat : cutAround(flat, flatAt, size);
}

/** matchedExcerpt gives naiveExcerpt's excerpt of `text` at three sizes (`round` names a failure). */
function expectSameExcerpts(round: number, text: string, asked: string[]): void {
  for (const size of [20, 60, 160])
    expect({ round, size, excerpt: matchedExcerpt(text, asked, size) }).toEqual({
      round,
      size,
      excerpt: naiveExcerpt(text, asked, size),
    });
}

describe("excerpts: the window holding the most distinct terms, found in one pass", () => {
  test("the same excerpt as the window read match by match, on random texts", () => {
    const next = random(16);
    const words = ["pdf", "table", "tables", "invoice", "merge", "alpha", "beta", "gamma", "delta", "x"];
    const terms = ["pdf", "tabl", "invoic", "merg"];
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: 5 + Math.floor(next() * 300) }, () => words[Math.floor(next() * 10)]).join(" ");
      expectSameExcerpts(
        round,
        text,
        terms.filter(() => next() < 0.7),
      );
    }
  });

  test("the same excerpt in text with runs of whitespace: only the part around the window is collapsed", () => {
    const next = random(23);
    const words = ["pdf", "table", "invoice", "merge", "alpha", "beta", "x", "# Heading"];
    const gaps = [" ", " ", " ", "  ", "\n", "\n\n", "\t", "\n    ", " \r\n", " ".repeat(200), "\n".repeat(90)];
    const terms = ["pdf", "tabl", "invoic", "merg"];
    for (let round = 0; round < 300; round++) {
      const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)] as T;
      const parts = Array.from({ length: 1 + Math.floor(next() * 250) }, () => `${pick(words)}${pick(gaps)}`);
      const text = `${next() < 0.3 ? pick(gaps) : ""}${parts.join("")}`;
      expectSameExcerpts(
        round,
        text,
        terms.filter(() => next() < 0.7),
      );
    }
  });

  test("the earliest of equally good windows; a term given twice counts once", () => {
    const text = `pdf ${"filler ".repeat(40)}pdf table ${"filler ".repeat(40)}pdf table`;
    expect(matchedExcerpt(text, ["pdf", "tabl", "pdf"], 40)).toBe(naiveExcerpt(text, ["pdf", "tabl"], 40));
    expect(matchedExcerpt(text, ["pdf", "tabl"], 40)?.startsWith("…filler pdf table")).toBe(true);
  });

  test("a word written right after CJK text is found there, as the index splits it off", () => {
    const text = `# 請求書\n\n${"請求書を読み取り、支払期日と合計金額を取り出します。".repeat(12)}最後に日付をJSONにまとめる。`;
    expect(matchedExcerpt(text, ["json"], 40)).toContain("JSON");
    // Not inside a word of other letters, nor after a CJK character two units back (`をajson`).
    expect(matchedExcerpt(`${"請求書".repeat(30)}をajsonに`, ["json"], 40)).toBeUndefined();
    expect(matchedExcerpt(`${"請求書".repeat(30)}𠮷json`, ["json"], 40)).toContain("json");
  });
});

describe("BestFirst: documents best first, ties in the order first touched", () => {
  test("the order of a full sort, with many ties, however much is read", () => {
    const next = random(7);
    // Scores from 0 to 1: past those at least an eighth of the best, the others are heaped as read.
    for (const n of [0, 1, 2, 3, 17, 500, 3000]) {
      const values = new Float64Array(n * 2);
      const touched: number[] = [];
      for (let i = 0; i < n; i++) {
        const slot = (i * 7 + 3) % (n * 2);
        touched.push(slot);
        // Ties, and scores spread far below the best.
        values[slot] = i % 2 === 0 ? Math.floor(next() * 5) / 4 : next() ** 4;
      }
      const expected = touched
        .map((slot, position) => ({ slot, position }))
        .sort((a, b) => (values[b.slot] as number) - (values[a.slot] as number) || a.position - b.position)
        .map((e) => e.slot);
      const order = new BestFirst(touched, values);
      const read: number[] = [];
      for (let slot = order.next(); slot !== -1; slot = order.next()) read.push(slot);
      expect(read).toEqual(expected);
      expect(order.next()).toBe(-1);
    }
  });
});

describe("served skills per index slot", () => {
  const catalogOf = (...sources: { label: string; skills: Skill[] }[]) =>
    new Catalog(
      sources.map(({ label, skills }) => ({
        source: { label, dir: `/${label}`, location: "explicit" as const },
        exists: true,
        dirCount: skills.length,
        skills,
        diagnostics: [],
      })),
    );
  const invoices = fakeSkill("invoice-reader", { description: "Reads invoice totals." });
  const ledger = fakeSkill("ledger-keeper", { description: "Keeps the invoice ledger." });
  const index = FullTextIndex.empty();
  index.sync([invoices, ledger], () => "");
  const names = (catalog: Catalog) =>
    rank(index, catalog, "invoice", { limit: 10, threshold: 0 }).map((h) => h.skill.id);

  test("each catalog snapshot decides which slots it serves, whatever an earlier one said", () => {
    expect(names(catalogOf({ label: "dir1", skills: [invoices, ledger] }))).toEqual([
      "dir1:invoice-reader",
      "dir1:ledger-keeper",
    ]);
    // The same ids, shadowed by a first source that has no such text: not served from this index.
    const shadow = fakeSkill("ledger-keeper", { source: "dir0", description: "Other things." });
    expect(
      names(catalogOf({ label: "dir0", skills: [shadow] }, { label: "dir1", skills: [invoices, ledger] })),
    ).toEqual(["dir1:invoice-reader"]);
    expect(names(catalogOf({ label: "dir1", skills: [ledger] }))).toEqual(["dir1:ledger-keeper"]);
    // A catalog already searched keeps answering as it did.
    const both = catalogOf({ label: "dir1", skills: [invoices, ledger] });
    expect(names(both)).toEqual(names(both));
    expect(names(both)).toHaveLength(2);
  });

  test("a skill re-indexed under a new slot is found there, the freed slot never again", () => {
    const changed = { ...ledger, hash: "changed", description: "Keeps the invoice ledger, now with receipts." };
    const before = catalogOf({ label: "dir1", skills: [invoices, ledger] });
    expect(names(before)).toHaveLength(2);
    index.sync([invoices, changed], () => "");
    const after = catalogOf({ label: "dir1", skills: [invoices, changed] });
    const hits = rank(index, after, "invoice", { limit: 10, threshold: 0 });
    expect(hits.map((h) => h.skill.hash).sort()).toEqual(["changed", "invoice-reader"]);
    expect(hits.every((h) => after.skills.includes(h.skill))).toBe(true);
  });
});
