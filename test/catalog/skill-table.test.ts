import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Catalog, type SourceScan } from "../../src/catalog/catalog.ts";
import { Scanner } from "../../src/catalog/scanner.ts";
import { SkillTable } from "../../src/catalog/skill-table.ts";
import type { Skill } from "../../src/skills/skill.ts";
import type { Source } from "../../src/sources/source-list.ts";
import { KeptWhileUsed } from "../../src/util/kept-while-used.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { fakeSkill } from "../helpers/skill.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 10_000 };

const odd: Skill[] = [
  fakeSkill("plain"),
  fakeSkill("Café-Ünïcode", { description: "Naïve — résumé 日本語 🙂", frontmatterJson: '{"name":"Café-Ünïcode"}' }),
  fakeSkill("empty-strings", { description: "", frontmatterJson: "", hash: "" }),
  fakeSkill("categorised", { category: "devops", alwaysApply: true, bodyLines: 0, size: 0, mtimeMs: 1.5e12 + 0.25 }),
  fakeSkill("elsewhere", { source: "global", location: "global", root: "/home/u/.skills", id: "global:elsewhere" }),
];

describe("SkillTable: a catalog's records packed into columns (issue 16: idle)", () => {
  test("every row comes back equal, a new object each time; odd text, numbers, flags and places included", () => {
    const table = SkillTable.of(odd);
    expect(table.length).toBe(odd.length);
    for (const [row, skill] of odd.entries()) {
      const made = table.at(row);
      expect(made).toEqual({ ...skill, tags: [], keywords: [] });
      expect(made).not.toBe(skill);
      expect(table.at(row)).not.toBe(made);
    }
    expect(table.at(3).category).toBe("devops");
    expect(table.at(0).category).toBeUndefined();
    expect(table.at(3).alwaysApply).toBe(true);
  });

  test("a skill the columns cannot hold (tags, keywords, a tree node, a key of its own) is kept as it is", () => {
    const tagged = fakeSkill("tagged", { tags: ["a"] });
    const node = fakeSkill("ui/auth", {
      kind: "tree-node",
      keywords: ["login"],
      tree: { path: "ui/auth", inherit: false, priority: 0, assets: [], scripts: [] },
    } as unknown as Partial<Skill>);
    const keyed = fakeSkill("Keyed", { key: "other" });
    const table = SkillTable.of([odd[0] as Skill, tagged, node, keyed]);
    expect(table.at(1)).toBe(tagged);
    expect(table.at(2)).toBe(node);
    expect(table.at(3)).toBe(keyed);
    expect(table.at(0)).toEqual({ ...(odd[0] as Skill), tags: [], keywords: [] });
  });
});

const source = (label: string, dir: string): Source => ({ label, dir, location: "explicit" });
const scan = (src: Source, skills: Skill[]): SourceScan => ({
  source: src,
  exists: true,
  dirCount: skills.length,
  skills,
  diagnostics: [],
});

