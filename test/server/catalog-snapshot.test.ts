import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readSnapshot, SNAPSHOT_VERSION, saveSnapshot, snapshotText } from "../../src/server/catalog-snapshot.ts";
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
    const strip = (s: object) => ({ ...s, frontmatter: undefined });
    expect(restored?.skills.map(strip)).toEqual(scanned.skills.map(strip));
    expect(restored?.get("mixed-case")?.name).toBe("Mixed-Case");
    expect(restored?.get("dir2:pdf-tools")?.description).toBe("Fill PDF forms");
    expect(restored?.sources.map((s) => [s.label, s.served])).toEqual(scanned.sources.map((s) => [s.label, s.served]));
    expect(logger.lines).toEqual([]);
  });

  test("saved in pieces with pauses between them (10,000 skills at once held the event loop 40 ms), as JSON.stringify writes it", async () => {
    const dir = tempDir("skillhub-snap-many-");
    for (let i = 0; i < 600; i++) writeSkill(dir, `skill-${i}`, { description: `Skill number ${i}` });
    const { hub } = testHub({ flags: { "skills-dir": [dir, tempDir("skillhub-snap-none-")] } });
    const scanned = hub.scanNow();
    const file = join(tempDir("skillhub-snap-file-"), "catalog.json");
    let pauses = 0;
    await saveSnapshot(hub, file, async () => void pauses++);
    // A header, the body's opening, two sources' openings and ends, 600 skills in pieces of 250, the end.
    expect(pauses).toBeGreaterThanOrEqual(3 + 2 * 2);
    const text = readFileSync(file, "utf8");
    expect(text).toBe(snapshotText(hub));
    const [header, body] = text.split("\n");
    expect(body).toBe(JSON.stringify(JSON.parse(body as string)));
    expect(
      JSON.parse(body as string)
        .scans.map((s: { skills: unknown[] }) => s.skills.length)
        .slice(0, 2),
    ).toEqual([600, 0]);
    expect(JSON.parse(header as string).version).toBe(SNAPSHOT_VERSION);
    expect(readSnapshot(file, createMemoryLogger())?.catalog()?.contentHash).toBe(scanned.contentHash);
    expect(readdirSync(dirname(file))).toEqual(["catalog.json"]);
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
