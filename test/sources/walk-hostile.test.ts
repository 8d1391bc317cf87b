import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, realpathSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Walker, type WalkFs } from "../../src/sources/walk.ts";
import { inSystemFolder } from "../../src/sources/walk-paths.ts";
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

/** A decoy of the machine's other skills: folders outside the project, each with a SKILL.md. */
function decoy(count = 5) {
  const outside = tempDir("skillhub-decoy-");
  for (let i = 0; i < count; i++) writeSkill(outside, `machine-${i}`);
  write(join(outside, "node.md"), "---\nkeywords: [x]\ndescription: outside node\n---\nbody\n");
  return outside;
}

describe("Walker: a project's folders are confined to the project (within)", () => {
  test("a link out of the project is not followed, with a diagnostic naming it; one inside is", () => {
    const outside = decoy();
    const project = tempDir("skillhub-cloned-");
    const source = join(project, ".agents", "skills");
    writeSkill(source, "own");
    writeSkill(project, "docs/kept");
    symlinkSync(outside, join(source, "root"));
    symlinkSync(join(outside, "node.md"), join(source, "linked.md"));
    symlinkSync(join(project, "docs"), join(source, "docs"));
    const confined = new Walker().walk(source, { ...limits, within: project });
    expect(confined.skills.map((s) => s.rel).sort()).toEqual(["docs/kept/SKILL.md", "own/SKILL.md"]);
    expect(confined.markdown).toEqual([]);
    const refused = confined.diagnostics.filter((d) => d.code === "symlink-outside");
    expect(refused.map((d) => d.file).sort()).toEqual([join(source, "linked.md"), join(source, "root")].sort());
    expect(refused[0]?.message).toContain(`outside the project ${realpathSync(project)}`);
    // The watch is never set on what the link leads to.
    expect(confined.record.linkedFolders).toEqual([realpathSync(join(project, "docs"))]);
    // The user's own folder with the same link: followed, as installers need.
    const own = new Walker().walk(source, limits);
    expect(own.skills.map((s) => s.rel)).toContain("root/machine-0/SKILL.md");
  });

  test("a project folder that is itself a link out of the project is not walked, nor watched", () => {
    const outside = decoy();
    const project = tempDir("skillhub-cloned-");
    mkdirSync(join(project, ".agents"));
    const source = join(project, ".agents", "skills");
    symlinkSync(outside, source);
    const result = new Walker().walk(source, { ...limits, within: project });
    expect(result.skills).toEqual([]);
    expect(result.dirCount).toBe(0);
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([["symlink-outside", source]]);
    expect(result.diagnostics[0]?.message).toContain("not scanned");
    expect(result.record.rootReal).toBe("");
  });

  test("the project's folders share one folder budget: past it, each stops with a dir-limit warning", () => {
    const project = tempDir("skillhub-cloned-");
    for (let i = 0; i < 6; i++) mkdirSync(join(project, `a${i}`, "b", "c"), { recursive: true });
    const shared = { max: 10, left: 10 };
    const walker = new Walker();
    const first = walker.walk(project, { ...limits, within: project, shared });
    const second = walker.walk(join(project, "a0"), { ...limits, within: project, shared });
    expect(first.dirCount + second.dirCount).toBe(10);
    expect(second.diagnostics.some((d) => d.code === "dir-limit" && d.message.includes("together"))).toBe(true);
  });
});

