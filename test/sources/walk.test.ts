import { afterAll, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { join } from "node:path";
import { Walker } from "../../src/sources/walk.ts";
import { WalkRecord } from "../../src/sources/walk-record.ts";
import { cleanupTemp, laterMtime, tempDir, write, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const limits = { maxDepth: 8, maxDirs: 20_000 };
const rels = (root: string) => new Walker().walk(root, limits).skills.map((s) => s.rel);

describe("Walker", () => {
  test("finds skills at any depth, in hidden folders, and nested inside other skills", () => {
    const root = tempDir();
    writeSkill(root, "a");
    writeSkill(root, ".curated/b");
    writeSkill(root, ".system/deep/c");
    writeSkill(root, "a/nested");
    write(join(root, "a", "references", "notes.md"), "# not a skill");
    expect(rels(root).sort()).toEqual([
      ".curated/b/SKILL.md",
      ".system/deep/c/SKILL.md",
      "a/SKILL.md",
      "a/nested/SKILL.md",
    ]);
  });

  test("skips .git, node_modules, __pycache__ and .venv", () => {
    const root = tempDir();
    for (const skip of [".git", "node_modules", "__pycache__", ".venv"]) writeSkill(root, `${skip}/x`);
    writeSkill(root, "kept");
    expect(rels(root)).toEqual(["kept/SKILL.md"]);
  });

  test("follows symlinked folders and stops at loops", () => {
    const root = tempDir();
    const elsewhere = tempDir();
    writeSkill(elsewhere, "linked");
    symlinkSync(join(elsewhere, "linked"), join(root, "linked"));
    mkdirSync(join(root, "loop"));
    symlinkSync(root, join(root, "loop", "back"));
    const result = new Walker().walk(root, limits);
    expect(result.skills.map((s) => s.rel)).toEqual(["linked/SKILL.md"]);
    expect(result.diagnostics.map((d) => d.code)).toContain("symlink-loop");
  });

  test("stops at the depth limit and at the folder limit, with warnings", () => {
    const root = tempDir();
    writeSkill(root, "1/2/3/deep");
    writeSkill(root, "shallow");
    const deep = new Walker().walk(root, { maxDepth: 2, maxDirs: 100 });
    expect(deep.skills.map((s) => s.rel)).toEqual(["shallow/SKILL.md"]);
    expect(deep.diagnostics.map((d) => d.code)).toEqual(["depth-limit"]);
    const few = new Walker().walk(root, { maxDepth: 8, maxDirs: 3 });
    expect(few.dirCount).toBe(3);
    expect(few.diagnostics.map((d) => d.code)).toEqual(["dir-limit"]);
  });

  test("a missing root is no error", () => {
    const result = new Walker().walk("/nonexistent/skills", limits);
    expect(result).toMatchObject({ exists: false, skills: [], diagnostics: [] });
  });

  test("collects loose Markdown outside skill folders and the root config.yaml", () => {
    const root = tempDir();
    write(join(root, "_root.md"), "---\nkeywords: [a]\n---\n");
    write(join(root, "ui", "_index.md"), "x");
    write(join(root, "config.yaml"), "matching: {}");
    writeSkill(root, "skill");
    write(join(root, "skill", "guide.md"), "part of the skill");
    const result = new Walker().walk(root, limits);
    expect(result.markdown.map((m) => m.rel).sort()).toEqual(["_root.md", "ui/_index.md"]);
    expect(result.configFile).toBe(join(root, "config.yaml"));
  });

  test("a rescan reuses unchanged folder listings but sees new folders and edited files", () => {
    const root = tempDir();
    writeSkill(root, "a");
    let readdirs = 0;
    const fs = require("node:fs");
    const walker = new Walker({ ...fs, readdirSync: (...args: unknown[]) => (readdirs++, fs.readdirSync(...args)) });
    walker.walk(root, limits);
    walker.endRescan();
    const before = readdirs;
    walker.walk(root, limits);
    walker.endRescan();
    expect(readdirs).toBe(before);
    writeSkill(root, "b");
    const again = walker.walk(root, limits);
    expect(again.skills.map((s) => s.rel)).toEqual(["a/SKILL.md", "b/SKILL.md"]);
  });
});

describe("Walker: links", () => {
  test("outside skills a link may point anywhere (installed skills); inside a skill only within that skill", () => {
    const root = tempDir();
    const elsewhere = tempDir();
    writeSkill(elsewhere, "installed");
    writeSkill(elsewhere, "installed/nested");
    symlinkSync(join(elsewhere, "installed"), join(root, "installed"));
    writeSkill(root, "aaa");
    const outside = tempDir();
    writeSkill(outside, "stranger");
    symlinkSync(outside, join(root, "aaa", "escape"));
    symlinkSync("/", join(root, "aaa", "rootlink"));
    writeSkill(root, "zzz");
    symlinkSync(join(root, "zzz"), join(root, "aaa", "sibling-link"));
    writeSkill(root, "aaa/own/nested");
    symlinkSync(join(root, "aaa", "own"), join(root, "aaa", "own-link"));
    writeSkill(elsewhere, "category/linked-in");
    mkdirSync(join(root, "team"));
    symlinkSync(join(elsewhere, "category", "linked-in"), join(root, "team", "linked-in"));
    const result = new Walker().walk(root, limits);
    expect(result.skills.map((s) => s.rel).sort()).toEqual([
      "aaa/SKILL.md",
      "aaa/own/nested/SKILL.md",
      "installed/SKILL.md",
      "installed/nested/SKILL.md",
      "team/linked-in/SKILL.md",
      "zzz/SKILL.md",
    ]);
    expect(
      result.diagnostics
        .filter((d) => d.code === "symlink-outside")
        .map((d) => d.file.split("/").pop())
        .sort(),
    ).toEqual(["escape", "rootlink", "sibling-link"]);
    expect(result.dirCount).toBeLessThan(10);
  });
});

describe("WalkRecord.verify (the stat check)", () => {
  const fs = { statSync, realpathSync };
  const verdict = (r: WalkRecord) => {
    const steps = r.verify(fs);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  };

  function tree() {
    const root = tempDir("skillhub-record-");
    const elsewhere = tempDir("skillhub-record-elsewhere-");
    for (const name of ["alpha", "group/beta", "gamma", "delta", "epsilon"]) writeSkill(root, name);
    write(join(root, "tree", "node.md"), "# node\n");
    writeSkill(elsewhere, "linked");
    symlinkSync(join(elsewhere, "linked"), join(root, "linked"));
    symlinkSync(join(root, "gone"), join(root, "dangling"));
    const record = new Walker().walk(root, limits).record;
    record.structure.add(join(root, "missing-source"), undefined);
    return { root, record };
  }

  test("an unchanged tree verifies; an edited file, a new folder inside a skill and a tree node's edit do not", () => {
    const unchanged = tree();
    expect(unchanged.record.links.length).toBe(2);
    expect(verdict(unchanged.record)).toBe(true);
    const edited = tree();
    appendFileSync(join(edited.root, "gamma", "SKILL.md"), "\nedited\n");
    expect(verdict(edited.record)).toBe(false);
    const grown = tree();
    mkdirSync(join(grown.root, "group", "beta", "scripts"));
    laterMtime(join(grown.root, "group", "beta"));
    expect(verdict(grown.record)).toBe(false);
    const node = tree();
    appendFileSync(join(node.root, "tree", "node.md"), "more\n");
    expect(verdict(node.record)).toBe(false);
  });

  test("a link retargeted, a missing source folder created, a skill folder removed", () => {
    const first = tree();
    rmSync(join(first.root, "linked"));
    symlinkSync(join(first.root, "alpha"), join(first.root, "linked"));
    expect(verdict(first.record)).toBe(false);
    const second = tree();
    mkdirSync(join(second.root, "missing-source"));
    expect(verdict(second.record)).toBe(false);
    const third = tree();
    rmSync(join(third.root, "delta"), { recursive: true });
    expect(verdict(third.record)).toBe(false);
  });

  test("a source folder put in another's place with the same mtime is a change, and is listed afresh", () => {
    const walker = new Walker();
    const root = join(tempDir("skillhub-record-swap-"), "skills");
    writeSkill(root, "beta");
    // As `touch -r`, tar, or two folders made in the same clock tick leave them: the same mtime.
    const sameTime = 1_700_000_000;
    utimesSync(root, sameTime, sameTime);
    const record = walker.walk(root, limits).record;
    const replacement = join(tempDir("skillhub-record-swap-new-"), "skills");
    writeSkill(replacement, "omega");
    utimesSync(replacement, sameTime, sameTime);
    renameSync(root, `${root}.old`);
    renameSync(replacement, root);
    expect(statSync(root).mtimeMs).toBe(sameTime * 1000);
    expect(verdict(record)).toBe(false);
    expect(walker.walk(root, limits).skills.map((s) => s.rel)).toEqual(["omega/SKILL.md"]);
  });

  test("an empty record verifies; a missing folder must stay missing", () => {
    expect(verdict(new WalkRecord())).toBe(true);
    const record = new WalkRecord();
    record.structure.add("/nowhere/a", undefined);
    expect(verdict(record)).toBe(true);
    record.files.add("/elsewhere/b.md", { mtimeMs: 1, ctimeMs: 1, ino: 1 }, 2);
    expect(verdict(record)).toBe(false);
  });
});
