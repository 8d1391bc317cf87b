import { describe, expect, test } from "bun:test";
import type { Catalog } from "../../src/catalog/catalog.ts";
import { catalogFingerprint } from "../../src/search/persist.ts";

type Row = { file: string; mtimeMs: number; size: number };
const catalogOf = (rows: Row[], labels = ["skills"]) =>
  ({ skills: rows, sources: labels.map((label) => ({ label })) }) as unknown as Catalog;
const rows: Row[] = Array.from({ length: 50 }, (_, i) => ({
  file: `/skills/skill-${i}/SKILL.md`,
  mtimeMs: 1_764_200_000_000.123 + i,
  size: 1000 + i,
}));

describe("catalogFingerprint (the saved index's check against the catalog)", () => {
  test("depends on the set of files, not their order", () => {
    const shuffled = [...rows].reverse();
    expect(catalogFingerprint(catalogOf(shuffled), "")).toBe(catalogFingerprint(catalogOf(rows), ""));
  });

  test("changes with any file's path, mtime (to the sub-millisecond) or size, with a file added or removed, and with the settings", () => {
    const base = catalogFingerprint(catalogOf(rows), "");
    const changed = (i: number, change: Partial<Row>) =>
      catalogFingerprint(catalogOf(rows.map((r, j) => (j === i ? { ...r, ...change } : r))), "");
    const seen = new Set([
      base,
      changed(7, { file: "/skills/skill-7b/SKILL.md" }),
      changed(7, { mtimeMs: (rows[7] as Row).mtimeMs + 0.001 }),
      changed(7, { size: 1008 }),
      changed(7, { size: 2 ** 40 }),
      catalogFingerprint(catalogOf(rows.slice(1)), ""),
      catalogFingerprint(catalogOf([...rows, { file: "/skills/new/SKILL.md", mtimeMs: 1, size: 1 }]), ""),
      catalogFingerprint(catalogOf(rows), "embeddings: local"),
      catalogFingerprint(catalogOf([]), ""),
      // The same files under another label: every skill's id changed.
      catalogFingerprint(catalogOf(rows, ["work-skills"]), ""),
    ]);
    expect(seen.size).toBe(10);
  });

  test("two files trading their mtimes is a change", () => {
    const swapped = rows.map((r, j) =>
      j === 3 ? { ...r, mtimeMs: (rows[4] as Row).mtimeMs } : j === 4 ? { ...r, mtimeMs: (rows[3] as Row).mtimeMs } : r,
    );
    expect(catalogFingerprint(catalogOf(swapped), "")).not.toBe(catalogFingerprint(catalogOf(rows), ""));
  });
});
