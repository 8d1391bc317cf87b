import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { listSkillFiles, nestedSkillOf, notOfSkill } from "../../src/sources/skill-files.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("the files of a skill (one walker for the lock, verify, the tools and the extension)", () => {
  test("folders count against the cap: a skill of many empty folders is cut short, with truncated", () => {
    const root = tempDir();
    const dir = join(root, "many");
    writeSkill(root, "many");
    write(join(dir, "a.txt"), "a");
    for (let i = 0; i < 300; i++) mkdirSync(join(dir, `d${String(i).padStart(3, "0")}`, "x"), { recursive: true });
    const listed = listSkillFiles(dir, { max: 50 });
    expect(listed.truncated).toBe(true);
    expect(listed.files.map((f) => f.path)).toEqual(["a.txt"]);
  });

  test("under the cap: every file, shallow ones first, no truncated", () => {
    const root = tempDir();
    const dir = join(root, "few");
    writeSkill(root, "few");
    write(join(dir, "refs/b.md"), "b");
    write(join(dir, "a.txt"), "a");
    expect(listSkillFiles(dir, { max: 50 })).toEqual({
      files: [
        { path: "a.txt", size: 1 },
        { path: "refs/b.md", size: 1 },
      ],
      folders: ["refs"],
      truncated: false,
      links: [],
      specials: [],
      unreadable: [],
      skipped: [],
      folderLinks: [],
      unnamed: [],
    });
  });

  test("every folder counts, at any depth: tooling folders (listed last) and folders deeper than the scan goes; .git never", () => {
    const root = tempDir();
    const dir = join(root, "tooled");
    writeSkill(root, "tooled");
    write(join(dir, ".venv/lib/site.py"), "v");
    write(join(dir, "node_modules/x/index.js"), "n");
    write(join(dir, ".git/config"), "g");
    write(join(dir, "__pycache__/m.pyc"), "p");
    const deep = "a/b/c/d/e/f/g/h/i/j/k/deep.md";
    write(join(dir, deep), "d");
    write(join(dir, "z.md"), "z");
    const paths = listSkillFiles(dir).files.map((f) => f.path);
    expect(paths.slice(0, 2)).toEqual(["z.md", deep]);
    expect(paths.slice(2).sort()).toEqual([".venv/lib/site.py", "__pycache__/m.pyc", "node_modules/x/index.js"]);
    expect(notOfSkill(dir, ".git/config")).toContain("version-control metadata");
    expect(notOfSkill(dir, "node_modules/x/index.js")).toBeUndefined();
  });

  test("a nested skill's folder is its own: not listed, and nestedSkillOf names it", () => {
    const root = tempDir();
    const dir = join(root, "parent");
    writeSkill(root, "parent");
    writeSkill(dir, "child");
    write(join(dir, "child/notes.md"), "n");
    write(join(dir, "own.md"), "o");
    const listed = listSkillFiles(dir);
    expect(listed.files.map((f) => f.path)).toEqual(["own.md"]);
    expect(listed.folders).toEqual([]);
    expect(nestedSkillOf(dir, "child/notes.md")).toBe("child");
    expect(nestedSkillOf(dir, "own.md")).toBeUndefined();
  });

  test("links and special files: a link to a file inside is listed; FIFOs, devices and links out are not", () => {
    const root = tempDir();
    const dir = join(root, "linky");
    writeSkill(root, "linky");
    write(join(dir, "real.md"), "r");
    write(join(root, "outside.md"), "o");
    symlinkSync(join(dir, "real.md"), join(dir, "alias.md"));
    symlinkSync(join(root, "outside.md"), join(dir, "out.md"));
    symlinkSync("/dev/zero", join(dir, "zero"));
    Bun.spawnSync(["mkfifo", join(dir, "pipe")]);
    symlinkSync(join(dir, "pipe"), join(dir, "to-pipe"));
    const listed = listSkillFiles(dir);
    expect(listed.files.map((f) => f.path)).toEqual(["alias.md", "real.md"]);
    expect(listed.links).toEqual(["alias.md", "out.md", "to-pipe", "zero"]);
    expect(listed.specials).toEqual(["pipe", "to-pipe"]);
  });
});
