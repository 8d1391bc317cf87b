import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { Skill } from "../../../src/skills/skill.ts";
import { readAsset } from "../../../src/tools/support/asset-read.ts";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";

afterAll(cleanupTemp);

/** The owner of the files: an Agent Skill whose folder is `dir`. */
const owner = (dir: string) => ({ kind: "agent-skill", dir, root: dir, location: "explicit", source: "dir1" }) as Skill;

describe("get_asset's bounded reader", () => {
  test("a file that grows between the size check and the read is refused with FILE_TOO_LARGE", () => {
    const dir = tempDir();
    const file = write(join(dir, "grows.txt"), "small\n");
    // The size check sees the small file; the file then grows past the limit before the read (the clock is read in between).
    let grown = false;
    const now = () => {
      if (!grown) appendFileSync(file, "x".repeat(100));
      grown = true;
      return 0;
    };
    const result = readAsset(owner(dir), "grows.txt", 50, { now });
    expect(result).toEqual({
      ok: false,
      code: "FILE_TOO_LARGE",
      message: "'grows.txt' is 51 bytes; get_asset serves at most 50 bytes (assets.max_size_bytes).",
      size: 51,
    });
  });

  test("under, at and over the limit; a file gone since it was located", () => {
    const dir = tempDir();
    write(join(dir, "a.txt"), "x".repeat(50));
    expect(readAsset(owner(dir), "a.txt", 50)).toEqual({ ok: true, size: 50, text: "x".repeat(50), binary: false });
    expect(readAsset(owner(dir), "a.txt", 49)).toMatchObject({ ok: false, code: "FILE_TOO_LARGE", size: 50 });
    expect(readAsset(owner(dir), "gone.txt", 50)).toMatchObject({ ok: false, code: "FILE_NOT_FOUND" });
  });

  test.skipIf(process.platform === "win32")("Security: a FIFO in the file's place is refused without blocking", () => {
    const dir = tempDir();
    expect(Bun.spawnSync(["mkfifo", join(dir, "pipe")]).exitCode).toBe(0);
    expect(readAsset(owner(dir), "pipe", 50)).toMatchObject({ ok: false, code: "NOT_A_REGULAR_FILE" });
  });
});
