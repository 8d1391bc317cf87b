import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Walker } from "../../src/sources/walk.ts";
import { type VerifyPlan, verifyPacked, WalkRecord } from "../../src/sources/walk-record.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";

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

describe("WalkRecord.pack and verifyPacked (what the watch worker checks)", () => {
  const fs = { statSync, realpathSync };
  const all: VerifyPlan = { skillDirs: "all", files: "all", slices: 1, phase: 0 };
  const slice = (phase: number): VerifyPlan => ({ skillDirs: "slice", files: "slice", slices: 3, phase });
  const verdict = (r: WalkRecord, plan: VerifyPlan) => {
    const steps = r.verify(fs, plan);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  };

  function tree() {
    const root = tempDir("skillhub-pack-");
    const elsewhere = tempDir("skillhub-pack-elsewhere-");
    for (const name of ["alpha", "group/beta", "gamma", "delta", "epsilon"]) writeSkill(root, name);
    write(join(root, "tree", "node.md"), "# node\n");
    writeSkill(elsewhere, "linked");
    symlinkSync(join(elsewhere, "linked"), join(root, "linked"));
    symlinkSync(join(root, "gone"), join(root, "dangling"));
    const record = new Walker().walk(root, limits).record;
    record.structure.add(join(root, "missing-source"), Number.NaN);
    return { root, record, packed: structuredClone(record.pack()) };
  }

  test("keeps the walk's root once, and agrees with verify on an unchanged tree, for every plan", () => {
    const { root, record, packed } = tree();
    expect(packed.prefix).toBe(root);
    expect(packed.lists[2].paths).not.toContain(root);
    expect(record.links.length).toBe(2);
    for (const plan of [all, slice(0), slice(1), slice(2)]) {
      expect(verdict(record, plan)).toBe(true);
      expect(verifyPacked(fs, packed, plan)).toBe(true);
    }
  });

  test("an edited file is found by the slice that holds it, and only by that one, as verify finds it", () => {
    const { root, record, packed } = tree();
    const file = join(root, "gamma", "SKILL.md");
    appendFileSync(file, "\nedited\n");
    const at = record.files.paths.indexOf(file);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(verifyPacked(fs, packed, all)).toBe(false);
    for (const phase of [0, 1, 2]) {
      expect(verifyPacked(fs, packed, slice(phase))).toBe(phase !== at % 3);
      expect(verdict(record, slice(phase))).toBe(phase !== at % 3);
    }
  });

  test("a link retargeted, a missing source folder created, a skill folder removed", () => {
    const first = tree();
    rmSync(join(first.root, "linked"));
    symlinkSync(join(first.root, "alpha"), join(first.root, "linked"));
    expect(verifyPacked(fs, first.packed, slice(0))).toBe(false);
    const second = tree();
    mkdirSync(join(second.root, "missing-source"));
    expect(verifyPacked(fs, second.packed, slice(1))).toBe(false);
    const third = tree();
    rmSync(join(third.root, "delta"), { recursive: true });
    expect(verifyPacked(fs, third.packed, all)).toBe(false);
  });

  test("paths outside the root are kept whole; an empty record verifies", () => {
    const record = new WalkRecord();
    record.structure.add("/nowhere/a", Number.NaN);
    record.files.add("/elsewhere/b.md", 1, 2);
    const packed = record.pack();
    expect(packed.prefix).toBe("");
    expect(packed.lists[2].paths).toBe("/elsewhere/b.md");
    expect(verifyPacked(fs, packed, all)).toBe(false);
    expect(verifyPacked(fs, new WalkRecord().pack(), all)).toBe(true);
  });
});
