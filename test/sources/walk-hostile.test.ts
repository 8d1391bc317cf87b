import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Walker } from "../../src/sources/walk.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 20_000 };

/** A source with a linked-in skill folder, a linked .md and a link to / — plus a skill of its own. */
function world() {
  const outside = tempDir("skillhub-operator-");
  writeSkill(outside, "private");
  write(join(outside, "node.md"), "---\nkeywords: [x]\ndescription: outside node\n---\nbody\n");
  const source = tempDir("skillhub-repo-");
  writeSkill(source, "skills/own");
  mkdirSync(join(source, "skills/inner"), { recursive: true });
  writeSkill(source, "skills/inner/target");
  symlinkSync(join(outside, "private"), join(source, "skills/more"));
  symlinkSync("/", join(source, "skills/root"));
  symlinkSync(join(outside, "node.md"), join(source, "skills/linked.md"));
  symlinkSync(join(source, "skills/inner/target"), join(source, "skills/alias"));
  return { outside, source };
}

describe("Walker: synced repositories are confined to their real path (confineLinks)", () => {
  test("links out of the repository are refused with a diagnostic; links inside it are followed", () => {
    const { source } = world();
    const result = new Walker().walk(source, { ...limits, confineLinks: true });
    const names = result.skills.map((s) => s.rel).sort();
    // The link inside the repository is followed; its target, met again by its own name, is a duplicate.
    expect(names).toEqual(["skills/alias/SKILL.md", "skills/own/SKILL.md"]);
    expect(result.markdown).toEqual([]);
    const refused = result.diagnostics.filter((d) => d.code === "symlink-outside").map((d) => d.file);
    expect(refused.sort()).toEqual(
      [join(source, "skills/linked.md"), join(source, "skills/more"), join(source, "skills/root")].sort(),
    );
  });

  test("local folders keep following links (installers link skills in), with loop detection", () => {
    const { source } = world();
    symlinkSync(source, join(source, "skills/loop"));
    const result = new Walker().walk(source, { ...limits, maxDirs: 200 });
    const rels = result.skills.map((s) => s.rel);
    expect(rels).toContain("skills/more/SKILL.md");
    expect(result.diagnostics.some((d) => d.code === "symlink-loop")).toBe(true);
    expect(realpathSync(source)).toBeTruthy();
  });

  test("FIFOs, sockets-like specials and links to devices are skipped, with a diagnostic, without blocking", () => {
    const source = tempDir("skillhub-special-");
    writeSkill(source, "fine");
    expect(Bun.spawnSync(["mkfifo", join(source, "pipe.md")]).exitCode).toBe(0);
    symlinkSync("/dev/random", join(source, "random.md"));
    symlinkSync("/dev/null", join(source, "fine/null"));
    const result = new Walker().walk(source, limits);
    expect(result.skills.map((s) => s.rel)).toEqual(["fine/SKILL.md"]);
    expect(result.markdown).toEqual([]);
    const special = result.diagnostics.filter((d) => d.code === "special-file").map((d) => d.file);
    expect(special.sort()).toEqual(
      [join(source, "fine/null"), join(source, "pipe.md"), join(source, "random.md")].sort(),
    );
  });
});
