import { afterAll, describe, expect, test } from "bun:test";
import { realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  binaryMimeType,
  hasNulByte,
  isBinaryFile,
  isViewableImage,
  MAX_VIEWABLE_IMAGE_BYTES,
  mimeTypeFor,
} from "../../src/util/file-kind.ts";
import { checkRelativePath, isInside, resolveInside } from "../../src/util/safe-path.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIF, JPEG, png } from "../helpers/images.ts";

afterAll(cleanupTemp);

describe("checkRelativePath", () => {
  test.each([
    ["assets/x.json", "assets/x.json"],
    ["./assets//x.json", "assets/x.json"],
    ["assets\\x.json", "assets/x.json"],
    ["a/./b", "a/b"],
    ["..hidden/x", "..hidden/x"],
  ])("accepts %p as %p", (input, path) => expect(checkRelativePath(input)).toEqual({ ok: true, path }));

  test.each([
    ["../x", "contains '..'"],
    ["assets/../../x", "contains '..'"],
    ["assets\\..\\..\\x", "contains '..'"],
    ["/etc/passwd", "is absolute; give a path relative to the skill's folder"],
    ["\\\\server\\share", "is absolute; give a path relative to the skill's folder"],
    ["C:\\Windows\\win.ini", "starts with a drive letter; give a path relative to the skill's folder"],
    ["c:foo", "starts with a drive letter; give a path relative to the skill's folder"],
    ["a\0b", "contains a NUL byte"],
    ["", "is empty"],
    ["./", "names the folder itself, not a file"],
  ])("refuses %p: %s", (input, reason) => expect(checkRelativePath(input)).toEqual({ ok: false, reason }));

  test("isInside compares whole segments", () => {
    expect(isInside("/a/b", "/a/b/c")).toBe(true);
    expect(isInside("/a/b", "/a/b")).toBe(true);
    expect(isInside("/a/b", "/a/bc")).toBe(false);
  });
});

describe("resolveInside (real folders)", () => {
  test("a file inside resolves; a symlink escaping the folder is refused; a missing file is not found", () => {
    const root = realpathSync(tempDir());
    const base = join(root, "skill");
    write(join(base, "assets/ok.txt"), "ok");
    write(join(root, "secret.txt"), "secret");
    symlinkSync(join(root, "secret.txt"), join(base, "assets/escape.txt"));
    symlinkSync(join(base, "assets/ok.txt"), join(base, "assets/alias.txt"));
    expect(resolveInside(base, "assets/ok.txt")).toMatchObject({ ok: true, path: join(base, "assets/ok.txt") });
    expect(resolveInside(base, "assets/alias.txt")).toMatchObject({ ok: true });
    expect(resolveInside(base, "assets/escape.txt")).toEqual({
      ok: false,
      code: "PATH_OUTSIDE_SKILL",
      reason: "'assets/escape.txt' resolves outside the skill's folder",
    });
    expect(resolveInside(base, "../secret.txt")).toEqual({
      ok: false,
      code: "PATH_OUTSIDE_SKILL",
      reason: "'../secret.txt' contains '..'",
    });
    expect(resolveInside(base, "assets/none.txt")).toEqual({
      ok: false,
      code: "FILE_NOT_FOUND",
      reason: "'assets/none.txt' does not exist",
    });
  });
});

describe("binary detection and MIME types", () => {
  test.each([
    ["a.png", "image/png"],
    ["a.JPG", "image/jpeg"],
    ["a.jpeg", "image/jpeg"],
    ["a.gif", "image/gif"],
    ["a.webp", "image/webp"],
    ["a.svg", "image/svg+xml"],
    ["a.pdf", "application/pdf"],
    ["a.zip", "application/zip"],
    ["a.woff", "font/woff"],
    ["a.woff2", "font/woff2"],
    ["a.ico", "application/octet-stream"],
    ["a.bin", "application/octet-stream"],
  ])("%p → %p", (file, mime) => expect(mimeTypeFor(file)).toBe(mime));

  test("one table for resources and binary answers: text types name text files only", () => {
    expect(mimeTypeFor("SKILL.md")).toBe("text/markdown");
    expect(mimeTypeFor("run.py")).toBe("text/x-python");
    expect(mimeTypeFor("fonts/a.woff2")).toBe("font/woff2");
    // Bytes served as binary from a text-named file (a NUL in a .txt) are not said to be text.
    expect(binaryMimeType("data.txt")).toBe("application/octet-stream");
    expect(binaryMimeType("hero.WEBP")).toBe("image/webp");
  });

  test("binary by extension, or by a NUL byte in the first KiB", () => {
    const text = new TextEncoder().encode("plain text");
    expect(isBinaryFile("x.webp", text)).toBe(true);
    expect(isBinaryFile("x.template", text)).toBe(false);
    expect(isBinaryFile("x.dat", new Uint8Array([65, 0, 66]))).toBe(true);
    const late = new Uint8Array(2048).fill(65);
    late[1500] = 0;
    expect(hasNulByte(late)).toBe(false);
  });

  test("an image a model can view: named PNG, JPEG, GIF or WebP, and its bytes begin as that type does", () => {
    const webp = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBPVP8 ")]);
    expect(isViewableImage("logo.png", png())).toBe(true);
    expect(isViewableImage("PHOTO.JPG", JPEG)).toBe(true);
    expect(isViewableImage("spinner.gif", GIF)).toBe(true);
    expect(isViewableImage("hero.webp", webp)).toBe(true);
    // Misnamed: by the name a PNG is text, or another type; by the bytes a .png is text (a Git LFS pointer).
    expect(isViewableImage("logo.txt", png())).toBe(false);
    expect(isViewableImage("logo.jpg", png())).toBe(false);
    expect(isViewableImage("logo.png", Buffer.from("version https://git-lfs.github.com/spec/v1\n"))).toBe(false);
    expect(isViewableImage("hero.webp", Buffer.from("RIFF\0\0\0\0WAVEfmt "))).toBe(false);
    // Over what a model's API takes for one image (5 MiB of base64), whatever the tool's own limit.
    const huge = Buffer.alloc(MAX_VIEWABLE_IMAGE_BYTES + 1);
    png().copy(huge);
    expect(isViewableImage("huge.png", huge)).toBe(false);
    expect(isViewableImage("huge.png", huge.subarray(0, MAX_VIEWABLE_IMAGE_BYTES))).toBe(true);
    // SVG is text; PDF is not an image.
    expect(isViewableImage("diagram.svg", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe(false);
    expect(isViewableImage("guide.pdf", Buffer.from("%PDF-1.4\n"))).toBe(false);
    expect(isViewableImage("empty.png", new Uint8Array())).toBe(false);
  });
});
