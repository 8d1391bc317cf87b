import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { resolveConfig } from "../../src/config/resolve.ts";
import type { Config } from "../../src/config/schema.ts";
import { readSkillFileTool } from "../../src/tools/read-skill-file.ts";
import { MAX_VIEWABLE_IMAGE_BYTES } from "../../src/util/file-kind.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { sessions, textOf } from "../helpers/hub.ts";
import { GIF, JPEG, png } from "../helpers/images.ts";

afterAll(cleanupTemp);
const open = sessions();

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

async function setup(env: Record<string, string> = {}) {
  const dir = tempDir();
  const skill = join(dir, "pdf");
  writeSkill(dir, "pdf", { description: "PDF tools" });
  write(join(skill, "templates", "invoice.txt"), "invoice_number:\n");
  write(join(skill, "images", "logo.png"), PNG);
  write(join(skill, "data.bin"), Uint8Array.from([1, 2, 0, 3]));
  write(join(skill, "big.md"), `${"é".repeat(40_000)}`);
  const secret = write(join(tempDir(), "secret.txt"), "root:x:0:0");
  symlinkSync(secret, join(skill, "escape.txt"));
  symlinkSync(join(skill, "templates", "invoice.txt"), join(skill, "inside-link.txt"));
  return open({ flags: { "skills-dir": [dir] }, env });
}

const code = (r: { structuredContent?: unknown }) => (r.structuredContent as { error?: { code: string } }).error?.code;

describe("read_skill_file", () => {
  test("a server path of the skill's folder: refused with what to pass instead, never called absolute as a URI", async () => {
    const dir = tempDir();
    writeSkill(dir, "kit", { description: "A kit" });
    const script = write(join(dir, "kit", "scripts", "run.sh"), "echo hi\n");
    const answer = async (remote: boolean, file_path: string) => {
      const { call } = await open({ flags: { "skills-dir": [dir] }, remote });
      const result = await call("read_skill_file", { skill_name: "kit", file_path });
      return (result.structuredContent as { error: { code: string; message: string; suggestions?: string[] } }).error;
    };
    expect(await answer(true, script)).toEqual({
      code: "PATH_OUTSIDE_SKILL",
      message:
        "file_path was an absolute path of the server's disk; read_skill_file takes the path relative to the skill's folder: pass 'scripts/run.sh' (or the file's URI skill://kit/scripts/run.sh).",
      skill: "kit",
      file_path: "skill://kit/scripts/run.sh",
      suggestions: ["scripts/run.sh"],
    } as never);
    expect((await answer(false, script)).message).toBe(
      "file_path was an absolute path of the skill's folder; read_skill_file takes the path relative to the skill's folder: pass 'scripts/run.sh'.",
    );
    // A path outside the folder is refused as before; a client on another machine is not told it back.
    expect((await answer(false, "/etc/passwd")).message).toStartWith("'/etc/passwd' is absolute;");
    expect((await answer(true, "/etc/passwd")).message).toStartWith("'<server path>' is absolute;");
  });

  test("a text file, whole", async () => {
    const { call } = await setup();
    const result = await call("read_skill_file", { skill_name: "PDF", file_path: "templates/invoice.txt" });
    expect(result.structuredContent).toEqual({
      content: "invoice_number:\n",
      encoding: "utf-8",
      truncated: false,
      size_bytes: 16,
    });
    expect(
      (await call("read_skill_file", { skill_name: "pdf", file_path: "./templates//invoice.txt" })).isError,
    ).toBeFalsy();
    expect((await call("read_skill_file", { skill_name: "pdf", file_path: "inside-link.txt" })).isError).toBeFalsy();
  });

  test("text over MAX_FILE_BYTES: the first bytes, cut on a character boundary, truncated: true", async () => {
    const { call } = await setup({ MAX_FILE_BYTES: "1001" });
    const result = await call("read_skill_file", { skill_name: "pdf", file_path: "big.md" });
    const body = result.structuredContent as { content: string; truncated: boolean; size_bytes: number };
    expect(body.truncated).toBe(true);
    expect(body.size_bytes).toBe(80_000);
    expect(body.content).toBe("é".repeat(500));
  });

  test("binary files come back as base64 with a MIME type (by extension or NUL bytes)", async () => {
    const { call } = await setup();
    // From offset 0: without it, a PNG is sent as an image (see below).
    const png = await call("read_skill_file", { skill_name: "pdf", file_path: "images/logo.png", offset: 0 });
    expect(png.structuredContent).toEqual({
      content: Buffer.from(PNG).toString("base64"),
      encoding: "base64",
      truncated: false,
      size_bytes: 12,
      mime_type: "image/png",
    });
    const bin = await call("read_skill_file", { skill_name: "pdf", file_path: "data.bin" });
    expect(bin.structuredContent).toMatchObject({ encoding: "base64", mime_type: "application/octet-stream" });
  });

  test("hostile paths are PATH_OUTSIDE_SKILL and read nothing", async () => {
    const { call } = await setup();
    for (const file_path of [
      "../../etc/passwd",
      "templates/../../x",
      "/etc/passwd",
      "C:\\Windows\\win.ini",
      "c:foo",
      "..\\..\\x",
      "invoice.txt\u0000.png",
      "escape.txt",
    ]) {
      const result = await call("read_skill_file", { skill_name: "pdf", file_path });
      expect(result.isError).toBe(true);
      expect(code(result)).toBe("PATH_OUTSIDE_SKILL");
      expect(textOf(result)).not.toContain("root:x");
    }
  });

  test("missing files and folders are FILE_NOT_FOUND; unknown skills SKILL_NOT_FOUND", async () => {
    const { call } = await setup();
    expect(code(await call("read_skill_file", { skill_name: "pdf", file_path: "nope.txt" }))).toBe("FILE_NOT_FOUND");
    expect(code(await call("read_skill_file", { skill_name: "pdf", file_path: "templates" }))).toBe("FILE_NOT_FOUND");
    expect(code(await call("read_skill_file", { skill_name: "nope", file_path: "a.txt" }))).toBe("SKILL_NOT_FOUND");
  });

  test("a binary file over the limit is FILE_TOO_LARGE, not a broken prefix", async () => {
    const { call } = await setup({ MAX_FILE_BYTES: "3" });
    const result = await call("read_skill_file", { skill_name: "pdf", file_path: "data.bin" });
    expect(code(result)).toBe("FILE_TOO_LARGE");
  });

  test("a disabled skill's files are not readable", async () => {
    const { call } = await setup({ SKILLHUB_ENABLED_SKILLS: "other" });
    expect(code(await call("read_skill_file", { skill_name: "pdf", file_path: "templates/invoice.txt" }))).toBe(
      "SKILL_DISABLED",
    );
  });
});

