import { afterAll, describe, expect, test } from "bun:test";
import * as nodeFs from "node:fs";
import { join } from "node:path";
import { FolderListings } from "../../src/sources/walk-listings.ts";
import type { WalkResult } from "../../src/sources/walk-types.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const walkResult = () => ({ reread: 0, diagnostics: [] }) as unknown as WalkResult;

describe("folder listings", () => {
  test("a skill folder that gains a subfolder stops being a leaf, even when listed twice in one pass", () => {
    const root = tempDir("skillhub-listings-");
    writeSkill(root, "pdf", { description: "PDF tools." });
    const dir = join(root, "pdf");
    const listings = new FolderListings(nodeFs);
    const result = walkResult();
    expect(listings.list(dir, result, false)).toMatchObject({ hasSkill: true, leafSkill: true });
    nodeFs.mkdirSync(join(dir, "scripts"));
    nodeFs.utimesSync(dir, new Date(), new Date(Date.now() + 5_000));
    const grown = listings.list(dir, result, false);
    expect(grown).toMatchObject({ hasSkill: true, leafSkill: false });
    expect([...(grown?.entries ?? [])]).toEqual([
      { name: "SKILL.md", kind: "file" },
      { name: "scripts", kind: "dir" },
    ]);
    // A quick look (no stat) trusts a leaf listing: the folder's new listing must be the one kept.
    expect(listings.list(dir, result, true)).toMatchObject({ leafSkill: false });
    listings.endRescan();
    expect(listings.list(dir, result, true)).toMatchObject({ leafSkill: false });
    expect(result.reread).toBe(2);
  });

  test("an empty folder and a folder of special names list as they are", () => {
    const root = tempDir("skillhub-listings-names-");
    nodeFs.mkdirSync(join(root, "empty"));
    for (const name of ["a b", "é", "x.md", ".hidden"]) nodeFs.writeFileSync(join(root, name), "");
    const listings = new FolderListings(nodeFs);
    const result = walkResult();
    expect([...(listings.list(join(root, "empty"), result, false)?.entries ?? [])]).toEqual([]);
    expect([...(listings.list(root, result, false)?.entries ?? [])]).toEqual([
      { name: ".hidden", kind: "file" },
      { name: "a b", kind: "file" },
      { name: "empty", kind: "dir" },
      { name: "x.md", kind: "file" },
      { name: "é", kind: "file" },
    ]);
  });
});