describe("Walker: /proc, /sys and /dev are never walked", () => {
  /** The real file system, but `link` resolves to `real` (a system folder), listing the decoy's entries. */
  function fsWhere(link: string, real: string): WalkFs {
    return {
      statSync: (path) => statSync(path),
      readdirSync: (path, options) => readdirSync(path, options),
      realpathSync: (path) => (path === link ? real : realpathSync(path)),
    };
  }

  test("a link leading into /proc is not followed, with a system-folder diagnostic", () => {
    const outside = decoy();
    const source = tempDir("skillhub-mine-");
    writeSkill(source, "own");
    const link = join(source, "machine");
    symlinkSync(outside, link);
    const result = new Walker(fsWhere(link, "/proc/1")).walk(source, limits);
    expect(result.skills.map((s) => s.rel)).toEqual(["own/SKILL.md"]);
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([["system-folder", link]]);
    expect(result.diagnostics[0]?.message).toContain("leads to /proc/1");
  });

  test("a source folder resolving into /sys is not walked", () => {
    const outside = decoy();
    const home = tempDir("skillhub-mine-");
    const source = join(home, "skills");
    symlinkSync(outside, source);
    const result = new Walker(fsWhere(source, "/sys/kernel")).walk(source, limits);
    expect(result.skills).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["system-folder"]);
    expect(result.record.rootReal).toBe("");
  });

  test("the system folders are recognised by real path only", () => {
    expect(["/proc", "/sys/x", "/dev/shm"].map(inSystemFolder)).toEqual([true, true, true]);
    expect(["/process", "/home/u/proc", "/device"].map(inSystemFolder)).toEqual([false, false, false]);
  });
});

describe("Walker: SkillHub's repository copies are walked only as their repositories (limits.copies)", () => {
  /** A home holding SkillHub's copies (one with an added skill) and a skill of its own. */
  function homeWithCopies() {
    const home = realpathSync(tempDir("skillhub-home-"));
    const copies = join(home, ".skillhub", "repos");
    writeSkill(copies, "team-1a2b3c4d/skills/team-style");
    writeSkill(copies, "team-1a2b3c4d/evil");
    writeSkill(home, ".skillhub/skills/hub-own");
    writeSkill(home, "notes/own");
    return { home, copies, withCopies: { ...limits, copies } };
  }

  test("a folder holding the copies is walked without them, as SkillHub's own files, in silence", () => {
    const { home, withCopies } = homeWithCopies();
    const served: [string, string[]][] = [
      [home, [".skillhub/skills/hub-own/SKILL.md", "notes/own/SKILL.md"]],
      [join(home, ".skillhub"), ["skills/hub-own/SKILL.md"]],
    ];
    for (const [root, skills] of served) {
      const result = new Walker().walk(root, withCopies);
      expect(result.skills.map((s) => s.rel)).toEqual(skills);
      expect(result.diagnostics).toEqual([]);
    }
    // Without them, the same walk serves the copy's files as a plain folder's.
    expect(new Walker().walk(home, limits).skills.map((s) => s.rel)).toContain(
      ".skillhub/repos/team-1a2b3c4d/evil/SKILL.md",
    );
  });

  test("a link into the copies is not followed, and a source folder in them is not walked, each said", () => {
    const { home, copies, withCopies } = homeWithCopies();
    const mine = tempDir("skillhub-mine-");
    writeSkill(mine, "own");
    symlinkSync(join(copies, "team-1a2b3c4d"), join(mine, "team"));
    symlinkSync(home, join(mine, "home"));
    const result = new Walker().walk(mine, withCopies);
    expect(result.skills.map((s) => s.rel)).toEqual([
      "home/.skillhub/skills/hub-own/SKILL.md",
      "home/notes/own/SKILL.md",
      "own/SKILL.md",
    ]);
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([["repository-copies", join(mine, "team")]]);
    expect(result.diagnostics[0]?.message).toBe(
      `leads to ${join(copies, "team-1a2b3c4d")}, in SkillHub's repository copies (${copies}); not scanned: a copy is served only as its repository (\`skillhub add URL\`, SKILLS_REPO or git.repos), whose copy is checked first.`,
    );
    const inside = new Walker().walk(join(copies, "team-1a2b3c4d"), withCopies);
    expect(inside.skills).toEqual([]);
    expect(inside.diagnostics.map((d) => d.code)).toEqual(["repository-copies"]);
    expect(inside.record.rootReal).toBe("");
  });
});
