import { describe, expect, test } from "bun:test";
import { Catalog, type SourceScan } from "../../src/catalog/catalog.ts";
import { isEnabled } from "../../src/catalog/filters.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { closeNames, editDistance } from "../../src/util/close-names.ts";
import { fakeSkill } from "../helpers/skill.ts";

const scan = (label: string, names: string[], location: "project" | "global" = "project"): SourceScan => ({
  source: { label, dir: `/${label}`, location },
  exists: true,
  dirCount: names.length,
  skills: names.map((n) =>
    fakeSkill(n, {
      source: label,
      id: `${label}:${n}`,
      dir: `/${label}/${n}`,
      file: `/${label}/${n}/SKILL.md`,
      location,
    }),
  ),
  diagnostics: [],
});

describe("Catalog", () => {
  test("first source wins; the loser is kept as shadowed and reachable by qualified name", () => {
    const catalog = new Catalog([scan("project", ["git", "pdf"]), scan("global", ["Git", "xlsx"], "global")]);
    expect(catalog.skills.map((s) => s.id)).toEqual(["project:git", "project:pdf", "global:xlsx"]);
    expect(catalog.get("GIT")?.id).toBe("project:git");
    expect(catalog.get("global:git")?.dir).toBe("/global/Git");
    expect(catalog.shadowed.map((s) => [s.skill.id, s.by.id])).toEqual([["global:Git", "project:git"]]);
    expect(catalog.diagnostics.map((d) => [d.code, d.source])).toEqual([["shadowed", "global"]]);
    expect(catalog.sources.map((s) => [s.label, s.served, s.shadowed])).toEqual([
      ["project", 2, 0],
      ["global", 1, 1],
    ]);
  });

  test("a name is found in either Unicode normal form, and served as its author wrote it", () => {
    const catalog = new Catalog([scan("project", ["caf\u00e9", "the\u0301", "git"])]);
    for (const name of ["caf\u00e9", "cafe\u0301", " CAFE\u0301 ", "project:cafe\u0301"])
      expect(catalog.get(name)?.name).toBe("caf\u00e9");
    expect(catalog.get("th\u00e9")?.name).toBe("the\u0301");
    expect(catalog.get("project:TH\u00c9")?.id).toBe("project:the\u0301");
    // By exact id only: the id as written.
    expect(catalog.getById("project:the\u0301")?.name).toBe("the\u0301");
    expect(catalog.getById("project:th\u00e9")).toBeUndefined();
  });

  test("two names differing only in Unicode normal form collide: the first wins, as for duplicates, and the note says why", () => {
    const catalog = new Catalog([
      scan("project", ["caf\u00e9", "cafe\u0301"]),
      scan("global", ["CAFE\u0301"], "global"),
    ]);
    expect(catalog.skills.map((s) => s.id)).toEqual(["project:caf\u00e9"]);
    expect(catalog.get("cafe\u0301")?.id).toBe("project:caf\u00e9");
    expect(catalog.get("global:caf\u00e9")?.id).toBe("global:CAFE\u0301");
    expect(catalog.reachableShadowed().map(({ skill }) => skill.id)).toEqual(["global:CAFE\u0301"]);
    expect(catalog.diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        "duplicate-name",
        "another skill named 'cafe\u0301' in the same source (/project/caf\u00e9) comes first (the same name in another Unicode normal form); this one is not served.",
      ],
      [
        "shadowed",
        "skill 'CAFE\u0301' is shadowed by /project/caf\u00e9 (source project) (the same name in another Unicode normal form); load it as 'global:CAFE\u0301'.",
      ],
    ]);
  });

  test("names are only looked up, never used as paths", () => {
    const catalog = new Catalog([scan("project", ["git"])]);
    for (const hostile of ["../../../etc/passwd", ".ssh/id_rsa", "git/../git", "git\u0000", "/etc/passwd"]) {
      expect(catalog.get(hostile)).toBeUndefined();
    }
  });

  test("the visible hash changes with names and descriptions, not with content only", () => {
    const a = new Catalog([scan("p", ["git"])]);
    const b = new Catalog([
      {
        ...scan("p", ["git"]),
        skills: [fakeSkill("git", { source: "p", id: "p:git", hash: "changed", location: "project" })],
      },
    ]);
    expect(a.visibleHash).toBe(b.visibleHash);
    expect(a.contentHash).not.toBe(b.contentHash);
    const c = new Catalog([
      {
        ...scan("p", ["git"]),
        skills: [fakeSkill("git", { source: "p", id: "p:git", description: "new", location: "project" })],
      },
    ]);
    expect(c.visibleHash).not.toBe(a.visibleHash);
  });
});

describe("CatalogStore", () => {
  test("swap notifies only when something changed", () => {
    const store = new CatalogStore();
    const changes: boolean[] = [];
    store.onChange((c) => changes.push(c.visibleChanged));
    store.swap(new Catalog([scan("p", ["git"])]));
    store.swap(new Catalog([scan("p", ["git"])]));
    store.swap(new Catalog([scan("p", ["git", "pdf"])]));
    expect(changes).toEqual([true, true]);
  });

  test("the seed (the last run's snapshot) is listeners' to compare once, then let go", () => {
    const store = new CatalogStore();
    const seed = new Catalog([scan("p", ["git"])]);
    expect(store.seed(seed)).toBe(true);
    expect(store.provisional).toBe(true);
    const seen: boolean[] = [];
    store.onChange((c) => seen.push(store.isSeed(c.previous)));
    store.swap(new Catalog([scan("p", ["git", "pdf"])]));
    expect(seen).toEqual([true]);
    // Not kept after the first scan (a 10,000-skill snapshot would stay in memory), even when unchanged.
    expect(store.isSeed(seed)).toBe(false);
    expect(store.provisional).toBe(false);
    const unchanged = new CatalogStore();
    const same = new Catalog([scan("p", ["git"])]);
    unchanged.seed(same);
    unchanged.swap(new Catalog([scan("p", ["git"])]));
    expect(unchanged.isSeed(same)).toBe(false);
    expect(unchanged.seed(same)).toBe(false);
  });
});

describe("filters", () => {
  test("names first, else categories, else everything", () => {
    const pdf = fakeSkill("pdf", { category: "documents" });
    expect(isEnabled(pdf, { skills: [], categories: [] })).toBe(true);
    expect(isEnabled(pdf, { skills: ["git"], categories: ["documents"] })).toBe(false);
    expect(isEnabled(pdf, { skills: ["pdf"], categories: [] })).toBe(true);
    expect(isEnabled(pdf, { skills: [], categories: ["documents"] })).toBe(true);
    expect(isEnabled(fakeSkill("x"), { skills: [], categories: ["documents"] })).toBe(false);
  });
});

describe("closeNames", () => {
  test("typos and partial names come first", () => {
    const names = ["git", "github-actions", "postgres", "pdf", "xlsx"];
    expect(closeNames("gti", names)).toEqual(["git"]);
    expect(closeNames("postgre", names)).toEqual(["postgres"]);
    expect(closeNames("git", names).slice(0, 2)).toEqual(["git", "github-actions"]);
    expect(closeNames("zzzzzz", names)).toEqual([]);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  test("a sentence naming a skill finds it; a name longer than 256 characters gets none (each name is compared with it)", () => {
    const names = ["git", "pdf-tools"];
    expect(closeNames("load the pdf-tools skill", names)).toEqual(["pdf-tools"]);
    expect(closeNames(`pdf-tools ${"x".repeat(246)}`, names)).toEqual(["pdf-tools"]);
    expect(closeNames(`pdf-tools ${"x".repeat(247)}`, names)).toEqual([]);
  });
});
