import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, renameSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { ConfigFileEdit, type FileLockDeps, type HeldLock, lockFile } from "../../src/config/config-edit.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);

/** A lock file left by a command that crashed a minute ago. */
function staleLock(dir: string): string {
  const lock = write(join(dir, "config.yaml.lock"), "");
  const minuteAgo = new Date(Date.now() - 60_000);
  utimesSync(lock, minuteAgo, minuteAgo);
  return lock;
}

/** A clock that moves only when the lock waits: a wait of 10 s costs none. */
function fakeClock(): FileLockDeps {
  let now = Date.now();
  return { now: () => now, sleep: (ms) => void (now += ms) };
}

describe("the lock of a config file being changed", () => {
  test("a stale lock is taken over: the command runs, and nothing is left beside the file", () => {
    const dir = tempDir("skillhub-edit-lock-");
    const lock = staleLock(dir);
    const file = join(dir, "config.yaml");
    const added = ConfigFileEdit.update(file, "# SkillHub", undefined, (edit) => {
      expect(existsSync(lock)).toBe(true);
      edit.addDir("/srv/skills");
      return edit.dirs();
    });
    expect(added).toEqual(["/srv/skills"]);
    expect(readFileSync(file, "utf8")).toContain("- /srv/skills");
    expect(readdirSync(dir)).toEqual(["config.yaml"]);
  });

  test("two commands waiting on one stale lock: only the first to take it over holds it", () => {
    const dir = tempDir("skillhub-edit-lock-race-");
    const lock = staleLock(dir);
    const clock = fakeClock();
    let first: HeldLock | undefined;
    // The second command has seen the lock stale; before it takes it over, the first takes it over and holds it.
    const second = () =>
      lockFile(lock, {
        ...clock,
        onStale: () => {
          first ??= lockFile(lock, clock);
        },
      });
    expect(second).toThrow(`another skillhub command is changing this file (${lock} exists)`);
    expect(first?.held()).toBe(true);
    first?.release();
    expect(readdirSync(dir)).toEqual([]);
    // Free again: the next command takes it at once.
    const next = lockFile(lock, clock);
    expect(next.held()).toBe(true);
    next.release();
    expect(existsSync(lock)).toBe(false);
  });

  test("a command whose lock was taken over while it ran writes nothing, and leaves the new holder's lock", () => {
    const dir = tempDir("skillhub-edit-lock-lost-");
    const file = write(join(dir, "config.yaml"), "sources:\n  dirs: []\n");
    const lock = `${file}.lock`;
    expect(() =>
      ConfigFileEdit.update(file, "# SkillHub", undefined, (edit) => {
        // Another command found this one's lock stale, took it over and holds it now (a file of its own).
        renameSync(write(`${lock}.other`, ""), lock);
        edit.addDir("/srv/skills");
      }),
    ).toThrow(`${file} was not changed: this command held ${lock} so long that another took it over; run it again.`);
    expect(readFileSync(file, "utf8")).toBe("sources:\n  dirs: []\n");
    expect(existsSync(lock)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["config.yaml", "config.yaml.lock"]);
  });
});
