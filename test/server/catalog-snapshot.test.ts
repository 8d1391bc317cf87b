import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSnapshot, SNAPSHOT_VERSION, snapshotText } from "../../src/server/catalog-snapshot.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { cleanupTemp, tempDir, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";
import { writeSeedTree } from "../helpers/tree.ts";

afterAll(cleanupTemp);

describe("catalog snapshot file", () => {
  test("round trip: the same listing, the same hashes, lookups by name and qualified name", () => {
    const first = tempDir("skillhub-snap-a-");
    const second = tempDir("skillhub-snap-b-");
    writeSkill(first, "invoice-parser", {
      description: "Parse invoices into totals",
      extra: "metadata:\n  skillhub:\n    alwaysApply: true",
    });
    writeSkill(first, "Mixed-Case", { description: "A name with capitals" });
    writeSkill(second, "invoice-parser", { description: "Shadowed by the first folder" });
    writeSkill(second, "pdf-tools", { description: "Fill PDF forms" });
    const tree = tempDir("skillhub-snap-tree-");
    writeSeedTree(tree);
    const { hub } = testHub({ flags: { "skills-dir": [first, second, tree] } });
    const scanned = hub.scanNow();
    const file = join(tempDir("skillhub-snap-file-"), "catalog.json");
    writeFileSync(file, snapshotText(hub));
    const logger = createMemoryLogger();
    const snapshot = readSnapshot(file, logger);
    expect(snapshot?.named.slice(0, 3).map((s) => s.name)).toEqual(["invoice-parser", "Mixed-Case", "pdf-tools"]);
    expect(scanned.skills.some((s) => s.kind === "tree-node" && s.tree.parent !== undefined)).toBe(true);
    const restored = snapshot?.catalog();
    expect(restored?.contentHash).toBe(scanned.contentHash);
    expect(restored?.visibleHash).toBe(scanned.visibleHash);
    const strip = (s: object) => ({ ...s, frontmatter: undefined, headings: undefined });
    expect(restored?.skills.map(strip)).toEqual(scanned.skills.map(strip));
    expect(restored?.get("mixed-case")?.name).toBe("Mixed-Case");
    expect(restored?.get("dir2:pdf-tools")?.description).toBe("Fill PDF forms");
    expect(restored?.sources.map((s) => [s.label, s.served])).toEqual(scanned.sources.map((s) => [s.label, s.served]));
    expect(logger.lines).toEqual([]);
  });

  test("a missing file is no snapshot, silently; a foreign one says why at DEBUG", () => {
    const dir = tempDir("skillhub-snap-none-");
    const logger = createMemoryLogger();
    expect(readSnapshot(join(dir, "none.json"), logger)).toBeUndefined();
    expect(logger.lines).toEqual([]);
    const file = join(dir, "other.json");
    writeFileSync(
      file,
      `${JSON.stringify({ format: "skillhub-catalog", version: SNAPSHOT_VERSION + 1, contentHash: "x", named: [] })}\n{}\n`,
    );
    expect(readSnapshot(file, logger)).toBeUndefined();
    expect(logger.lines.join("\n")).toContain(
      `version ${SNAPSHOT_VERSION + 1}, this SkillHub reads version ${SNAPSHOT_VERSION}`,
    );
  });
});
