import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Scanner } from "../../src/catalog/scanner.ts";
import { readSnapshot, snapshotText } from "../../src/server/catalog-snapshot.ts";
import { frontmatterOf } from "../../src/skills/frontmatter.ts";
import type { Skill } from "../../src/skills/skill.ts";
import type { Source } from "../../src/sources/source-list.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 10_000 };

describe("a start with the last run's snapshot reads only the SKILL.md files changed since", () => {
  test("unchanged files are not read; the catalog and its diagnostics are what a fresh scan gives", () => {
    const dir = tempDir("skillhub-seed-");
    for (let i = 0; i < 6; i++)
      writeSkill(dir, `skill-${i}`, {
        description: `Skill number ${i}.`,
        extra: `metadata:\n  skillhub:\n    tags: [t${i}]\nallowed-tools: Read`,
      });
    // Served with a warning (kept in the snapshot beside the skill), and two files that are not served.
    writeSkill(dir, "nameless", { name: null, description: "No name in the frontmatter." });
    write(join(dir, "no-frontmatter", "SKILL.md"), "# Just a heading\n");
    write(join(dir, "bad-yaml", "SKILL.md"), "---\nname: bad-yaml\ndescription: [unclosed\n---\nbody\n");
    const { hub } = testHub({ flags: { "skills-dir": [dir] } });
    const first = hub.scanNow();
    expect(first.diagnostics.map((d) => d.code).sort()).toEqual(["missing-name", "no-frontmatter", "yaml-error"]);
    const file = join(tempDir("skillhub-seed-file-"), "catalog.json");
    writeFileSync(file, snapshotText(hub));
    const snapshot = readSnapshot(file, createMemoryLogger(), hub.sources())?.catalog();
    if (!snapshot) throw new Error("no snapshot catalog");
    expect(snapshot.skills).toEqual(first.skills);

    // Between the runs: one skill edited (new size), one rewritten with the same size but a new mtime.
    const edited = writeSkill(dir, "skill-2", { description: "Edited between the runs, now longer." });
    const touched = join(dir, "skill-4", "SKILL.md");
    writeFileSync(touched, readFileSync(touched, "utf8").replace("number 4", "number 9"));
    utimesSync(touched, new Date(), new Date(Date.now() + 5_000));

    const reads: string[] = [];
    const scanner = new Scanner(undefined, (f) => {
      reads.push(f);
      return readFileSync(f, "utf8");
    });
    expect(scanner.seed(snapshot)).toBe(7);
    const next = scanner.scan(hub.sources(), limits);
    expect(reads.sort()).toEqual(
      [edited, touched, join(dir, "no-frontmatter", "SKILL.md"), join(dir, "bad-yaml", "SKILL.md")].sort(),
    );
    const fresh = new Scanner().scan(hub.sources(), limits);
    expect(next.skills).toEqual(fresh.skills);
    expect(next.diagnostics).toEqual(fresh.diagnostics);
    expect(next.contentHash).toBe(fresh.contentHash);
    expect(next.get("skill-2")?.description).toBe("Edited between the runs, now longer.");
    expect(next.get("skill-4")?.description).toBe("Skill number 9.");
    expect(frontmatterOf(next.get("skill-5") as Skill)).toEqual({
      name: "skill-5",
      description: "Skill number 5.",
      metadata: { skillhub: { tags: ["t5"] } },
      "allowed-tools": "Read",
    });
    // Only before the first scan: a scanner that has a catalog keeps its own parses.
    expect(scanner.seed(snapshot)).toBe(0);
  });

  test("a SKILL.md put in another's place with the same size and mtime is read again", () => {
    const dir = tempDir("skillhub-seed-swap-");
    const file = writeSkill(dir, "alpha", { description: "Release 1.0.1." });
    // Unpacked from reproducible archives: every file carries the same mtime.
    const sameTime = 1_700_000_000;
    utimesSync(file, sameTime, sameTime);
    const own = [{ label: "dir1", dir, location: "explicit" as const }];
    const scanner = new Scanner();
    expect(scanner.scan(own, limits).get("alpha")?.description).toBe("Release 1.0.1.");
    const next = `${file}.next`;
    writeFileSync(next, readFileSync(file, "utf8").replace("1.0.1", "1.0.2"));
    utimesSync(next, sameTime, sameTime);
    renameSync(next, file);
    expect(scanner.scan(own, limits).get("alpha")?.description).toBe("Release 1.0.2.");
    // Seeded from a catalog saved before the change: read again too.
    writeFileSync(next, readFileSync(file, "utf8").replace("1.0.2", "1.0.3"));
    utimesSync(next, sameTime, sameTime);
    const saved = scanner.scan(own, limits);
    renameSync(next, file);
    const seeded = new Scanner();
    seeded.seed(saved);
    expect(seeded.scan(own, limits).get("alpha")?.description).toBe("Release 1.0.3.");
  });

  test("a file's diagnostics are seeded once, without the catalog's own notes (one folder listed twice)", () => {
    const dir = tempDir("skillhub-seed-twice-");
    // Served with a parse warning (no name: the folder's is used), which each source's scan reports.
    writeSkill(dir, "alpha", { name: null, description: "Alpha." });
    // The same folder as two sources (nested or repeated --skills-dir): one file, served once, shadowed once.
    const twice = [
      { label: "dir1", dir, location: "explicit" as const },
      { label: "team", dir, location: "explicit" as const },
    ];
    const first = new Scanner().scan(twice, limits);
    expect(first.diagnostics.map((d) => `${d.code} ${d.source}`)).toEqual([
      "missing-name dir1",
      "missing-name team",
      "shadowed team",
    ]);
    const scanner = new Scanner();
    expect(scanner.seed(first)).toBe(1);
    const next = scanner.scan(twice, limits);
    expect(next.diagnostics).toEqual(first.diagnostics);
    expect(next.diagnostics).toEqual(new Scanner().scan(twice, limits).diagnostics);
  });

  test("a seeded skill is served as the same object while its source is the one it was made for", () => {
    const dir = tempDir("skillhub-seed-same-");
    writeSkill(dir, "alpha", { description: "Alpha." });
    writeSkill(dir, "beta", { description: "Beta." });
    const own = [{ label: "dir1", dir, location: "explicit" as const }];
    const first = new Scanner().scan(own, limits);
    const scanner = new Scanner();
    expect(scanner.seed(first)).toBe(2);
    expect(scanner.scan(own, limits).get("alpha")).toBe(first.get("alpha") as Skill);

    // The same folder under another label, then with a qualifier: new skills, with their source's ids.
    const team = [{ label: "team", dir, location: "explicit" as const }];
    const relabelled = scanner.scan(team, limits).get("alpha");
    expect(relabelled).not.toBe(first.get("alpha") as Skill);
    expect(relabelled?.id).toBe("team:alpha");
    const qualified = scanner.scan([{ ...team[0], qualifier: "acme" }] as Source[], limits).get("alpha");
    expect(qualified?.id).toBe("acme:alpha");
    // Another location or folder for the same label: new skills too.
    const global = scanner.scan([{ ...own[0], location: "global" }] as Source[], limits).get("alpha");
    expect(global).not.toBe(first.get("alpha") as Skill);
    expect(global?.location).toBe("global");
    // A walk after a change elsewhere keeps the unchanged skill's object.
    writeSkill(dir, "gamma", { description: "Gamma." });
    const again = scanner.scan([{ ...own[0], location: "global" }] as Source[], limits);
    expect(again.get("gamma")?.id).toBe("dir1:gamma");
    expect(again.get("alpha")).toBe(global as Skill);
  });
});