describe("a catalog's Skill objects are made on demand and dropped when unused", () => {
  test("after a drop every look-up answers the same, with new objects; shadowed skills keep their winner", () => {
    const one = source("one", "/one");
    const two = source("two", "/two");
    const place = (s: Source) => ({ source: s.label, location: s.location, root: s.dir });
    const catalog = new Catalog([
      scan(one, [
        fakeSkill("alpha", { ...place(one), id: "one:alpha" }),
        fakeSkill("Beta", { ...place(one), id: "one:Beta" }),
      ]),
      scan(two, [
        fakeSkill("alpha", { ...place(two), id: "two:alpha" }),
        fakeSkill("gamma", { ...place(two), id: "two:gamma" }),
      ]),
    ]);
    const before = {
      skills: catalog.skills,
      alpha: catalog.get("ALPHA"),
      hidden: catalog.get("two:alpha"),
      beta: catalog.getById("one:Beta"),
    };
    expect(before.skills.map((s) => s.id)).toEqual(["one:alpha", "one:Beta", "two:gamma"]);
    expect(catalog.holdsObjects).toBe(true);
    expect(catalog.get("alpha")).toBe(before.alpha as Skill);

    catalog.dropObjects();
    expect(catalog.holdsObjects).toBe(false);
    expect(catalog.size).toBe(3);
    expect(catalog.holdsObjects).toBe(false);
    const after = catalog.get("alpha");
    expect(catalog.holdsObjects).toBe(true);
    expect(after).not.toBe(before.alpha as Skill);
    expect(after).toEqual(before.alpha as Skill);
    expect(catalog.skills).toEqual(before.skills);
    expect(catalog.skills[0]).toBe(after as Skill);
    expect(catalog.get("two:alpha")).toEqual(before.hidden as Skill);
    expect(catalog.getById("one:Beta")).toEqual(before.beta as Skill);
    expect(catalog.getById("one:beta")).toBeUndefined();
    const [shadow] = catalog.shadowed;
    expect(shadow?.skill.id).toBe("two:alpha");
    expect(shadow?.by).toBe(catalog.get("alpha") as Skill);
  });

  test("KeptWhileUsed makes its value once while it is used, and drops it once unused for idleMs", async () => {
    let made = 0;
    const kept = new KeptWhileUsed(() => ({ n: ++made }), 400);
    const first = kept.get();
    for (let i = 0; i < 5; i++) {
      await Bun.sleep(40);
      expect(kept.get()).toBe(first);
    }
    expect(made).toBe(1);
    await Bun.sleep(1200);
    expect(kept.held).toBe(false);
    expect(kept.get()).toEqual({ n: 2 });
  });

  test("a KeptWhileUsed nobody holds is collected with its value before its timer fires, and never drops it", async () => {
    let dropped = 0;
    const refs = Array.from({ length: 20 }, () => {
      const kept = new KeptWhileUsed(
        () => ({ big: "x".repeat(1000) }),
        150,
        undefined,
        () => dropped++,
      );
      kept.get();
      return new WeakRef(kept);
    });
    await Bun.sleep(0);
    Bun.gc(true);
    await Bun.sleep(400);
    Bun.gc(true);
    // A stale stack slot may keep one alive (the collector scans the stack conservatively): most are gone,
    // and none was dropped by its timer. Held by their timers, all 20 would be.
    expect(refs.filter((r) => r.deref() === undefined).length).toBeGreaterThan(15);
    expect(dropped).toBeLessThan(5);
  });

  test("a rescan after the drop reads no unchanged file; a changed one is read again", () => {
    const dir = tempDir("skillhub-table-rescan-");
    for (let i = 0; i < 40; i++) writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}.` });
    writeSkill(dir, "warned", { description: "x".repeat(1100) });
    const reads: string[] = [];
    const counted = new Scanner(undefined, (file) => {
      reads.push(file);
      return readFileSync(file, "utf8");
    });
    const sources = [source("dir1", dir)];
    const first = counted.scan(sources, limits);
    expect(reads.length).toBe(41);
    first.dropObjects();
    const second = counted.scan(sources, limits);
    expect(reads.length).toBe(41);
    expect(second).toBe(first);
    expect(second.diagnostics.map((d) => d.code)).toEqual(["description-too-long"]);
    second.dropObjects();
    writeSkill(dir, "skill-7", { description: "Skill number 7, edited." });
    const third = counted.scan(sources, limits);
    expect(reads.slice(41).map((f) => f.slice(dir.length + 1))).toEqual(["skill-7/SKILL.md"]);
    expect(third.get("skill-7")?.description).toBe("Skill number 7, edited.");
    expect(third.get("skill-8")?.description).toBe("Skill number 8.");
    expect(third.diagnostics.map((d) => d.code)).toEqual(["description-too-long"]);
  });

  test("once dropped, nothing keeps a skill's object or strings: the scanner's cache holds none of them", () => {
    const count = 2000;
    const dir = tempDir("skillhub-table-cells-");
    for (let i = 0; i < count; i++) writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}.` });
    const run = Bun.spawnSync([process.execPath, "-e", DROP_PROBE, dir], { stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    const { size, objects, strings, found, rescan } = JSON.parse(run.stdout.toString());
    expect(size).toBe(count);
    // Each skill's object and its strings (name, id, description, hash, file, folder, frontmatter) go:
    // with the parse cache keeping the skill, only the look-ups' few cells would.
    expect(objects / count).toBeGreaterThan(0.9);
    expect(strings / count).toBeGreaterThan(4.5);
    expect(found).toBe("Skill number 1234.");
    // The scanner, alive all along, still has every parse: a rescan builds nothing new.
    expect(rescan).toBe(true);
  });
});

/**
 * Run in a process of its own: in the test runner's, what earlier tests left on the stack (the collector
 * scans it conservatively) now and then kept the dropped objects alive.
 */
const DROP_PROBE = `
import { heapStats } from "bun:jsc";
import { Scanner } from ${JSON.stringify(join(import.meta.dir, "../../src/catalog/scanner.ts"))};
const census = async () => {
  await Bun.sleep(1);
  Bun.gc(true);
  const counts = heapStats().objectTypeCounts;
  return { objects: counts.Object ?? 0, strings: counts.string ?? 0 };
};
const scanner = new Scanner();
const sources = [{ label: "dir1", dir: process.argv[1], location: "explicit" }];
const limits = { maxDepth: 8, maxDirs: 10_000 };
const catalog = scanner.scan(sources, limits);
const held = await census();
catalog.dropObjects();
const dropped = await census();
console.log(JSON.stringify({
  size: catalog.size,
  objects: held.objects - dropped.objects,
  strings: held.strings - dropped.strings,
  found: catalog.get("skill-1234")?.description,
  rescan: scanner.scan(sources, limits) === catalog,
}));
`;
