import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  CLAUDE_CODE_RESULT_CHARS,
  DEFAULT_RESULT_CHARS,
  linesUpTo,
  partEnd,
  textChars,
} from "../../src/tools/support/result-budget.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { sessions, textOf } from "../helpers/hub.ts";

afterAll(cleanupTemp);
const open = sessions();

/** A SKILL.md of `lines` numbered lines (non-ASCII in each, so bytes and characters differ). */
function longSkill(dir: string, name: string, lines: number): string {
  const body = Array.from({ length: lines }, (_, i) => `Line ${i + 1}: café, naïve, ünïcode — and more words.`).join(
    "\n",
  );
  return write(
    join(dir, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: A long skill\n---\n\n# ${name}\n\n${body}\n`,
  );
}

/** Every part of a skill read as a model would: the skill tool, then read_skill_file from each offset. */
async function readAllParts(call: (name: string, args: Record<string, unknown>) => Promise<any>, name: string) {
  const first = (await call("skill", { name })).content[0].text as string;
  const line = first.slice(first.lastIndexOf("\n[SkillHub:"));
  const part = first.slice(first.indexOf("\n\n") + 2, first.length - line.length);
  let offset: number | undefined = Number(/offset (\d+)\)/.exec(line)?.[1]);
  const rest: string[] = [];
  while (offset !== undefined) {
    const read = await call("read_skill_file", { skill_name: name, file_path: "SKILL.md", offset });
    rest.push(read.structuredContent.content);
    offset = read.structuredContent.next_offset;
  }
  return { first, line, part, rest };
}

describe("the budget of one result", () => {
  test("Claude Code's measured 50,000 characters, else 25,000; a part ends after a line, never inside a pair", () => {
    expect([CLAUDE_CODE_RESULT_CHARS, DEFAULT_RESULT_CHARS]).toEqual([50_000, 25_000]);
    expect(partEnd("abc\ndef\nghi", 9)).toBe(8);
    expect(partEnd("abc", 9)).toBe(3);
    expect(partEnd("x".repeat(20), 10)).toBe(10);
    expect(partEnd(`${"x".repeat(9)}😀`, 10)).toBe(9);
    expect(linesUpTo("a\nb\nc", 4)).toBe(2);
    expect(linesUpTo("a\nb\nc", 5)).toBe(3);
  });
});

