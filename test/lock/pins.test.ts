import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../src/config/schema.ts";
import { formatLockfile, LOCKFILE_NAME } from "../../src/lock/lockfile.ts";
import { lockedConfigs, pinsFrom } from "../../src/lock/pins.ts";
import { cleanupTemp, tempDir } from "../helpers/fs.ts";
import { TEAM_SPELLINGS } from "../helpers/repo-urls.ts";

afterAll(cleanupTemp);

const team = "https://github.com/org/team";
const commit = "a".repeat(40);
const config = `sha256:${"c".repeat(64)}`;

/** A project folder whose lock records `team` at v1's `commit`, with its config.yaml's digest. */
function projectLock(): { dir: string; file: string } {
  const dir = tempDir("skillhub-pins-");
  const file = join(dir, LOCKFILE_NAME);
  writeFileSync(
    file,
    formatLockfile({ lockfile_version: 1, skills: {}, sources: { team: { url: team, ref: "v1", commit, config } } }),
  );
  return { dir, file };
}

const noFailure = (file: string) => {
  throw new Error(`unexpected failure reading ${file}`);
};

describe("a lock's pin belongs to the repository, however its URL is spelt", () => {
  const spellings = TEAM_SPELLINGS;
  const others = [
    "https://github.com/org/team2",
    "https://gitlab.com/org/team",
    "https://example.com/github.com/org/team",
    "https://github.com:8443/org/team",
  ];

  test("pinsFrom: the label's own entry, and the repository's first entry for another label", () => {
    const { file } = projectLock();
    for (const spelt of spellings) {
      const pins = pinsFrom(
        new Map([
          ["team", { url: spelt, file }],
          ["team-deploy", { url: spelt, file }],
        ]),
        noFailure,
      );
      expect(pins.get("team"), spelt).toEqual({ pin: { ref: "v1", commit } });
      // Another folder's label, which the lock does not record, is not followed past what it reviewed.
      expect(pins.get("team-deploy"), spelt).toEqual({ pin: { ref: "v1", commit } });
    }
    for (const other of others) {
      const pins = pinsFrom(
        new Map([
          ["team", { url: other, file }],
          ["team-2", { url: other, file }],
        ]),
        noFailure,
      );
      // No pin: the URL the lock records under the label, if any (a frozen sync fetches neither).
      expect(Object.fromEntries(pins), other).toEqual({ team: { url: team }, "team-2": {} });
    }
  });

  test("pinsFrom: a repository whose lock is missing or unreadable has no pin, only why; the unreadable one is told", () => {
    const dir = tempDir("skillhub-pins-");
    const corrupt = join(dir, "corrupt.lock");
    writeFileSync(corrupt, "{ not json");
    const failed: string[] = [];
    const pins = pinsFrom(
      new Map([
        ["team", { url: team, file: join(dir, LOCKFILE_NAME) }],
        ["other", { url: team, file: corrupt }],
      ]),
      (file) => failed.push(file),
    );
    expect(pins.get("team")).toEqual({
      noLock: { why: `there is no skillhub.lock at ${join(dir, LOCKFILE_NAME)}`, missing: true },
    });
    expect(pins.get("other")?.noLock?.why).toMatch(/^.*corrupt\.lock is not valid JSON .*[^.]$/);
    expect(pins.get("other")?.pin).toBeUndefined();
    expect(failed).toEqual([corrupt]);
  });

  test("lockedConfigs: a frozen copy's config.yaml digest is the repository's", () => {
    const { dir } = projectLock();
    const settings = {
      git: { repos: [team], branch: "main" },
      lock: {},
      home: join(dir, ".home"),
    } as unknown as Config;
    const place = { projectDir: dir, home: join(dir, ".home"), cwd: dir };
    const copies = [...spellings, ...others].map((url, i) => ({ file: `/copy-${i}/config.yaml`, label: "team", url }));
    const locked = lockedConfigs(settings, place, copies);
    expect(copies.map((c) => [c.url, locked.get(c.file)])).toEqual([
      ...spellings.map((url) => [url, config]),
      ...others.map((url) => [url, null]),
    ]);
  });
});
