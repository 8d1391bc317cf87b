import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { readSkillBodyStart, streamSkillBody } from "../../src/catalog/skill-text.ts";
import { fieldTerms, TermCounter } from "../../src/search/field-terms.ts";
import { skillBody } from "../../src/skills/agent-skill.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { fakeSkill } from "../helpers/skill.ts";

afterAll(cleanupTemp);

/** A skill whose SKILL.md is `text`, in its own temp folder. */
function skillWith(text: string) {
  const root = tempDir();
  const dir = join(root, "s");
  const file = write(join(dir, "SKILL.md"), text);
  return fakeSkill("s", { root, dir, file });
}

function streamed(text: string): { chunks: number; body: string } {
  const parts: string[] = [];
  expect(streamSkillBody(skillWith(text), (t) => parts.push(t) > 0)).toBe(true);
  return { chunks: parts.length, body: parts.join("") };
}

const long = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word} ${i} of many.`).join("\n");

describe("streamSkillBody: the body without frontmatter, in chunks", () => {
  test("gives the body skillBody gives (same words, in order) for every shape of file", () => {
    const files = [
      "---\nname: s\ndescription: d\n---\n\n# Title\n\nBody text.\n",
      "\uFEFF---\r\nname: s\r\ndescription: d\r\n---\r\n\r\n# Title\r\n\r\nBody with CRLF.\r\n",
      "# No frontmatter\n\nJust a body.\n",
      "---\nname: s\ndescription: never closed\n",
      `---\nname: s\ndescription: ${"x ".repeat(40_000)}\n---\n\n${long(5000, "after a long frontmatter")}\n`,
      `---\nname: s\ndescription: d\n---\n\n${long(8000, "paragraph")}\n\nthe very end ✓ café\n`,
    ];
    for (const text of files) {
      const { body } = streamed(text);
      const expected = skillBody(text);
      expect(body.replace(/\r\n?/g, "\n")).toBe(expected);
      // What the index sees is identical too.
      const counter = new TermCounter();
      counter.push(body);
      expect(counter.end()).toEqual(fieldTerms(expected));
    }
    expect(streamed(files[5] as string).chunks).toBeGreaterThan(1);
  });

  test("stops reading when told to, and reads nothing outside the skill's folder", () => {
    const skill = skillWith(`---\nname: s\ndescription: d\n---\n\n${long(20_000, "line")}\n`);
    let calls = 0;
    expect(streamSkillBody(skill, () => ++calls < 1)).toBe(true);
    expect(calls).toBe(1);
    const outside = write(join(tempDir(), "secret.md"), "---\nname: x\ndescription: y\n---\nSECRET\n");
    const root = tempDir();
    symlinkSync(outside, join(root, "SKILL.md"));
    const linked = fakeSkill("s", { root, dir: root, file: join(root, "SKILL.md") });
    expect(streamSkillBody(linked, () => true)).toBe(false);
    expect(readFileSync(outside, "utf8")).toContain("SECRET");
  });
});

describe("readSkillBodyStart: what an excerpt looks at", () => {
  test("the body's first characters, whatever the file's shape, as the whole file's body would give them", () => {
    const files = [
      "---\nname: s\ndescription: d\n---\n\n# Title\n\nA short body.\n",
      "# No frontmatter\n\nJust a body.\n",
      "---\nname: s\ndescription: never closed\n",
      // A frontmatter longer than the first read: the body is not the frontmatter's text.
      `---\nname: s\ndescription: ${"x ".repeat(8_000)}\n---\n\n${long(2000, "after a long frontmatter")}\n`,
      `---\nname: s\ndescription: d\n---\n\n${long(2000, "paragraph")}\n`,
      // Three bytes a character: the first read holds fewer than the characters asked for.
      `---\nname: s\ndescription: d\n---\n\n${"技能の説明文です。".repeat(2000)}\n`,
      `\uFEFF---\r\nname: s\r\ndescription: d\r\n---\r\n\r\n${long(2000, "crlf line")}\r\n`,
    ];
    for (const text of files) {
      const start = readSkillBodyStart(skillWith(text), 8000);
      expect(start).toBe(skillBody(text).slice(0, 8000));
    }
    expect(readSkillBodyStart(skillWith(files[3] as string), 8000)).toStartWith("after a long frontmatter 0");
    expect(readSkillBodyStart(skillWith(files[5] as string), 8000)).toHaveLength(8000);
  });

  test("a character cut by the first read is never part of the start", () => {
    // Two bytes a character: the first read (chars + 4 KiB) ends inside the body, cutting one at odd sizes;
    // near 4,064 it holds about `chars` characters, the cut one last.
    const text = `---\nname: s\ndescription: d\n---\n\n${"é".repeat(12_000)}\n`;
    const skill = skillWith(text);
    for (let chars = 4000; chars < 4130; chars++) {
      const start = readSkillBodyStart(skill, chars) as string;
      expect(start).toBe(skillBody(text).slice(0, chars));
      expect(start).not.toContain("\uFFFD");
    }
  });

  test("undefined for a file that cannot be served", () => {
    const root = tempDir();
    symlinkSync(
      write(join(tempDir(), "secret.md"), "---\nname: x\ndescription: y\n---\nSECRET\n"),
      join(root, "SKILL.md"),
    );
    expect(readSkillBodyStart(fakeSkill("s", { root, dir: root, file: join(root, "SKILL.md") }), 8000)).toBeUndefined();
  });
});

describe("a skill's real folder, kept between reads", () => {
  const secret = () => write(join(tempDir(), "SKILL.md"), "---\nname: x\ndescription: y\n---\nSECRET\n");

  test("a SKILL.md swapped for a link to elsewhere after a read is refused", () => {
    const skill = skillWith("---\nname: s\ndescription: d\n---\nFIRST\n");
    expect(readSkillBodyStart(skill, 100)).toBe("FIRST\n");
    rmSync(skill.file);
    symlinkSync(secret(), skill.file);
    expect(readSkillBodyStart(skill, 100)).toBeUndefined();
  });

  test("a local skill's folder linked in from elsewhere is read there; a first read through a folder whose SKILL.md links out is refused", () => {
    const elsewhere = tempDir();
    write(join(elsewhere, "SKILL.md"), "---\nname: s\ndescription: d\n---\nLINKED IN\n");
    const dir = join(tempDir(), "s");
    symlinkSync(elsewhere, dir);
    const linked = fakeSkill("s", { root: dirname(dir), dir, file: join(dir, "SKILL.md") });
    expect(readSkillBodyStart(linked, 100)).toBe("LINKED IN\n");
    // A first read through a folder whose SKILL.md is a link out of it: refused, as through its real path.
    const other = tempDir();
    symlinkSync(secret(), join(other, "SKILL.md"));
    const outward = fakeSkill("o", { root: other, dir: other, file: join(other, "SKILL.md") });
    expect(readSkillBodyStart(outward, 100)).toBeUndefined();
  });

  test("a synced skill's folder linked out of its repository after a read is refused; moved within it, read there", () => {
    const repo = tempDir();
    const dir = join(repo, "skills", "s");
    write(join(dir, "SKILL.md"), "---\nname: s\ndescription: d\n---\nFIRST\n");
    const skill = fakeSkill("s", { location: "remote", root: repo, dir, file: join(dir, "SKILL.md") });
    expect(readSkillBodyStart(skill, 100)).toBe("FIRST\n");
    renameSync(dir, join(repo, "moved"));
    symlinkSync(dirname(secret()), dir);
    expect(readSkillBodyStart(skill, 100)).toBeUndefined();
    rmSync(dir);
    symlinkSync(join(repo, "moved"), dir);
    expect(readSkillBodyStart(skill, 100)).toBe("FIRST\n");
  });
});
