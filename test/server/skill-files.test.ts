import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileDigest } from "../../src/server/skills-extension/digest.ts";
import { readSkillFile, walkSkillFolder } from "../../src/server/skills-extension/skill-files.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const LIMITS = { maxFiles: 512, maxBytes: 16 * 1024 * 1024 };

describe("the extension's file access", () => {
  test("fileDigest is sha256: and 64 lowercase hex digits of the raw bytes", () => {
    expect(fileDigest(new TextEncoder().encode("abc"))).toBe(
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  test("a skill past 16 MiB is refused with the reason, before it is read to the end", () => {
    const dir = tempDir("skillhub-files-");
    write(join(dir, "SKILL.md"), "---\nname: x\ndescription: y\n---\n");
    write(join(dir, "assets", "big.bin"), new Uint8Array(16 * 1024 * 1024));
    const walk = walkSkillFolder(dir, LIMITS);
    expect(walk.kind === "refused" && walk.reason).toContain("16 MiB");
  });

  test("symlinks are refused; nested files are listed; readSkillFile refuses paths that climb", () => {
    const dir = tempDir("skillhub-files-");
    write(join(dir, "SKILL.md"), "x");
    write(join(dir, "a", "b", "c.md"), "deep");
    expect(walkSkillFolder(dir, LIMITS)).toEqual({
      kind: "ok",
      files: [
        { path: "SKILL.md", size: 1 },
        { path: "a/b/c.md", size: 4 },
      ],
      dirs: ["a", "a/b"],
    });
    expect(new TextDecoder().decode(readSkillFile(dir, "a/b/c.md"))).toBe("deep");
    for (const bad of ["../secret", "a/../../x", "/etc/passwd", "a//b"])
      expect(() => readSkillFile(dir, bad)).toThrow();
    symlinkSync("/etc/hostname", join(dir, "a", "link"));
    const walk = walkSkillFolder(dir, LIMITS);
    expect(walk.kind === "refused" && walk.reason).toContain("a/link is a symlink");
  });
});
