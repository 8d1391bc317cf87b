import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ENVIRON_PART_BYTES, environHolds } from "../../src/exec/process-environ.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** Run a look to its end: whether the entry was found, and how many parts were read before that. */
function look(path: string, entry: string, partBytes?: number): { holds: boolean; pauses: number } {
  const steps = environHolds(path, entry, partBytes);
  let pauses = 0;
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return { holds: step.value, pauses };
    pauses++;
  }
}

const entry = "SKILLHUB_RUN_ID=m1";

describe("environHolds: one whole entry of an environment file, read a part at a time", () => {
  test("found wherever it lies across two parts, at every offset of the cut", () => {
    const dir = tempDir("skillhub-environ-");
    const part = 16;
    for (let before = 0; before <= part + entry.length; before++) {
      const padding = `P=${"x".repeat(before)}`;
      const path = write(join(dir, `environ-${before}`), `${padding}\0${entry}\0Z=1\0`);
      expect({ before, ...look(path, entry, part) }).toMatchObject({ before, holds: true });
    }
  });

  test("a whole entry only: not a longer value, a longer name, nor the entry inside another value", () => {
    const dir = tempDir("skillhub-environ-");
    for (const text of [
      `SKILLHUB_RUN_ID=m10\0`,
      `XSKILLHUB_RUN_ID=m1\0`,
      `A=SKILLHUB_RUN_ID=m1\0`,
      `A=1\0SKILLHUB_RUN_ID=m\0`,
      "",
    ]) {
      const path = write(join(dir, "environ"), text);
      expect({ text, holds: look(path, entry, 4).holds }).toEqual({ text, holds: false });
    }
  });

  test("the first entry, and a last entry without its NUL, count", () => {
    const dir = tempDir("skillhub-environ-");
    expect(look(write(join(dir, "first"), `${entry}\0A=1\0`), entry).holds).toBe(true);
    expect(look(write(join(dir, "last"), `A=1\0${entry}`), entry, 5).holds).toBe(true);
  });

  test("reads stop at the entry; a file without it is read to its end, one part per step", () => {
    const dir = tempDir("skillhub-environ-");
    const big = `BIG=${"A".repeat(4 * ENVIRON_PART_BYTES)}\0`;
    const early = look(write(join(dir, "early"), `${entry}\0${big}`), entry);
    expect(early).toEqual({ holds: true, pauses: 0 });
    const absent = look(write(join(dir, "absent"), big), entry);
    expect(absent.holds).toBe(false);
    expect(absent.pauses).toBe(Math.ceil(big.length / ENVIRON_PART_BYTES));
  });

  test("a file that cannot be opened holds nothing", () => {
    expect(look(join(tempDir("skillhub-environ-"), "missing"), entry).holds).toBe(false);
  });
});
