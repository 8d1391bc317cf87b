import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { GitSync } from "../../../src/refresh/git/git-sync.ts";
import { createMemoryLogger } from "../../../src/util/logger.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { fakeGit } from "../../helpers/fake-git.ts";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, skillText } from "../../helpers/git.ts";
import { HANG_MS, within } from "../../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/**
 * The real git behind a wrapper that notes when two network commands run at
 * once (a `mkdir` taken for 0.4 s around each clone and fetch).
 */
function overlapDetector() {
  return fakeGit(
    [
      'case "$1" in clone|fetch)',
      '  mkdir "$FAKE_GIT_DIR/busy" 2>/dev/null || echo "$1" >> "$FAKE_GIT_DIR/overlaps"',
      "  sleep 0.4",
      '  "$REAL_GIT" "$@"; code=$?',
      '  rmdir "$FAKE_GIT_DIR/busy" 2>/dev/null',
      "  exit $code;;",
      "esac",
      'exec "$REAL_GIT" "$@"',
    ].join("\n"),
  );
}

function gitSync(
  home: string,
  url: string,
  env: Record<string, string | undefined>,
  extra: Partial<ConstructorParameters<typeof GitSync>[0]> = {},
) {
  const sync = new GitSync({
    repos: [url],
    branch: "main",
    home,
    logger: createMemoryLogger(),
    intervalMs: 0,
    runner: { env },
    ...extra,
  });
  closers.push(() => sync.close());
  return sync;
}

describe("one sync of a copy at a time across SkillHub processes", () => {
  test("two GitSync instances on one home never run git on the copy at once; both end up at the remote's tip", async () => {
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    const home = tempDir("skillhub-home-");
    const wrapper = overlapDetector();
    // Each waits for the other as long as it takes (a loaded machine can hold a clone for seconds).
    const a = gitSync(home, remote.url, wrapper.env, { lockWaitMs: HANG_MS });
    const b = gitSync(home, remote.url, wrapper.env, { lockWaitMs: HANG_MS });
    const first = await Promise.all([a.refresh("a"), b.refresh("b")]);
    expect(first.map((o) => o.success)).toEqual([true, true]);
    remote.write("skills/beta/SKILL.md", skillText("beta"));
    const tip = remote.push("add beta");
    const second = await Promise.all([a.refresh("a"), b.refresh("b")]);
    expect(second.map((o) => o.success)).toEqual([true, true]);
    expect(second.map((o) => o.repos[0]?.commit_hash)).toEqual([tip, tip]);
    expect(second.filter((o) => o.changed)).toHaveLength(1);
    expect(wrapper.lines("overlaps")).toEqual([]);
    const copy = a.targets[0]?.dir ?? "";
    expect(git(["rev-parse", "HEAD"], copy)).toBe(tip);
    expect(git(["status", "--porcelain"], copy)).toBe("");
    expect(existsSync(`${copy}.lock`)).toBe(false);
  });

  test("a copy locked by another live SkillHub: a short wait, then a clear 'another SkillHub is syncing' result", async () => {
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    const home = tempDir("skillhub-home-");
    const other = Bun.spawn(["sleep", "300"]);
    closers.push(() => other.kill("SIGKILL"));
    const sync = gitSync(home, remote.url, GIT_ENV, { lockWaitMs: 200 });
    const copy = sync.targets[0]?.dir ?? "";
    write(`${copy}.lock`, `${other.pid}\n`);
    // The other SkillHub (sleep 300) never lets go: returning at all means the 200 ms wait gave up.
    const outcome = await within(sync.refresh("test"), "a sync waiting for the lock");
    expect(outcome.success).toBe(false);
    expect(outcome.repos[0]?.error?.code).toBe("GIT_LOCKED");
    expect(outcome.repos[0]?.error?.message).toContain(`another SkillHub (pid ${other.pid}) is syncing`);
    expect(existsSync(join(copy, ".git"))).toBe(false);
    expect(existsSync(`${copy}.lock`)).toBe(true);
  });

  test("a stale lock (its process is gone, or it is older than a few minutes) is taken over", async () => {
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    const home = tempDir("skillhub-home-");
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const sync = gitSync(home, remote.url, GIT_ENV, { lockWaitMs: 200 });
    const copy = sync.targets[0]?.dir ?? "";
    write(`${copy}.lock`, `${gone.pid}\n`);
    expect((await sync.refresh("dead holder")).success).toBe(true);
    expect(existsSync(`${copy}.lock`)).toBe(false);
    const live = Bun.spawn(["sleep", "300"]);
    closers.push(() => live.kill("SIGKILL"));
    write(`${copy}.lock`, `${live.pid}\n`);
    const old = (Date.now() - 3_600_000) / 1000;
    utimesSync(`${copy}.lock`, old, old);
    expect((await sync.refresh("old lock")).success).toBe(true);
    expect(existsSync(`${copy}.lock`)).toBe(false);
  });
});
