import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileDigest } from "../../src/server/skills-extension/digest.ts";
import { publication } from "../../src/server/skills-extension/publication.ts";
import { readSkillFile } from "../../src/server/skills-extension/skill-files.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { testHub } from "../helpers/hub.ts";

afterAll(cleanupTemp);

/** The extension's publication of one skills folder, and why each unpublished skill is left out. */
async function published(build: (dir: string) => void) {
  const dir = tempDir("skillhub-files-");
  build(dir);
  const { hub } = testHub({ flags: { "skills-dir": [dir] }, hub: { acceptRoots: false } });
  hub.scanNow();
  const pub = await publication(hub.catalog);
  hub.close();
  const files = pub.skills.flatMap(({ entry }) => (entry.resources === "dynamic" ? [] : entry.resources));
  return {
    files,
    uris: files.map((f) => f.uri).sort(),
    reasons: Object.fromEntries(pub.unpublished.map((u) => [u.skill.name, u.reason])),
  };
}

const skillMd = (name: string) => `---\nname: ${name}\ndescription: Helps with ${name}.\n---\nBody.\n`;

describe("the extension's file access", () => {
  test("fileDigest is sha256: and 64 lowercase hex digits of the raw bytes", () => {
    expect(fileDigest(new TextEncoder().encode("abc"))).toBe(
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  test("a skill past 16 MiB is refused with the reason", async () => {
    const { reasons } = await published((dir) => {
      write(join(dir, "big", "SKILL.md"), skillMd("big"));
      write(join(dir, "big", "assets", "big.bin"), new Uint8Array(16 * 1024 * 1024));
    });
    expect(reasons.big).toContain("16 MiB");
  });

  test("nested files are published, a symlink refuses the skill, readSkillFile refuses paths that climb", async () => {
    const { uris, reasons } = await published((dir) => {
      write(join(dir, "deep", "SKILL.md"), skillMd("deep"));
      write(join(dir, "deep", "a", "b", "c.md"), "deep");
      write(join(dir, "linked", "SKILL.md"), skillMd("linked"));
      write(join(dir, "linked", "a", "real.md"), "x");
      symlinkSync("/etc/hostname", join(dir, "linked", "a", "link"));
    });
    expect(uris).toEqual(["skill://deep/SKILL.md", "skill://deep/a/b/c.md"]);
    expect(reasons.linked).toContain("a/link is a symlink");
    const dir = tempDir("skillhub-files-");
    write(join(dir, "a", "b", "c.md"), "deep");
    expect(new TextDecoder().decode(readSkillFile(dir, "a/b/c.md"))).toBe("deep");
    for (const bad of ["../secret", "a/../../x", "/etc/passwd", "a//b"])
      expect(() => readSkillFile(dir, bad)).toThrow();
  });
});
