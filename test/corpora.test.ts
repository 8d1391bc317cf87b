import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { Scanner } from "../src/catalog/scanner.ts";
import { buildSourceList } from "../src/sources/source-list.ts";
import { corporaFor, corpusFolders } from "./helpers/corpora.ts";

const dir = corporaFor("the real SKILL.md corpora tests");

describe.skipIf(!dir)("real SKILL.md corpora", () => {
  const root = dir as string;
  const folders = dir ? corpusFolders(root) : [];
  const catalog = new Scanner().scan(
    buildSourceList({
      dirs: folders,
      onlyDirs: true,
      projectDir: null,
      homeDir: "/nonexistent",
      hubHome: "/nonexistent",
    }),
    {
      maxDepth: 8,
      maxDirs: 20_000,
    },
  );
  const files = [...new Glob("**/SKILL.md").scanSync({ cwd: root, dot: true, absolute: true })];

  test("every SKILL.md is served by name or has a diagnostic saying why not", () => {
    expect(files.length).toBeGreaterThan(1000);
    const served = new Set(catalog.skills.map((s) => s.file));
    const explained = new Set(
      catalog.diagnostics
        .filter((d) => ["shadowed", "duplicate-name"].includes(d.code) || d.severity === "error")
        .map((d) => d.file),
    );
    const lost = files.filter((f) => !served.has(f) && !explained.has(f));
    expect(lost).toEqual([]);
    for (const skill of catalog.skills) expect(catalog.get(skill.name)?.file).toBe(skill.file);
  });

  test("the corpora's oddities: hidden folders, CRLF, long descriptions, rule-breaking names", () => {
    // Each corpus folder is labelled by its own name.
    const openai = catalog.skills.filter((s) => s.source === "openai-skills");
    expect(openai.length + catalog.shadowed.filter((s) => s.skill.file.includes("openai-skills")).length).toBe(10);
    expect(catalog.get("geomaster")?.description.length).toBeGreaterThan(50);
    expect(catalog.get("geomaster")?.description).not.toContain("\r");
    const codes = (file: string) => catalog.diagnostics.filter((d) => d.file.endsWith(file)).map((d) => d.code);
    expect(codes("anthropics-skills/skills/claude-api/SKILL.md")).toContain("description-too-long");
    expect(codes("anthropics-skills/template/SKILL.md")).toContain("name-mismatch");
    expect(catalog.get("template-skill")?.dir.endsWith("anthropics-skills/template")).toBe(true);
    expect(catalog.get("Ahrefs Automation")).toBeDefined();
    expect(catalog.get("-21risk-automation")).toBeDefined();
    // Bodies with extra '---' lines keep their frontmatter intact.
    expect(catalog.skills.every((s) => s.description.length > 0 && !s.description.includes("\n---"))).toBe(true);
    expect(catalog.errorCount()).toBe(0);
  });

  test("skill-creator exists in three corpora: the first wins, the others are shadowed and reachable", () => {
    const copies = [...catalog.skills, ...catalog.shadowed.map((s) => s.skill)].filter(
      (s) => s.key === "skill-creator",
    );
    expect(copies.length).toBe(3);
    for (const copy of copies) expect(catalog.get(copy.id)?.file).toBe(copy.file);
  });
});
