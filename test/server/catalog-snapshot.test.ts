import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { readSnapshot, SNAPSHOT_VERSION, saveSnapshot, snapshotText } from "../../src/server/catalog-snapshot.ts";
import { pickedSkills } from "../../src/usage/picked.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { VERSION } from "../../src/version.ts";
import { cleanupTemp, labelOfDir, tempDir, writeSkill } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";
import { writeExampleTree } from "../helpers/tree.ts";

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
    writeExampleTree(tree);
    writeSkill(tree, "nameless", { name: null, description: "Served with a warning" });
    // Its frontmatter's aliases make a loop: the snapshot is still written (JSON.stringify threw on it).
    writeSkill(tree, "looping", { description: "An alias loop", extra: "metadata: &m\n  self: *m" });
    const { hub } = testHub({ flags: { "skills-dir": [first, second, tree] } });
    const scanned = hub.scanNow();
    const file = join(tempDir("skillhub-snap-file-"), "catalog.json");
    writeFileSync(file, snapshotText(hub));
    const logger = createMemoryLogger();
    const snapshot = readSnapshot(file, logger, hub.sources());
    // The instructions' pick, kept with what a pick at the next start needs (its id, folder, source, mtime).
    expect(snapshot?.named.map((s) => s.id)).toEqual(pickedSkills(hub, hub.usage).map((s) => s.id));
    expect(snapshot?.named[0]).toMatchObject({
      name: "invoice-parser",
      location: "explicit",
      source: labelOfDir(first),
    });
    expect(scanned.skills.some((s) => s.kind === "tree-node" && s.tree.parent !== undefined)).toBe(true);
    const restored = snapshot?.catalog();
    expect(restored?.contentHash).toBe(scanned.contentHash);
    expect(restored?.visibleHash).toBe(scanned.visibleHash);
    expect(restored?.skills).toEqual(scanned.skills);
    expect(restored?.diagnostics.filter((d) => d.code !== "shadowed")).toEqual(
      scanned.diagnostics.filter((d) => d.code !== "shadowed"),
    );
    expect(restored?.get("mixed-case")?.name).toBe("Mixed-Case");
    expect(restored?.get(`${labelOfDir(second)}:pdf-tools`)?.description).toBe("Fill PDF forms");
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
    // A header, each source's line, 600 skills in pieces of 250.
    expect(pauses).toBeGreaterThanOrEqual(1 + 2 + 3);
    const text = readFileSync(file, "utf8");
    expect(text).toBe(snapshotText(hub));
    expect(text.endsWith("\n")).toBe(true);
    // One JSON value per line: the header, then a line per source followed by a line per skill it serves.
    const [header, ...lines] = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const sourceLines = lines.flatMap((line, i) => ("source" in line ? [i] : []));
    expect(sourceLines.slice(0, 2)).toEqual([0, 601]);
    expect(lines.slice(1, 601).map((s) => s.name)).toContain("skill-599");
    expect(header.version).toBe(SNAPSHOT_VERSION);
    expect(header.skills).toBe(scanned.skills.length);
    expect(readSnapshot(file, createMemoryLogger(), hub.sources())?.catalog()?.contentHash).toBe(scanned.contentHash);
    expect(readdirSync(dirname(file))).toEqual(["catalog.json"]);
    // A file cut short (fewer skill lines than the header counts) is not used.
    const all = text.split("\n");
    writeFileSync(file, [...all.slice(0, 601), ...all.slice(602)].join("\n"));
    const logger = createMemoryLogger();
    expect(readSnapshot(file, logger, hub.sources())?.catalog()).toBeUndefined();
    expect(logger.lines.join("\n")).toContain(`${scanned.skills.length - 1} skills of the ${scanned.skills.length}`);
  });

  test("a skill line without its word lists makes the catalog unusable, and the log says which skill", () => {
    const dir = tempDir("skillhub-snap-damaged-");
    writeSkill(dir, "pdf-tools", { description: "Fill PDF forms" });
    const { hub } = testHub({ flags: { "skills-dir": [dir] } });
    hub.scanNow();
    const file = join(tempDir("skillhub-snap-damaged-file-"), "catalog.json");
    const text = snapshotText(hub);
    expect(text).toContain(`"keywords":[]`);
    writeFileSync(file, text.replace(`"keywords":[],`, ""));
    const logger = createMemoryLogger();
    expect(readSnapshot(file, logger, hub.sources())?.catalog()).toBeUndefined();
    expect(logger.lines.join("\n")).toContain("skill pdf-tools: no file, tags or keywords");
  });

  test("a missing file is no snapshot, silently; a foreign one says why at DEBUG", () => {
    const dir = tempDir("skillhub-snap-none-");
    const logger = createMemoryLogger();
    expect(readSnapshot(join(dir, "none.json"), logger, [])).toBeUndefined();
    expect(logger.lines).toEqual([]);
    const file = join(dir, "other.json");
    writeFileSync(
      file,
      `${JSON.stringify({ format: "skillhub-catalog", version: SNAPSHOT_VERSION + 1, contentHash: "x", named: [] })}\n`,
    );
    expect(readSnapshot(file, logger, [])).toBeUndefined();
    expect(logger.lines.join("\n")).toContain(
      `version ${SNAPSHOT_VERSION + 1}, this SkillHub reads version ${SNAPSHOT_VERSION}`,
    );
    // Another SkillHub's parser may differ: its skills are not taken as parses, nor listed.
    const older = {
      format: "skillhub-catalog",
      version: SNAPSHOT_VERSION,
      skillhub: "0.0.1",
      contentHash: "x",
      named: [],
    };
    writeFileSync(file, `${JSON.stringify(older)}\n`);
    expect(readSnapshot(file, logger, [])).toBeUndefined();
    expect(logger.lines.join("\n")).toContain(`written by SkillHub 0.0.1, this is ${VERSION}`);
  });

  test("only the skills of the sources served now are listed or named: a source the snapshot holds and this start does not serve gives none", () => {
    const kept = tempDir("skillhub-snap-kept-");
    const gone = tempDir("skillhub-snap-gone-");
    writeSkill(kept, "invoice-parser", { description: "Parse invoices into totals" });
    writeSkill(gone, "pdf-tools", { description: "Fill PDF forms" });
    const { hub } = testHub({ flags: { "skills-dir": [kept, gone] } });
    const scanned = hub.scanNow();
    const file = join(tempDir("skillhub-snap-file-"), "catalog.json");
    writeFileSync(file, snapshotText(hub));
    const [first, second] = hub.sources();
    if (!first || !second) throw new Error("two sources expected");
    const snapshot = readSnapshot(file, createMemoryLogger(), [first]);
    expect(snapshot?.named.map((s) => s.name)).toEqual(["invoice-parser"]);
    const catalog = snapshot?.catalog();
    expect(catalog?.skills.map((s) => s.name)).toEqual(["invoice-parser"]);
    expect(catalog?.get("pdf-tools")).toBeUndefined();
    // The same folder under another label or location is another source.
    const moved = readSnapshot(file, createMemoryLogger(), [{ ...second, location: "project" }]);
    expect(moved?.named).toEqual([]);
    expect(moved?.catalog()?.skills).toEqual([]);
    expect(readSnapshot(file, createMemoryLogger(), hub.sources())?.catalog()?.skills).toEqual(scanned.skills);
  });

  test("a snapshot this user did not write privately is not read: shared-writable, another user's, a link, a FIFO", async () => {
    const dir = tempDir("skillhub-snap-own-");
    writeSkill(dir, "pdf-tools", { description: "Fill PDF forms" });
    const { hub } = testHub({ flags: { "skills-dir": [dir] } });
    hub.scanNow();
    const folder = tempDir("skillhub-snap-shared-");
    const file = join(folder, "catalog.json");
    await saveSnapshot(hub, file, async () => {});
    // Saved private, whatever the umask.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readSnapshot(file, createMemoryLogger(), hub.sources())?.named.map((s) => s.name)).toEqual(["pdf-tools"]);
    const refused = (why: string) => {
      const logger = createMemoryLogger();
      expect(readSnapshot(file, logger, hub.sources())).toBeUndefined();
      expect(logger.lines.join("\n")).toContain(why);
    };
    chmodSync(file, 0o666);
    refused("writable by other users (mode 666)");
    chmodSync(file, 0o620);
    refused("writable by other users (mode 620)");
    chmodSync(file, 0o600);
    if (process.getuid?.() === 0) {
      chownSync(file, 65534, 65534);
      refused("owned by user 65534, not this one (0)");
      chownSync(file, 0, 0);
    }
    const real = join(folder, "real.json");
    renameSync(file, real);
    symlinkSync(real, file);
    refused("catalog snapshot ignored");
    rmSync(file);
    // A FIFO is refused at once: opening it to read would wait for a writer, before initialize is answered.
    expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
    refused("not a regular file");
  });
});
