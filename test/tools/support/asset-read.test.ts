import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, closeSync, fstatSync, openSync } from "node:fs";
import { join } from "node:path";
import { readAsset, readAtMost } from "../../../src/tools/support/asset-read.ts";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";

afterAll(cleanupTemp);

describe("get_asset's bounded reader", () => {
  test("readAtMost reads up to the limit and stops there, or at end of file", () => {
    const file = write(join(tempDir(), "data.txt"), "0123456789".repeat(10));
    const fd = openSync(file, "r");
    try {
      expect(readAtMost(fd, 11).toString()).toBe("01234567890");
      expect(readAtMost(fd, 100).length).toBe(100);
      expect(readAtMost(fd, 1000).length).toBe(100);
      expect(readAtMost(fd, 0).length).toBe(0);
      // A stale expected size (the file was 5 bytes when checked): the buffer grows, never past the limit.
      expect(readAtMost(fd, 51, 5).toString()).toBe("0123456789".repeat(5).concat("0"));
      expect(readAtMost(fd, 1000, 5).length).toBe(100);
    } finally {
      closeSync(fd);
    }
  });

  test("a file that grows between the size check and the read is refused with FILE_TOO_LARGE", () => {
    const file = write(join(tempDir(), "grows.txt"), "small\n");
    // The check sees the small file; the file then grows past the limit before the read.
    const growing = {
      fstat: (fd: number) => {
        const before = fstatSync(fd);
        appendFileSync(file, "x".repeat(100));
        return before;
      },
    };
    const result = readAsset(file, "grows.txt", 50, growing);
    expect(result).toEqual({
      ok: false,
      code: "FILE_TOO_LARGE",
      message: "'grows.txt' is 106 bytes; get_asset serves at most 50 bytes (assets.max_size_bytes).",
      size: 106,
    });
  });

  test("under, at and over the limit; a file gone since it was located", () => {
    const dir = tempDir();
    const file = write(join(dir, "a.txt"), "x".repeat(50));
    expect(readAsset(file, "a.txt", 50)).toEqual({ ok: true, size: 50, text: "x".repeat(50), binary: false });
    expect(readAsset(file, "a.txt", 49)).toMatchObject({ ok: false, code: "FILE_TOO_LARGE", size: 50 });
    expect(readAsset(join(dir, "gone.txt"), "gone.txt", 50)).toMatchObject({ ok: false, code: "FILE_NOT_FOUND" });
  });

  test.skipIf(process.platform === "win32")("Security: a FIFO in the file's place is refused without blocking", () => {
    const fifo = join(tempDir(), "pipe");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    expect(readAsset(fifo, "pipe", 50)).toMatchObject({ ok: false, code: "FILE_NOT_FOUND" });
  });
});
