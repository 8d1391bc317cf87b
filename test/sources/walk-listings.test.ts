import { afterAll, describe, expect, test } from "bun:test";
import * as nodeFs from "node:fs";
import { join } from "node:path";
import { FolderListings } from "../../src/sources/walk-listings.ts";
import type { WalkResult } from "../../src/sources/walk-types.ts";
import { cleanupTemp, laterMtime, tempDir, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

const walkResult = () => ({ reread: 0, diagnostics: [] }) as unknown as WalkResult;

describe("folder listings", () => {
  test("kept while a folder's mtime holds, read again when it moves, forgotten when a pass does not list it", () => {
    const root = tempDir("skillhub-listings-");
    writeSkill(root, "pdf", { description: "PDF tools." });
    const dir = join(root, "pdf");
    const listings = new FolderListings(nodeFs);
    const result = walkResult();
    expect(listings.list(dir, result)).toMatchObject({ hasSkill: true, entries: [{ name: "SKILL.md", kind: "file" }] });
    listings.endRescan();
    expect(listings.list(dir, result)?.hasSkill).toBe(true);
    expect(result.reread).toBe(1);
    nodeFs.mkdirSync(join(dir, "scripts"));
    laterMtime(dir);
    expect(listings.list(dir, result)?.entries).toEqual([
      { name: "SKILL.md", kind: "file" },
      { name: "scripts", kind: "dir" },
    ]);
    expect(result.reread).toBe(2);
    expect(listings.entriesAt(dir, nodeFs.statSync(dir))?.length).toBe(2);
    listings.endRescan();
    // A pass that did not list it: its listing is gone.
    listings.endRescan();
    expect(listings.entriesAt(dir, nodeFs.statSync(dir))).toBeUndefined();
  });

  test("an empty folder and a folder of special names list as they are", () => {
    const root = tempDir("skillhub-listings-names-");
    nodeFs.mkdirSync(join(root, "empty"));
    for (const name of ["a b", "é", "x.md", ".hidden"]) nodeFs.writeFileSync(join(root, name), "");
    const listings = new FolderListings(nodeFs);
    const result = walkResult();
    expect(listings.list(join(root, "empty"), result)?.entries).toEqual([]);
    expect(listings.list(root, result)?.entries).toEqual([
      { name: ".hidden", kind: "file" },
      { name: "a b", kind: "file" },
      { name: "empty", kind: "dir" },
      { name: "x.md", kind: "file" },
      { name: "é", kind: "file" },
    ]);
  });
});
