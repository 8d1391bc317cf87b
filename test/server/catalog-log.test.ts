import { describe, expect, test } from "bun:test";
import type { SourceStatus } from "../../src/catalog/catalog.ts";
import { noSkillsFound } from "../../src/server/catalog-log.ts";

const source = (dir: string, exists: boolean): SourceStatus => ({
  label: dir,
  dir,
  location: "project",
  exists,
  served: 0,
  shadowed: 0,
  dirCount: 0,
});

describe("the warning when no skill is found", () => {
  test("with few folders (mcp-server reads one), each is named, and a missing one said to be missing", () => {
    expect(noSkillsFound([source("/p/skills", false)])).toBe("no skills found in /p/skills (does not exist).");
    expect(noSkillsFound([source("/a", true), source("/b", false)])).toBe(
      "no skills found in /a, /b (does not exist).",
    );
  });

  test("with many, how many exist, and where to look or what to do", () => {
    const missing = ["/1", "/2", "/3", "/4", "/5", "/6", "/7"].map((d) => source(d, false));
    expect(noSkillsFound(missing)).toBe(
      "no skills found: none of the 7 folders searched exists. Put skill folders in one of them (`skillhub doctor` lists them) or pass --skills-dir DIR.",
    );
    expect(noSkillsFound([source("/0", true), ...missing])).toBe(
      "no skills found in the 1 existing folder of the 8 searched; `skillhub doctor` lists them.",
    );
  });

  test("with none configured, says so", () => {
    expect(noSkillsFound([])).toBe("no skills found: no skills folder is configured.");
  });
});