describe("read_skill_file and the paths a skill's own links give", () => {
  /** Skill `subagents` whose text links to its own files and to a file of `code-review` beside it. */
  async function linked(options: { remote?: boolean; env?: Record<string, string> } = {}) {
    const dir = tempDir();
    writeSkill(dir, "subagents", { description: "Dispatch subagents" });
    write(join(dir, "subagents", "references", "api.md"), "# Auth\n");
    write(join(dir, "subagents", "references", "my notes.md"), "notes\n");
    write(join(dir, "subagents", "references", "guide.md"), "See [next](next.md) and [run](../scripts/run.py).\n");
    write(join(dir, "subagents", "references", "next.md"), "next\n");
    write(join(dir, "subagents", "scripts", "run.py"), "print(1)\n");
    write(join(dir, "subagents", "a#b.md"), "hash\n");
    write(join(dir, "secret.txt"), "root:x:0:0");
    writeSkill(dir, "code-review", { description: "Review code" });
    write(join(dir, "code-review", "code-reviewer.md"), "# Reviewer\n");
    return open({ flags: { "skills-dir": [dir] }, remote: options.remote, env: options.env });
  }

  test("a link's target copied whole, with its section, query, <…> or %-escapes, reads the file it links to", async () => {
    const { call } = await linked();
    for (const [file_path, content] of [
      ["references/api.md#auth", "# Auth\n"],
      ["./references/api.md?raw=1", "# Auth\n"],
      ["references/my%20notes.md", "notes\n"],
      ["<references/my notes.md>", "notes\n"],
      ["a#b.md", "hash\n"],
      ["a%23b.md", "hash\n"],
    ]) {
      const result = await call("read_skill_file", { skill_name: "subagents", file_path });
      expect({ file_path, content: result.structuredContent?.content }).toEqual({ file_path, content });
    }
  });

  test("%-escapes decode into a path that is checked like any other: no way out of the skill", async () => {
    const { call } = await linked();
    for (const file_path of ["..%2fsecret.txt", "%2e%2e/secret.txt", "..%5Csecret.txt", "%2Fetc%2Fpasswd", "x%00.md"]) {
      const result = await call("read_skill_file", { skill_name: "subagents", file_path });
      expect(result.isError).toBe(true);
      expect(textOf(result)).not.toContain("root:x");
    }
  });

  test("a path written from another of the skill's files, or in another case, gets the file it may mean", async () => {
    const { call } = await linked();
    for (const [file_path, meant] of [
      ["next.md", "references/next.md"],
      ["../scripts/run.py", "scripts/run.py"],
      ["references/../scripts/run.py", "scripts/run.py"],
      ["References/API.md", "references/api.md"],
      [".claude/skills/subagents/scripts/run.py", "scripts/run.py"],
    ]) {
      const result = await call("read_skill_file", { skill_name: "subagents", file_path });
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.error?.suggestions).toEqual([meant]);
      expect(result.structuredContent?.error?.message).toContain(`Did you mean '${meant}'?`);
    }
    const none = await call("read_skill_file", { skill_name: "subagents", file_path: "nothing.md" });
    expect(none.structuredContent?.error).not.toHaveProperty("suggestions");
  });

  test("a path out of the skill by '..' says the file is not the skill's, and what to pass instead", async () => {
    const { call } = await linked();
    const outside = await call("read_skill_file", { skill_name: "subagents", file_path: "../_shared/ooxml.md" });
    expect(outside.structuredContent?.error).toEqual({
      code: "PATH_OUTSIDE_SKILL",
      message:
        "'../_shared/ooxml.md' climbs out of the skill's folder with '..': the file lies outside the skill, and no file outside a skill's folder is served through it. Only files inside the skill's folder can be read; use a relative path from load_skill's file list.",
      skill: "subagents",
      file_path: "../_shared/ooxml.md",
    });
    // One that climbs back in is not said to be outside: it gets the skill's file it means.
    const inside = await call("read_skill_file", {
      skill_name: "subagents",
      file_path: "references/../scripts/run.py",
    });
    expect(inside.structuredContent?.error?.message).toStartWith(
      "'references/../scripts/run.py' contains '..'. Did you mean 'scripts/run.py'?",
    );
  });

  test("a link to a file of the skill beside it names that skill and the call that reads it", async () => {
    const remote = await linked({ remote: true });
    const asked = { skill_name: "subagents", file_path: "../code-review/code-reviewer.md" };
    const result = await remote.call("read_skill_file", asked);
    expect(result.structuredContent?.error?.code).toBe("PATH_OUTSIDE_SKILL");
    expect(result.structuredContent?.error?.message).toContain(
      `It is a file of skill 'code-review': read it with read_skill_file (skill_name "code-review", file_path "code-reviewer.md"), or its URI skill://code-review/code-reviewer.md.`,
    );
    const read = await remote.call("read_skill_file", { skill_name: "code-review", file_path: "code-reviewer.md" });
    expect(read.structuredContent?.content).toBe("# Reviewer\n");
    // As a skill names a file of another in a project that holds both: through that skill's folder.
    const project = await remote.call("read_skill_file", {
      skill_name: "subagents",
      file_path: "skills/code-review/code-reviewer.md",
    });
    expect(project.structuredContent?.error?.message).toContain(
      `It is a file of skill 'code-review': read it with read_skill_file (skill_name "code-review", file_path "code-reviewer.md")`,
    );
    // Not named for a file it does not have, nor when it is disabled.
    const missing = await remote.call("read_skill_file", { ...asked, file_path: "../code-review/no-such-file.md" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).not.toContain("It is a file of skill");
    const filtered = await linked({ env: { SKILLHUB_ENABLED_SKILLS: "subagents" } });
    expect(textOf(await filtered.call("read_skill_file", asked))).not.toContain("code-review'");
  });
});

