import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Catalog } from "../../src/catalog/catalog.ts";
import { Scanner } from "../../src/catalog/scanner.ts";
import { rank, scoreFullText } from "../../src/search/engine.ts";
import {
  collapseSpaces,
  EXCERPT_SCAN_CHARS,
  excerptAround,
  excerptAtToken,
  matchedExcerpt,
} from "../../src/search/excerpt.ts";
import { FullTextIndex } from "../../src/search/fulltext.ts";
import { acronyms } from "../../src/search/text.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { fakeSkill } from "../helpers/skill.ts";

const fixture = join(import.meta.dir, "..", "fixtures", "ranking");
const catalog = new Scanner().scan([{ label: "dir1", dir: fixture, location: "explicit" }], {
  maxDepth: 8,
  maxDirs: 1000,
});
const index = FullTextIndex.empty();
index.sync(catalog.skills, (s) => skillBody(readFileSync(s.file, "utf8")));
const names = (query: string, threshold = 0.2) =>
  rank(index, catalog, query, { limit: 10, threshold }).map((h) => h.skill.name);

describe("ranking on a fixed corpus (pinned)", () => {
  test("natural-language queries find the right skill first, in a stable order", () => {
    expect(names("pull the totals out of a stack of invoices")).toEqual([
      "pdf-invoice-extractor",
      "release-notes",
      "code-review-checklist",
      "house-style",
    ]);
    expect(names("why is my SQL query so slow")).toEqual(["postgres-query-tuning", "code-review-checklist"]);
    expect(names("write up what changed in this version")[0]).toBe("release-notes");
    expect(names("describe our REST endpoints")).toEqual(["api-docs", "postgres-query-tuning"]);
    expect(names("containers for local development with a database")[0]).toBe("docker-compose-setup");
    expect(names("how should I word my commit")[0]).toBe("git-commit-messages");
    expect(names("review a pull request")[0]).toBe("code-review-checklist");
  });

  test("scores are 0..1, descending, and 1 only for a full match at the top", () => {
    const hits = rank(index, catalog, "why is my SQL query so slow", { limit: 10, threshold: 0 });
    expect(hits[0]?.score).toBe(1);
    for (const h of hits) expect(h.score).toBeGreaterThanOrEqual(0);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    expect(rank(index, catalog, "pull the totals out of invoices", { limit: 10, threshold: 0 })[0]!.score).toBeLessThan(
      1,
    );
  });

  test("a query of stop words only finds nothing", () => {
    expect(names("how do I do this")).toEqual([]);
  });
});

describe("search_skills' candidate rules", () => {
  // 30 skills share the word "widget"; their scores fall off with fewer matches.
  const skills = Array.from({ length: 30 }, (_, i) =>
    fakeSkill(`widget-${String(i).padStart(2, "0")}`, {
      description: i < 3 ? "widget gadget gizmo" : i < 10 ? "widget gadget" : "widget",
      hash: String(i),
    }),
  );
  const many = new Catalog([
    { source: { label: "dir1", dir: "/s", location: "explicit" }, exists: true, dirCount: 30, skills, diagnostics: [] },
  ]);
  const idx = FullTextIndex.empty();
  idx.sync(many.skills, () => "");

  test("more than 5 hits: those under threshold × top are dropped; never more than limit", () => {
    const all = rank(idx, many, "widget gadget gizmo", { limit: 10, threshold: 0 });
    expect(all.length).toBe(10);
    const cut = rank(idx, many, "widget gadget gizmo", { limit: 10, threshold: 0.9 });
    const top = cut[0]!.score;
    for (const h of cut) expect(h.score / top).toBeGreaterThanOrEqual(0.9);
    expect(cut.length).toBe(3);
    expect(rank(idx, many, "widget", { limit: 4, threshold: 0.2 }).length).toBe(4);
  });

  test("5 or fewer hits are returned whatever their scores", () => {
    const few = new Catalog([
      {
        source: { label: "dir1", dir: "/s", location: "explicit" },
        exists: true,
        dirCount: 2,
        skills: skills.slice(0, 2).concat(skills.slice(20, 23)),
        diagnostics: [],
      },
    ]);
    const small = FullTextIndex.empty();
    small.sync(few.skills, () => "");
    expect(rank(small, few, "widget gadget gizmo", { limit: 10, threshold: 0.99 }).length).toBe(5);
  });

  test("accept() filters before ranking", () => {
    const hits = rank(idx, many, "widget", { limit: 10, threshold: 0, accept: (s) => s.name.endsWith("7") });
    expect(hits.map((h) => h.skill.name).sort()).toEqual(["widget-07", "widget-17", "widget-27"]);
  });
});