describe("a skill longer than the client shows is served in parts", () => {
  test("skill: the first part within the budget and one line; read_skill_file's parts add up to the file", async () => {
    const dir = tempDir();
    const file = longSkill(dir, "long-skill", 2000);
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const result = await call("skill", { name: "long-skill" });
    expect(textChars(result)).toBeLessThanOrEqual(DEFAULT_RESULT_CHARS);
    const { line, part, rest } = await readAllParts(call, "long-skill");
    expect(line).toMatch(
      /^\n\[SkillHub: this is the first part of long-skill's SKILL\.md, \d+ lines, up to byte \d+ of \d+: this client shows at most 25000 characters of a result at once\. Read the rest with read_skill_file \(skill_name "long-skill", file_path "SKILL\.md", offset \d+\), then again from each answer's next_offset until it has none, or your file reader on .+SKILL\.md from line \d+\.\]$/,
    );
    expect(part.endsWith("\n")).toBe(true);
    expect(part + rest.join("")).toBe(await Bun.file(file).text());
    // The line number it names is where the rest starts.
    const from = Number(/from line (\d+)/.exec(line)?.[1]);
    expect((await Bun.file(file).text()).split("\n")[from - 1]).toBe(rest.join("").split("\n")[0]);
  });

  test("SKILLHUB_RESULT_BUDGET sets it; a client named Claude Code gets 50,000; a short skill stays whole", async () => {
    const dir = tempDir();
    longSkill(dir, "long-skill", 2000);
    writeSkill(dir, "short-skill");
    const small = await open({ flags: { "skills-dir": [dir] }, env: { SKILLHUB_RESULT_BUDGET: "8000" } });
    const cut = await small.call("skill", { name: "long-skill" });
    expect(textChars(cut)).toBeLessThanOrEqual(8000);
    expect(textOf(cut)).toContain("at most 8000 characters");
    expect(textOf(await small.call("skill", { name: "short-skill" }))).not.toContain("[SkillHub:");
    const claude = await open({ flags: { "skills-dir": [dir] }, clientName: "claude-code" });
    const bigger = textChars(await claude.call("skill", { name: "long-skill" }));
    expect(bigger).toBeGreaterThan(DEFAULT_RESULT_CHARS);
    expect(bigger).toBeLessThanOrEqual(CLAUDE_CODE_RESULT_CHARS);
  });

  test("load_skill: its JSON fits the budget; the instructions' line reads on from the file's own offset", async () => {
    const dir = tempDir();
    const file = longSkill(dir, "long-skill", 2000);
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const loaded = await call("load_skill", { skill_name: "long-skill" });
    expect(textOf(loaded).length).toBeLessThanOrEqual(DEFAULT_RESULT_CHARS);
    const instructions = loaded.structuredContent?.instructions as string;
    const offset = Number(/offset (\d+)\)/.exec(instructions)?.[1]);
    const read = await call("read_skill_file", { skill_name: "long-skill", file_path: "SKILL.md", offset });
    const kept = instructions.slice(0, instructions.lastIndexOf("\n[SkillHub:"));
    const text = await Bun.file(file).text();
    expect(text.slice(text.indexOf(kept) + kept.length).startsWith(read.structuredContent?.content)).toBe(true);
  });
  test("a SKILL.md that starts with a byte-order mark: the offsets count it, so the parts join without a repeat", async () => {
    const dir = tempDir();
    const file = longSkill(dir, "marked-skill", 2000);
    const text = await Bun.file(file).text();
    write(file, `\uFEFF${text}`);
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const { part, rest } = await readAllParts(call, "marked-skill");
    expect(part + rest.join("")).toBe(text);
    const loaded = await call("load_skill", { skill_name: "marked-skill" });
    const instructions = loaded.structuredContent?.instructions as string;
    const offset = Number(/offset (\d+)\)/.exec(instructions)?.[1]);
    const read = await call("read_skill_file", { skill_name: "marked-skill", file_path: "SKILL.md", offset });
    const kept = instructions.slice(0, instructions.lastIndexOf("\n[SkillHub:"));
    expect(text.slice(text.indexOf(kept) + kept.length).startsWith(read.structuredContent?.content)).toBe(true);
  });

  test("load_skill fits the budget whatever room the cut after a line leaves (names of every length shift it)", async () => {
    const dir = tempDir();
    const body = Array.from({ length: 1500 }, (_, i) => `Line ${i + 1}: lorem ipsum dolor sit amet consectetur.`);
    const names = Array.from({ length: 60 }, (_, k) => `lines-${"x".repeat(k + 1)}`);
    for (const name of names)
      write(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: Long lines\n---\n${body.join("\n")}\n`);
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    for (const name of names) {
      const loaded = await call("load_skill", { skill_name: name });
      expect(textOf(loaded).length, name).toBeLessThanOrEqual(DEFAULT_RESULT_CHARS);
      expect(loaded.structuredContent?.instructions).toContain("[SkillHub: this is the first part");
    }
  });
});

describe("load_skill when JSON writes a character as several", () => {
  test("control characters and quotes: the first part still fits the budget, and holds more than a few lines", async () => {
    const dir = tempDir();
    const bodies = {
      controls: Array.from({ length: 3000 }, () => "\u0001\u0002\u0003 beep").join("\n"),
      quotes: Array.from({ length: 6000 }, () => '"\\"\\"\\ quoted').join("\n"),
    };
    for (const [name, body] of Object.entries(bodies))
      write(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: Escapes\n---\n${body}\n`);
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    for (const name of Object.keys(bodies)) {
      const loaded = await call("load_skill", { skill_name: name });
      expect(textOf(loaded).length, name).toBeLessThanOrEqual(DEFAULT_RESULT_CHARS);
      expect((loaded.structuredContent?.instructions as string).length, name).toBeGreaterThan(2_000);
    }
  });
});

