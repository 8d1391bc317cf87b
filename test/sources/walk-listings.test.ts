import { afterAll, describe, expect, test } from "bun:test";
import * as nodeFs from "node:fs";
import { join } from "node:path";
import { FolderListings } from "../../src/sources/walk-listings.ts";
import type { WalkResult } from "../../src/sources/walk-types.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const walkResult = () => ({ reread: 0, diagnostics: [] }) as unknown as WalkResult;

/** The real file system, counting the folders it stats. */
function countingFs(): { fs: typeof nodeFs; stats: string[] } {
  const stats: string[] = [];
  const fs = {
    ...nodeFs,
    statSync: (path: string) => {
      stats.push(path);
      return nodeFs.statSync(path);
    },
  } as typeof nodeFs;
  return { fs, stats };
}

/** A source holding one skill folder, `pdf` (SKILL.md alone), with fresh listings over the real file system. */
function pdfFolder(prefix: string) {
  const root = tempDir(prefix);
  writeSkill(root, "pdf", { description: "PDF tools." });
  return { dir: join(root, "pdf"), listings: new FolderListings(nodeFs), result: walkResult() };
}

describe("folder listings", () => {
  test("a skill folder that gains a subfolder stops being a leaf, even when listed twice in one pass", () => {
    const { dir, listings, result } = pdfFolder("skillhub-listings-");
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

  test("a SKILL.md-only folder kept at rest is found again, whatever the order the pass listed it in", () => {
    const root = tempDir("skillhub-listings-kept-");
    // A walk lists "a/x" before "a-b" and "a b" (children after their folder); code-unit order differs.
    const names = ["a/x", "a/y", "a-b", "a b", "é", "z/deep/er"];
    for (const name of names) writeSkill(root, name, { description: "A skill." });
    const dirs = names.map((name) => join(root, name));
    const { fs, stats } = countingFs();
    const listings = new FolderListings(fs);
    const result = walkResult();
    for (const dir of dirs) expect(listings.list(dir, result, false)).toMatchObject({ leafSkill: true });
    listings.endRescan();
    stats.length = 0;
    // A quick pass trusts each kept leaf without a stat, in any order.
    for (const dir of [...dirs].reverse())
      expect([...(listings.list(dir, result, true)?.entries ?? [])]).toEqual([{ name: "SKILL.md", kind: "file" }]);
    expect(stats).toEqual([]);
    listings.endRescan();
    // A full pass stats each and keeps its listing (mtime unchanged): nothing is read again.
    for (const dir of dirs) expect(listings.list(dir, result, false)?.mtimeMs).toBe(nodeFs.statSync(dir).mtimeMs);
    expect(stats).toEqual(dirs);
    expect(result.reread).toBe(names.length);
    // A folder the last pass did not list (a prefix of a kept one, or past the last) is read.
    listings.endRescan();
    expect(listings.list(join(root, "a"), result, true)).toMatchObject({ hasSkill: false });
    expect(listings.list(join(root, "é", "sub"), result, true)).toBeUndefined();
    expect(result.reread).toBe(names.length + 1);
  });

  test("a kept leaf that grows a subfolder, listed twice in the next pass, keeps its newest listing", () => {
    const { dir, listings, result } = pdfFolder("skillhub-listings-twice-");
    listings.list(dir, result, false);
    listings.endRescan();
    nodeFs.mkdirSync(join(dir, "scripts"));
    nodeFs.utimesSync(dir, new Date(), new Date(Date.now() + 5_000));
    expect(listings.list(dir, result, false)).toMatchObject({ leafSkill: false });
    // Listed again in the same pass (nested sources), quickly: not the last pass's leaf.
    expect(listings.list(dir, result, true)).toMatchObject({ leafSkill: false });
    listings.endRescan();
    expect(listings.list(dir, result, true)).toMatchObject({ leafSkill: false });
    // It loses the subfolder: a leaf again, kept packed.
    nodeFs.rmdirSync(join(dir, "scripts"));
    nodeFs.utimesSync(dir, new Date(), new Date(Date.now() + 10_000));
    expect(listings.list(dir, result, false)).toMatchObject({ leafSkill: true });
    listings.endRescan();
    expect(listings.list(dir, result, true)).toMatchObject({ leafSkill: true });
    expect(result.reread).toBe(3);
  });
});