describe("incremental index", () => {
  test("sync adds, updates and removes only what changed", () => {
    const a = fakeSkill("alpha", { description: "first letter" });
    const b = fakeSkill("beta", { description: "second letter" });
    const idx = FullTextIndex.empty();
    let reads = 0;
    const body = () => (reads++, "");
    expect(idx.sync([a, b], body)).toEqual({ added: 2, updated: 0, removed: 0 });
    expect(idx.sync([a, { ...b, hash: "changed", description: "changed words" }], body)).toEqual({
      added: 0,
      updated: 1,
      removed: 0,
    });
    expect(reads).toBe(3);
    expect(idx.sync([a], body)).toEqual({ added: 0, updated: 0, removed: 1 });
    expect(idx.search("letter").map((h) => h.id)).toEqual([a.id]);
  });
});

describe("the early stop: the hits a caller reads are exact", () => {
  // 400 skills over a small vocabulary, so that a query matches most of them with close scores.
  const words = "invoice table export chart report budget ledger query index cache deploy review".split(" ");
  const many = Array.from({ length: 400 }, (_, i) =>
    fakeSkill(`skill-${String(i).padStart(3, "0")}`, {
      description: Array.from({ length: 6 }, (_, j) => words[(i * 7 + j * j * 3 + (i >> j)) % words.length]).join(" "),
      hash: String(i),
    }),
  );
  const wide = new Catalog([
    {
      source: { label: "dir1", dir: "/s", location: "explicit" },
      exists: true,
      dirCount: many.length,
      skills: many,
      diagnostics: [],
    },
  ]);
  const wideIndex = FullTextIndex.empty();
  wideIndex.sync(wide.skills, () => "");
  const query = "export the budget report and review the ledger cache";
  const all = scoreFullText(wideIndex, wide, query, { depth: 10_000 });
  const top = (hits: { skill: { name: string }; score: number }[], n: number) =>
    hits.slice(0, n).map((h) => [h.skill.name, h.score]);

  test("by default the limit × 4 candidates search_skills' cut reads", () => {
    expect(all.length).toBeGreaterThan(300);
    expect(top(scoreFullText(wideIndex, wide, query, { limit: 10 }), 40)).toEqual(top(all, 40));
  });

  test("as deep as asked (hybrid search fuses 100)", () => {
    expect(top(scoreFullText(wideIndex, wide, query, { limit: 10, depth: 100 }), 100)).toEqual(top(all, 100));
  });
});

describe("excerpts and acronyms", () => {
  test("about 160 characters around the first match, cut at words", () => {
    const text = `${"intro words ".repeat(30)}the invoice number is printed here ${"outro words ".repeat(30)}`;
    const excerpt = excerptAround(text, ["invoic"]);
    expect(excerpt.length).toBeLessThanOrEqual(162);
    expect(excerpt).toContain("invoice number");
    expect(excerpt.startsWith("…")).toBe(true);
    expect(excerptAtToken(`${"x ".repeat(200)}bd ready${" y".repeat(200)}`, ["bd"])).toContain("bd ready");
  });

  test("a match counts at a word's start only, whatever its script; past EXCERPT_SCAN_CHARS nothing is looked at", () => {
    expect(matchedExcerpt("metadata and more", ["data"])).toBeUndefined();
    expect(matchedExcerpt("the data, and more", ["data"])).toBe("the data, and more");
    expect(matchedExcerpt("3data and éoutil", ["data"])).toBeUndefined();
    expect(matchedExcerpt("éoutil", ["outil"])).toBeUndefined();
    expect(matchedExcerpt("-outil", ["outil"])).toBe("-outil");
    const filler = "filler words ".repeat(Math.ceil(EXCERPT_SCAN_CHARS / 13));
    expect(matchedExcerpt(`${filler}the invoice`, ["invoic"])).toBeUndefined();
    const early = matchedExcerpt(`${filler.slice(0, EXCERPT_SCAN_CHARS - 200)} the invoice ${filler}`, ["invoic"]);
    expect(early).toContain("the invoice");
    // Lower-casing "İ" makes two characters: positions still point at the match.
    const dotted = `${"İ".repeat(40)} ${"filler ".repeat(100)}the invoice ${"tail ".repeat(100)}`;
    expect(matchedExcerpt(dotted, ["invoic"])).toContain("the invoice");
  });

  test("whitespace is collapsed as /\\s+/ → one space would, whatever its kind", () => {
    for (const text of [
      "",
      " ",
      "a b",
      "  lead and trail  ",
      "a\tb\n\nc \r\n d",
      "one  two \t three\u00a0four\u2003 five\u3000\ufeffsix",
      "\n# Heading\n\n- item\n    code block\n",
    ])
      expect(collapseSpaces(text)).toBe(text.replace(/\s+/g, " "));
  });

  test("capitalised phrases add their initials", () => {
    expect(acronyms("my You Need A Budget account").map((a) => a.acronym)).toEqual(["ynab"]);
    expect(acronyms("deploy to Amazon Web Services").map((a) => a.acronym)).toEqual(["aws"]);
    expect(acronyms("plain lower case")).toEqual([]);
  });
});