describe("read_skill_file in parts", () => {
  test("offset and length in bytes; an offset inside a character starts at the next one; past the end is refused", async () => {
    const dir = tempDir();
    writeSkill(dir, "files");
    write(join(dir, "files", "notes.txt"), "aé€b\nsecond line\n");
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const read = (args: Record<string, unknown>) =>
      call("read_skill_file", { skill_name: "files", file_path: "notes.txt", ...args });
    expect((await read({ length: 3 })).structuredContent).toEqual({
      content: "aé",
      encoding: "utf-8",
      truncated: true,
      size_bytes: 20,
      offset: 0,
      next_offset: 3,
    });
    expect((await read({ offset: 2, length: 4 })).structuredContent).toMatchObject({ content: "€", offset: 3 });
    expect((await read({ offset: 6 })).structuredContent).toEqual({
      content: "b\nsecond line\n",
      encoding: "utf-8",
      truncated: false,
      size_bytes: 20,
      offset: 6,
    });
    const past = await read({ offset: 20 });
    expect(past.structuredContent?.error.code).toBe("INVALID_ARGUMENT");
  });

  test("a binary file over what one answer holds comes in base64 parts that join to the file", async () => {
    const dir = tempDir();
    writeSkill(dir, "files");
    // Over MAX_FILE_BYTES (64 KiB): whole, it is refused; asked from offset 0, it comes in parts.
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256);
    write(join(dir, "files", "blob.bin"), bytes);
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const whole = await call("read_skill_file", { skill_name: "files", file_path: "blob.bin" });
    expect(whole.structuredContent?.error.code).toBe("FILE_TOO_LARGE");
    const parts: Buffer[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const read = await call("read_skill_file", { skill_name: "files", file_path: "blob.bin", offset });
      expect(textOf(read).length).toBeLessThanOrEqual(DEFAULT_RESULT_CHARS);
      expect(read.structuredContent?.encoding).toBe("base64");
      parts.push(Buffer.from(read.structuredContent?.content, "base64"));
      offset = read.structuredContent?.next_offset;
    }
    expect(parts.length).toBeGreaterThan(1);
    expect(Buffer.concat(parts).equals(Buffer.from(bytes))).toBe(true);
  });
});

describe("a tree node longer than the client shows is served in parts", () => {
  /** A tree whose node ops/handbook inherits a short root and holds 1,100 lines of its own. */
  function bigNode(): { dir: string; file: string; lines: string[] } {
    const dir = tempDir("skillhub-node-parts-");
    write(join(dir, "_root.md"), "---\nkeywords: [root]\ndescription: Root rules\n---\nBe careful.\n");
    const lines = Array.from({ length: 1100 }, (_, i) => `Step ${i + 1}: do the thing, then check the step before.`);
    const file = write(
      join(dir, "ops/handbook.md"),
      `---\nkeywords: [handbook]\ndescription: The whole handbook\n---\n# Handbook\n${lines.join("\n")}\n`,
    );
    return { dir, file, lines };
  }

  test("skill and load_skill: within the budget, the line names the file and the line the rest starts at", async () => {
    const { dir, file } = bigNode();
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const fileLines = (await Bun.file(file).text()).split("\n");
    for (const [tool, args] of [
      ["skill", { name: "ops/handbook" }],
      ["load_skill", { skill_name: "ops/handbook" }],
    ] as const) {
      const result = await call(tool, args);
      expect(textChars(result), tool).toBeLessThanOrEqual(DEFAULT_RESULT_CHARS);
      const text = (
        tool === "skill" ? (result.content[0] as { text: string }).text : result.structuredContent?.instructions
      ) as string;
      const line = text.slice(text.lastIndexOf("\n[SkillHub:"));
      expect(line).toMatch(
        new RegExp(
          `^\\n\\[SkillHub: this is the first part of ops/handbook's instructions, \\d+ of \\d+ lines: this client shows at most 25000 characters of a result at once\\. Read the rest with your file reader: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} from line \\d+\\.\\]$`,
        ),
      );
      // The line it names is the first one the part does not hold.
      const from = Number(/from line (\d+)/.exec(line)?.[1]);
      const shown = text.slice(0, text.length - line.length);
      expect(shown.endsWith(`${fileLines[from - 2]}\n`), tool).toBe(true);
      expect(shown).not.toContain(fileLines[from - 1]);
    }
  });

  test("a cut inside an inherited section: that file from the line, then the node's own file whole", async () => {
    const dir = tempDir("skillhub-node-parts-");
    const rules = Array.from({ length: 1100 }, (_, i) => `Rule ${i + 1}: keep the house in order, always.`);
    const root = write(
      join(dir, "_root.md"),
      `---\nkeywords: [root]\ndescription: Root rules\n---\n${rules.join("\n")}\n`,
    );
    const own = write(join(dir, "ops/short.md"), "---\nkeywords: [short]\ndescription: A short node\n---\nShort.\n");
    const { call } = await open({ flags: { "skills-dir": [dir] } });
    const text = ((await call("skill", { name: "ops/short" })).content[0] as { text: string }).text;
    const from = Number(/ from line (\d+), then /.exec(text)?.[1]);
    expect(text).toEndWith(`Read the rest with your file reader: ${root} from line ${from}, then ${own}, each whole.]`);
    // Four lines of frontmatter come before Rule 1.
    expect(text).toContain(`\nRule ${from - 5}: keep the house in order, always.\n`);
    expect(text).not.toContain(`Rule ${from - 4}: keep`);
  });
});