describe("read_skill_file and images", () => {
  const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
  const LOGO = png(3, 2);
  /** A screenshot-sized PNG (about 300 KB), far over what one answer may carry as base64. */
  const SCREEN = png(316, 316);
  /** A PNG over assets.max_size_bytes (1 MiB). */
  const HUGE = png(600, 600);

  /** A client on a skill with images, the tools listed first so that the SDK validates every structuredContent. */
  async function images(env: Record<string, string> = {}, config?: (dir: string) => Config) {
    const dir = tempDir();
    const skill = join(dir, "brand");
    writeSkill(dir, "brand", { description: "Brand assets" });
    write(join(skill, "images/logo.png"), LOGO);
    write(join(skill, "images/PHOTO.JPG"), JPEG);
    write(join(skill, "images/spinner.gif"), GIF);
    write(join(skill, "images/big.png"), png(40, 40));
    write(join(skill, "images/screen.png"), SCREEN);
    write(join(skill, "images/huge.png"), HUGE);
    write(join(skill, "images/diagram.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
    write(join(skill, "docs/guide.pdf"), PDF);
    // Misnamed both ways: a PNG called .txt, and text called .png (as a Git LFS pointer is).
    write(join(skill, "notes/logo.txt"), LOGO);
    write(join(skill, "notes/screen.txt"), SCREEN);
    write(join(skill, "images/photo.png"), Buffer.concat([JPEG, Buffer.alloc(100_000)]));
    write(
      join(skill, "images/pointer.png"),
      "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 70485\n",
    );
    const session = await open({ flags: { "skills-dir": [dir] }, env, hub: config && { config: config(dir) } });
    const { tools } = await session.client.listTools();
    expect(tools.find((t) => t.name === "read_skill_file")?.outputSchema).toBeDefined();
    return { ...session, skill };
  }

  /** The structured content, checked against the tool's own output schema (no field it does not declare). */
  function structured(result: { structuredContent?: unknown }) {
    return z.strictObject((readSkillFileTool.outputSchema as z.ZodObject).shape).parse(result.structuredContent);
  }

  const imageOf = (result: { content: { type: string }[] }) =>
    result.content.find((c) => c.type === "image") as { type: "image"; data: string; mimeType: string } | undefined;

  /** Every part of a file from `offset` on, read on from each next_offset, decoded and joined. */
  async function readOn(call: Awaited<ReturnType<typeof images>>["call"], file_path: string, offset: number) {
    const parts: Buffer[] = [];
    for (let next: number | undefined = offset; next !== undefined; ) {
      const part = await call("read_skill_file", { skill_name: "brand", file_path, offset: next });
      expect(imageOf(part)).toBeUndefined();
      const body = structured(part) as { content: string; encoding: string; next_offset?: number };
      expect(body.encoding).toBe("base64");
      parts.push(Buffer.from(body.content, "base64"));
      next = body.next_offset;
    }
    return Buffer.concat(parts);
  }

  test("a whole 300 KB PNG: an image block with its exact bytes; the structured content holds none and says to read from 0", async () => {
    const { call } = await images();
    const result = await call("read_skill_file", { skill_name: "brand", file_path: "images/screen.png" });
    expect(result.isError).toBeFalsy();
    expect(result.content.map((c) => c.type)).toEqual(["text", "image"]);
    const image = imageOf(result);
    expect(image?.mimeType).toBe("image/png");
    expect(Buffer.from(image?.data ?? "", "base64").equals(SCREEN)).toBe(true);
    const note = `images/screen.png: image/png, ${SCREEN.length} bytes, sent as an image; read it from offset 0 only to save the file (its bytes as base64).`;
    expect(textOf(result)).toBe(note);
    // The note is in the structured content too, which is what Claude Code hands its model.
    expect(structured(result)).toEqual({
      content: "",
      encoding: "base64",
      truncated: true,
      size_bytes: SCREEN.length,
      mime_type: "image/png",
      offset: 0,
      next_offset: 0,
      note,
    });
    // Read on from next_offset 0, as after any part: base64 parts that join to the file.
    expect((await readOn(call, "images/screen.png", 0)).equals(SCREEN)).toBe(true);
  });

  test("a small PNG is sent the same way", async () => {
    const { call } = await images();
    const result = await call("read_skill_file", { skill_name: "brand", file_path: "images/logo.png" });
    expect(imageOf(result)).toEqual({ type: "image", data: LOGO.toString("base64"), mimeType: "image/png" });
    expect(structured(result)).toMatchObject({ content: "", truncated: true, size_bytes: LOGO.length, next_offset: 0 });
  });

  test("a JPEG named in capitals, and a GIF, are images too", async () => {
    const { call } = await images();
    const jpeg = await call("read_skill_file", { skill_name: "brand", file_path: "images/PHOTO.JPG" });
    expect(imageOf(jpeg)?.mimeType).toBe("image/jpeg");
    expect(Buffer.from(imageOf(jpeg)?.data ?? "", "base64").equals(JPEG)).toBe(true);
    expect(structured(jpeg)).toMatchObject({ mime_type: "image/jpeg", size_bytes: JPEG.length });
    const gif = await call("read_skill_file", { skill_name: "brand", file_path: "images/spinner.gif" });
    expect(imageOf(gif)).toEqual({ type: "image", data: GIF.toString("base64"), mimeType: "image/gif" });
  });

  test("asked with an offset or a length, an image's bytes come as base64 text, as a part of one does", async () => {
    const { call } = await images();
    const whole = await call("read_skill_file", { skill_name: "brand", file_path: "images/logo.png", offset: 0 });
    expect(imageOf(whole)).toBeUndefined();
    expect(structured(whole)).toEqual({
      content: LOGO.toString("base64"),
      encoding: "base64",
      truncated: false,
      size_bytes: LOGO.length,
      mime_type: "image/png",
    });
    expect(textOf(whole)).toContain(LOGO.toString("base64"));
    const part = await call("read_skill_file", { skill_name: "brand", file_path: "images/logo.png", length: 8 });
    expect(imageOf(part)).toBeUndefined();
    expect(structured(part)).toEqual({
      content: LOGO.subarray(0, 8).toString("base64"),
      encoding: "base64",
      truncated: true,
      size_bytes: LOGO.length,
      mime_type: "image/png",
      offset: 0,
      next_offset: 8,
    });
  });

  test("neither the answer's budget nor MAX_FILE_BYTES cuts an image sent as one", async () => {
    const { call } = await images({ SKILLHUB_RESULT_BUDGET: "4000", MAX_FILE_BYTES: "100" });
    const big = png(40, 40);
    const result = await call("read_skill_file", { skill_name: "brand", file_path: "images/big.png" });
    expect(imageOf(result)).toEqual({ type: "image", data: big.toString("base64"), mimeType: "image/png" });
    expect(structured(result)).toMatchObject({ content: "", size_bytes: big.length, next_offset: 0 });
  });

  test("over assets.max_size_bytes (1 MiB), an image is any binary file: FILE_TOO_LARGE whole, base64 parts from an offset", async () => {
    const { call } = await images();
    const whole = await call("read_skill_file", { skill_name: "brand", file_path: "images/huge.png" });
    expect(imageOf(whole)).toBeUndefined();
    expect(whole.structuredContent).toEqual({
      error: expect.objectContaining({ code: "FILE_TOO_LARGE", size_bytes: HUGE.length, max_bytes: 65_536 }),
    });
    const part = await call("read_skill_file", { skill_name: "brand", file_path: "images/huge.png", offset: 0 });
    expect(imageOf(part)).toBeUndefined();
    // The default budget less the answer's other fields, in base64 (4 characters per 3 bytes): as for every binary file.
    const end = Math.floor(((25_000 - 300) * 3) / 4);
    expect(structured(part)).toEqual({
      content: HUGE.subarray(0, end).toString("base64"),
      encoding: "base64",
      truncated: true,
      size_bytes: HUGE.length,
      mime_type: "image/png",
      offset: 0,
      next_offset: end,
    });
  });

  test("a larger assets.max_size_bytes stops at the most a model's API takes (3.75 MiB, 5 MiB of base64)", async () => {
    const config = (dir: string) => {
      const { config } = resolveConfig({ env: {}, flags: { "skills-dir": [dir] }, homeDir: tempDir(), cwd: dir });
      return { ...config, assets: { ...config.assets, max_size_bytes: 8_000_000 } } as Config;
    };
    const { call, skill } = await images({}, config);
    // PNGs by their first bytes, padded to the sizes at stake.
    const sized = (size: number) => Buffer.concat([LOGO, Buffer.alloc(size - LOGO.length)]);
    write(join(skill, "images/at.png"), sized(MAX_VIEWABLE_IMAGE_BYTES));
    write(join(skill, "images/over.png"), sized(MAX_VIEWABLE_IMAGE_BYTES + 1));
    const at = await call("read_skill_file", { skill_name: "brand", file_path: "images/at.png" });
    expect(Buffer.from(imageOf(at)?.data ?? "", "base64").length).toBe(MAX_VIEWABLE_IMAGE_BYTES);
    const over = await call("read_skill_file", { skill_name: "brand", file_path: "images/over.png" });
    expect(imageOf(over)).toBeUndefined();
    expect(code(over)).toBe("FILE_TOO_LARGE");
  });

  test("a link is judged by the file it leads to: one to a PNG is an image whatever its own name; it stays in the skill", async () => {
    const { call, skill } = await images();
    symlinkSync("screen.png", join(skill, "images/diagram"));
    symlinkSync("screen.png", join(skill, "images/logo.bin"));
    symlinkSync(join(skill, "images/screen.png"), join(skill, "notes/shot.txt"));
    for (const file_path of ["images/diagram", "images/logo.bin", "notes/shot.txt"]) {
      const result = await call("read_skill_file", { skill_name: "brand", file_path });
      expect(result.isError, file_path).toBeFalsy();
      expect(imageOf(result)).toEqual({ type: "image", data: SCREEN.toString("base64"), mimeType: "image/png" });
      expect(structured(result)).toMatchObject({ content: "", size_bytes: SCREEN.length, next_offset: 0 });
      expect((await readOn(call, file_path, 0)).equals(SCREEN)).toBe(true);
    }
    // Named as an image, leading to text: the text in parts, as any text.
    write(join(skill, "notes/long.md"), "x".repeat(100_000));
    symlinkSync("../notes/long.md", join(skill, "images/fake.png"));
    const fake = await call("read_skill_file", { skill_name: "brand", file_path: "images/fake.png" });
    expect(imageOf(fake)).toBeUndefined();
    expect(structured(fake)).toMatchObject({ encoding: "utf-8", truncated: true, size_bytes: 100_000, offset: 0 });
    // Leading to an image outside the skill (another's, or none): refused as before, whatever the names say.
    const outside = join(tempDir(), "secret.png");
    write(outside, SCREEN);
    symlinkSync(outside, join(skill, "images/escape"));
    symlinkSync(outside, join(skill, "images/escape.png"));
    for (const file_path of ["images/escape", "images/escape.png"])
      expect(code(await call("read_skill_file", { skill_name: "brand", file_path }))).toBe("PATH_OUTSIDE_SKILL");
  });

  test("a PDF, an SVG and misnamed files stay base64 text, by extension as before", async () => {
    const { call } = await images();
    const cases: [string, Buffer | string, string][] = [
      ["docs/guide.pdf", PDF, "application/pdf"],
      // SVG is text a model reads as such; no model API takes it as an image.
      ["images/diagram.svg", '<svg xmlns="http://www.w3.org/2000/svg"/>\n', "image/svg+xml"],
      // Binary by its NUL bytes, but named as text: not an image.
      ["notes/logo.txt", LOGO, "application/octet-stream"],
      // Named as an image, but its bytes are not one: sent as one, a model's API would refuse it.
      ["images/pointer.png", "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 70485\n", "image/png"],
    ];
    for (const [file_path, bytes, mime_type] of cases) {
      const result = await call("read_skill_file", { skill_name: "brand", file_path });
      const base64 = Buffer.from(bytes).toString("base64");
      expect(result.content.map((c) => c.type)).toEqual(["text"]);
      expect(structured(result)).toEqual({
        content: base64,
        encoding: "base64",
        truncated: false,
        size_bytes: Buffer.byteLength(bytes),
        mime_type,
      });
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    }
    // Over MAX_FILE_BYTES, read whole: FILE_TOO_LARGE, as for any binary file.
    for (const file_path of ["notes/screen.txt", "images/photo.png"])
      expect(code(await call("read_skill_file", { skill_name: "brand", file_path }))).toBe("FILE_TOO_LARGE");
  });
});
