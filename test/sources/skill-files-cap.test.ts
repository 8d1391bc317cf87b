import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { listSkillFiles } from "../../src/sources/skill-files.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";

afterAll(cleanupTemp);

describe("load_skill's file listing cap", () => {
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

  test("under the cap nothing changes: every file, no truncated", () => {
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
      truncated: false,
    });
  });
});
