import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { readNamedFile, readNamedText } from "../../src/util/named-file.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { notRoot } from "../helpers/runs-here.ts";

afterAll(cleanupTemp);

function fifo(path: string): string {
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  return path;
}

describe("readNamedFile: the bounded reader for files configuration names", () => {
  test("a regular file is read whole (BOM removed), a link to one anywhere too", () => {
    const dir = tempDir("skillhub-nf-");
    const other = tempDir("skillhub-nf-other-");
    write(join(dir, "config.yaml"), "\ufefflog_level: DEBUG\n");
    write(join(other, "shared.yaml"), "a: 1\n");
    symlinkSync(join(other, "shared.yaml"), join(dir, "linked.yaml"));
    expect(readNamedText({ path: join(dir, "config.yaml"), maxBytes: 100 })).toMatchObject({
      ok: true,
      text: "log_level: DEBUG\n",
    });
    expect(readNamedText({ path: join(dir, "linked.yaml"), maxBytes: 100 })).toMatchObject({
      ok: true,
      text: "a: 1\n",
    });
  });

  test("a missing file is `missing`; nothing else is", () => {
    const dir = tempDir("skillhub-nf-");
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
    expect(readNamedFile({ path: join(dir, "nope"), maxBytes: 10 })).toMatchObject({ ok: false, missing: true });
    expect(readNamedFile({ path: join(dir, "dangling"), maxBytes: 10 })).toMatchObject({ ok: false, missing: true });
    expect(readNamedFile({ path: dir, maxBytes: 10 })).toMatchObject({
      ok: false,
      missing: false,
      code: "NOT_A_REGULAR_FILE",
      reason: `'${dir}' is a folder, not a regular file.`,
    });
  });

  test("a FIFO, a link to one, /dev/zero and /dev/stdin are refused at once, naming the file and what it is", () => {
    const dir = tempDir("skillhub-nf-");
    const pipe = fifo(join(dir, "pipe.json"));
    symlinkSync(pipe, join(dir, "to-pipe.json"));
    symlinkSync("/dev/zero", join(dir, "zero.yaml"));
    symlinkSync("/dev/null", join(dir, "null.yaml"));
    // Nothing writes to the FIFO: a blocking open would never return (the test would time out).
    for (const name of ["pipe.json", "to-pipe.json"])
      expect(readNamedFile({ path: join(dir, name), maxBytes: 10 })).toMatchObject({
        ok: false,
        code: "NOT_A_REGULAR_FILE",
        reason: `'${join(dir, name)}' is a FIFO (named pipe), not a regular file.`,
        missing: false,
      });
    for (const name of ["zero.yaml", "null.yaml"])
      expect(readNamedFile({ path: join(dir, name), maxBytes: 10 })).toMatchObject({
        ok: false,
        code: "NOT_A_REGULAR_FILE",
        reason: `'${join(dir, name)}' is a character device, not a regular file.`,
      });
    // The test runner's stdin (a pipe or a terminal): never read, so nothing is taken from it.
    const stdin = readNamedFile({ path: "/dev/stdin", maxBytes: 10 });
    expect(stdin).toMatchObject({ ok: false });
    expect(stdin.ok || stdin.code).toBe("NOT_A_REGULAR_FILE");
  });

  test("size cap: refused past it with the size, or cut with overflow truncate", () => {
    const dir = tempDir("skillhub-nf-");
    const big = write(join(dir, "big.jsonl"), "x".repeat(1000));
    expect(readNamedFile({ path: big, maxBytes: 100 })).toMatchObject({
      ok: false,
      code: "FILE_TOO_LARGE",
      size: 1000,
      reason: `'${big}' is 1000 bytes; the limit is 100.`,
    });
    const cut = readNamedFile({ path: big, maxBytes: 100, overflow: "truncate" });
    expect(cut).toMatchObject({ ok: true, truncated: true, size: 1000 });
    expect(cut.ok && cut.bytes.length).toBe(100);
  });

  test("within: the opened file must resolve inside the folder (real paths)", () => {
    const repo = tempDir("skillhub-nf-repo-");
    const outside = tempDir("skillhub-nf-out-");
    write(join(outside, "secrets.yaml"), "token: x\n");
    write(join(repo, "skills/inner.yaml"), "a: 1\n");
    symlinkSync(join(outside, "secrets.yaml"), join(repo, "config.yaml"));
    symlinkSync(join(repo, "skills/inner.yaml"), join(repo, "inner.yaml"));
    expect(readNamedFile({ path: join(repo, "config.yaml"), maxBytes: 100, within: repo })).toMatchObject({
      ok: false,
      code: "PATH_OUTSIDE_FOLDER",
      missing: false,
    });
    expect(readNamedText({ path: join(repo, "inner.yaml"), maxBytes: 100, within: repo })).toMatchObject({
      ok: true,
      text: "a: 1\n",
    });
    // The folder itself reached through a link: compared by real paths.
    const alias = join(tempDir("skillhub-nf-alias-"), "repo");
    symlinkSync(repo, alias);
    expect(readNamedFile({ path: join(alias, "inner.yaml"), maxBytes: 100, within: alias })).toMatchObject({
      ok: true,
    });
  });

  test("a read over its time budget is READ_TIMEOUT", () => {
    const dir = tempDir("skillhub-nf-");
    const slow = write(join(dir, "slow.jsonl"), "y".repeat(300_000));
    let t = 0;
    expect(
      readNamedFile({ path: slow, maxBytes: 1_000_000, timeBudgetMs: 1500, now: () => (t += 1000) }),
    ).toMatchObject({ ok: false, code: "READ_TIMEOUT" });
  });

  test.skipIf(!notRoot())("an unreadable file is PERMISSION_DENIED, not missing", () => {
    const dir = tempDir("skillhub-nf-");
    mkdirSync(join(dir, "locked"), { mode: 0o000 });
    expect(readNamedFile({ path: join(dir, "locked", "x.yaml"), maxBytes: 10 })).toMatchObject({
      ok: false,
      code: "PERMISSION_DENIED",
      missing: false,
    });
  });
});
