import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { readConfined, readConfinedText } from "../../src/util/confined-read.ts";
import { readConfinedChunks } from "../../src/util/confined-stream.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

function world() {
  const outside = tempDir("skillhub-cr-out-");
  write(join(outside, "secret.txt"), "SECRET\n");
  const root = tempDir("skillhub-cr-");
  write(join(root, "a.txt"), "hello\n");
  write(join(root, "sub/b.txt"), "b\n");
  symlinkSync(join(root, "a.txt"), join(root, "alias.txt"));
  symlinkSync(join(outside, "secret.txt"), join(root, "escape.txt"));
  symlinkSync(outside, join(root, "outdir"));
  return { root, outside };
}

describe("readConfined", () => {
  test("a file inside: bytes, size, sha256 of what was read; a link that stays inside is fine", () => {
    const { root } = world();
    const read = readConfined({ root, file: "a.txt" });
    expect(read).toMatchObject({ ok: true, size: 6, truncated: false });
    if (!read.ok) throw new Error("unreachable");
    expect(read.bytes.toString()).toBe("hello\n");
    expect(read.sha256).toBe(createHash("sha256").update("hello\n").digest("hex"));
    expect(readConfinedText({ root, file: "alias.txt" })).toMatchObject({ ok: true, text: "hello\n" });
  });

  test("every way out is PATH_OUTSIDE_SKILL: links to a file or a folder outside, '..', absolute, NUL", () => {
    const { root } = world();
    for (const file of ["escape.txt", "outdir/secret.txt", "../x", "/etc/passwd", "a\0b", "C:\\x"])
      expect(readConfined({ root, file })).toMatchObject({ ok: false, code: "PATH_OUTSIDE_SKILL" });
  });

  test("missing, folder, FIFO, device link: FILE_NOT_FOUND, FILE_NOT_FOUND, NOT_A_REGULAR_FILE, PATH_OUTSIDE_SKILL", () => {
    const { root } = world();
    mkdirSync(join(root, "folder"));
    expect(Bun.spawnSync(["mkfifo", join(root, "pipe")]).exitCode).toBe(0);
    symlinkSync("/dev/zero", join(root, "zero"));
    expect(readConfined({ root, file: "nope" })).toMatchObject({ ok: false, code: "FILE_NOT_FOUND" });
    expect(readConfined({ root, file: "folder" })).toMatchObject({ ok: false, code: "FILE_NOT_FOUND" });
    expect(readConfined({ root, file: "pipe" })).toMatchObject({ ok: false, code: "NOT_A_REGULAR_FILE" });
    expect(readConfined({ root, file: "zero" })).toMatchObject({ ok: false, code: "PATH_OUTSIDE_SKILL" });
  });

  test("size cap: refuse (FILE_TOO_LARGE with the size) or truncate", () => {
    const { root } = world();
    write(join(root, "big.txt"), "x".repeat(100));
    expect(readConfined({ root, file: "big.txt", maxBytes: 10 })).toMatchObject({
      ok: false,
      code: "FILE_TOO_LARGE",
      size: 100,
    });
    const cut = readConfined({ root, file: "big.txt", maxBytes: 10, overflow: "truncate" });
    expect(cut).toMatchObject({ ok: true, size: 100, truncated: true });
    expect(cut.ok && cut.bytes.length).toBe(10);
  });

  test("a read over its time budget is READ_TIMEOUT, not a hang", () => {
    const { root } = world();
    write(join(root, "slow.txt"), "y".repeat(200_000));
    let t = 0;
    const now = () => (t += 1000);
    expect(readConfined({ root, file: "slow.txt", timeBudgetMs: 1500, now })).toMatchObject({
      ok: false,
      code: "READ_TIMEOUT",
    });
  });
});

describe("the hooks an answer's budget counts with", () => {
  test("beforeRead is told the size before any byte, onRead each chunk at its offset; a throw from either stops the read there", () => {
    const { root } = world();
    const text = "z".repeat(200_000);
    write(join(root, "big.txt"), text);
    class Stop extends Error {}
    for (const read of [
      (hooks: object) => readConfined({ root, file: "big.txt", ...hooks }),
      (hooks: object) => readConfinedChunks({ root, file: "big.txt", ...hooks }, () => true),
    ]) {
      const seen: string[] = [];
      const chunks: Buffer[] = [];
      read({
        beforeRead: (size: number) => seen.push(`size ${size}`),
        onRead: (bytes: Uint8Array, at: number) => {
          seen.push(`${at}+${bytes.length}`);
          chunks.push(Buffer.from(bytes));
        },
      });
      expect(seen).toEqual(["size 200000", "0+65536", "65536+65536", "131072+65536", "196608+3392"]);
      expect(Buffer.concat(chunks).toString()).toBe(text);
      const stop = () => {
        throw new Stop();
      };
      expect(() => read({ beforeRead: stop, onRead: () => expect.unreachable() })).toThrow(Stop);
      const after: number[] = [];
      const atSecond = (_: Uint8Array, at: number) => {
        after.push(at);
        if (at > 0) stop();
      };
      expect(() => read({ onRead: atSecond })).toThrow(Stop);
      expect(after).toEqual([0, 65_536]);
    }
  });
});

describe("readConfinedChunks (the search index's streamed read)", () => {
  test("the same checks as readConfined: every way out, a FIFO, a missing file", () => {
    const { root } = world();
    expect(Bun.spawnSync(["mkfifo", join(root, "pipe")]).exitCode).toBe(0);
    const never = () => {
      throw new Error("no byte may be read");
    };
    for (const file of ["escape.txt", "outdir/secret.txt", "../x", "/etc/passwd", "a\0b"])
      expect(readConfinedChunks({ root, file }, never)).toMatchObject({ ok: false, code: "PATH_OUTSIDE_SKILL" });
    expect(readConfinedChunks({ root, file: "pipe" }, never)).toMatchObject({ ok: false, code: "NOT_A_REGULAR_FILE" });
    expect(readConfinedChunks({ root, file: "nope" }, never)).toMatchObject({ ok: false, code: "FILE_NOT_FOUND" });
  });

  test("a large file arrives in chunks of at most 64 KiB, whole, and stops at maxBytes or when asked", () => {
    const { root } = world();
    const text = Array.from({ length: 30_000 }, (_, i) => `line ${i}\n`).join("");
    write(join(root, "big.md"), text);
    const chunks: string[] = [];
    const read = readConfinedChunks({ root, file: "big.md" }, (bytes) => {
      expect(bytes.length).toBeLessThanOrEqual(65_536);
      chunks.push(Buffer.from(bytes).toString());
      return true;
    });
    expect(read).toMatchObject({ ok: true, read: text.length, size: text.length, truncated: false });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe(text);
    let got = 0;
    expect(
      readConfinedChunks({ root, file: "big.md", maxBytes: 100_000 }, (bytes) => {
        got += bytes.length;
        return true;
      }),
    ).toMatchObject({ ok: true, read: 100_000, truncated: true });
    expect(got).toBe(100_000);
    let calls = 0;
    expect(readConfinedChunks({ root, file: "big.md" }, () => ++calls < 2)).toMatchObject({
      ok: true,
      read: 131_072,
      truncated: true,
    });
  });
});
