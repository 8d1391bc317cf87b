import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { GIT_ENV, git, type Remote, remoteRepo, selfSignedCert, skillText } from "../../helpers/git.ts";
import { projectRoot, serveGitHttps } from "../../helpers/git-http.ts";
import { connect } from "../../helpers/hub.ts";
import { cli, type Machine, machine } from "../../lock/cli.ts";

afterAll(cleanupTemp);

/** The team's repository, its skill `alpha` saying `text`, and the settings that serve it (tag `tag` pinned). */
function team(text?: string, tag?: string): { remote: Remote; env: Record<string, string> } {
  const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", text) });
  if (!tag) return { remote, env: { SKILLS_REPO: remote.url } };
  git(["tag", tag], remote.work);
  git(["push", "--quiet", "origin", tag], remote.work);
  return { remote, env: { SKILLS_REPO: remote.url, SKILLS_REF: tag } };
}

/** The machine's copy of the repository (its only one), or undefined when there is none. */
function copyOf(m: Machine): string | undefined {
  const repos = join(m.home, ".skillhub", "repos");
  const slug = existsSync(repos) ? readdirSync(repos).find((n) => !n.startsWith(".")) : undefined;
  return slug ? join(repos, slug) : undefined;
}

function copyHead(m: Machine): string {
  return git(["rev-parse", "HEAD"], copyOf(m) as string);
}

/** `m`'s lock with `edit` applied to its team source, written to `to`'s project (a project cloned with that lock). */
function copyLock(m: Machine, to: Machine, edit: (source: Record<string, string>) => void = () => {}): void {
  const lock = JSON.parse(readFileSync(m.lock, "utf8"));
  edit(lock.sources.team);
  writeFileSync(to.lock, `${JSON.stringify(lock, null, 2)}\n`);
}

/** The first repository's error of a `sync --json`. */
function errorOf(result: { out: string }): { code: string; message: string } | undefined {
  return JSON.parse(result.out).repos[0].error;
}

/**
 * A fork of `remote` with one commit more, adding `skills/evil/SKILL.md`; its commit. As on GitHub, the
 * fork's objects are the repository's too (alternates), and the server hands out any object by its hash,
 * although no branch or tag of the repository reaches it.
 */
function forkCommit(remote: Remote): string {
  const root = tempDir("skillhub-fork-");
  const fork = join(root, "fork.git");
  const work = join(root, "work");
  git(["clone", "--quiet", "--bare", remote.bare, fork]);
  git(["clone", "--quiet", fork, work]);
  write(join(work, "skills/evil/SKILL.md"), skillText("evil", "Runs the fork's scripts."));
  git(["add", "-A"], work);
  git(["commit", "--quiet", "-m", "fork"], work);
  git(["push", "--quiet", "origin", "main"], work);
  appendFileSync(join(remote.bare, "objects", "info", "alternates"), `${join(fork, "objects")}\n`);
  git(["config", "uploadpack.allowAnySHA1InWant", "true"], remote.bare);
  return git(["rev-parse", "HEAD"], work);
}

/** Whether `commit` can be fetched by its hash from `remote` (the premise of a fork's commit). */
function servedByHash(remote: Remote, commit: string): boolean {
  const scratch = tempDir("skillhub-scratch-");
  git(["init", "--quiet", scratch]);
  git(["fetch", "--quiet", "--depth", "1", remote.url, commit], scratch);
  return git(["cat-file", "-t", commit], scratch) === "commit";
}

/** Commit everything in the remote's working clone dated `days` from now, push it; its hash. */
function pushDated(remote: Remote, message: string, days: number): string {
  const when = `@${Math.floor(Date.now() / 1000) + days * 86_400} +0000`;
  git(["add", "-A"], remote.work);
  const env = { ...GIT_ENV, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when };
  const made = Bun.spawnSync(["git", "commit", "--quiet", "--allow-empty", "-m", message], {
    cwd: remote.work,
    env,
    stderr: "pipe",
  });
  if (made.exitCode !== 0) throw new Error(`git commit failed: ${made.stderr.toString()}`);
  git(["push", "--quiet", "origin", "HEAD"], remote.work);
  return git(["rev-parse", "HEAD"], remote.work);
}

/** Rewrite the branch's last commit (`alpha` says "Rewritten.") and force-push it: the old one is dropped. */
function forcePush(remote: Remote): void {
  remote.write("skills/alpha/SKILL.md", skillText("alpha", "Rewritten."));
  git(["add", "-A"], remote.work);
  git(["commit", "--quiet", "--amend", "-m", "rewritten"], remote.work);
  git(["push", "--quiet", "--force", "origin", "main"], remote.work);
}

/** Take `remote` off the network (its bare repository moved away); the function brings it back. */
function offline(remote: Remote): () => void {
  const away = `${remote.bare}.away`;
  renameSync(remote.bare, away);
  return () => renameSync(away, remote.bare);
}

const notInBranch = (remote: Remote, commit: string, moved = "the branch was force-pushed") =>
  `commit ${commit.slice(0, 12)} recorded in skillhub.lock is not in the history of branch 'main' of ${remote.url} (a commit from a fork, or ${moved}): review it, then run \`skillhub sync --update team\` to lock the current branch 'main'.`;

const movedAway = (remote: Remote, commit: string) =>
  `branch 'main' of ${remote.url} was force-pushed away from commit ${commit.slice(0, 12)} recorded in skillhub.lock: that commit, which the branch reached when SkillHub last fetched it, is still served; review the current branch 'main', then run \`skillhub sync --update team\` to lock it.`;

describe("a lock's commit is checked out only when the configured branch or tag reaches it", () => {
  test("a fork's commit, which the server hands out by its hash, is refused on a fresh machine", async () => {
    const { remote, env } = team();
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    const fork = forkCommit(remote);
    expect(servedByHash(remote, fork)).toBe(true);

    const cloned = machine();
    copyLock(reviewer, cloned, (source) => (source.commit = fork));
    const frozen = await cli(cloned, ["sync", "--frozen", "--json"], env);
    expect(frozen.code).toBe(1);
    expect(errorOf(frozen)).toEqual({
      code: "GIT_COMMIT_NOT_IN_REF",
      message: notInBranch(remote, fork),
    });
    expect(copyOf(cloned)).toBeUndefined();
  });

  test("a commit of another branch is refused; an older commit of the branch is accepted", async () => {
    const { remote, env } = team("First.");
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    const older = JSON.parse(readFileSync(reviewer.lock, "utf8")).sources.team.commit;
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Second."));
    remote.push("second");
    git(["checkout", "--quiet", "-b", "feature"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Unreviewed feature."));
    const feature = remote.push("feature");
    git(["push", "--quiet", "origin", "feature"], remote.work);

    const other = machine();
    copyLock(reviewer, other, (source) => (source.commit = feature));
    const refused = await cli(other, ["sync", "--frozen", "--json"], env);
    expect(errorOf(refused)?.code).toBe("GIT_COMMIT_NOT_IN_REF");
    expect(errorOf(refused)?.message).toBe(notInBranch(remote, feature));
    expect(copyOf(other)).toBeUndefined();

    const teammate = machine();
    copyLock(reviewer, teammate);
    const accepted = await cli(teammate, ["sync", "--frozen"], env);
    expect(accepted.code).toBe(0);
    expect(copyHead(teammate)).toBe(older);
  });

  test("a first copy fetches the locked commit alone, and none of the branch's files", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "First.") });
    const initial = git(["rev-parse", "HEAD"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Second."));
    const second = pushDated(remote, "second", 10);
    const env = { SKILLS_REPO: remote.url };
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    expect(copyHead(reviewer)).toBe(second);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Third."));
    const third = pushDated(remote, "third", 20);

    const teammate = machine();
    copyLock(reviewer, teammate);
    expect((await cli(teammate, ["sync", "--frozen"], env)).code).toBe(0);
    const copy = copyOf(teammate) as string;
    expect(copyHead(teammate)).toBe(second);
    expect(existsSync(join(copy, ".git", "shallow"))).toBe(true);
    // The branch's history is checked elsewhere (a scratch repository, removed): the copy holds the
    // locked commit alone, neither the tip nor the commit before it.
    for (const other of [third, initial])
      expect(Bun.spawnSync(["git", "cat-file", "-e", other], { cwd: copy, env: GIT_ENV }).exitCode).not.toBe(0);
    expect(readdirSync(join(teammate.home, ".skillhub", "repos")).filter((n) => n.startsWith("."))).toEqual([]);
  });

  test("a copy made at the tip accepts a lock of an older commit of the branch (its history fetched)", async () => {
    const { remote, env } = team("First.");
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    const older = copyHead(reviewer);
    for (const n of [2, 3]) {
      remote.write("skills/alpha/SKILL.md", skillText("alpha", `Version ${n}.`));
      remote.push(`v${n}`);
    }
    const teammate = machine();
    expect((await cli(teammate, ["sync"], env)).code).toBe(0);
    expect(copyHead(teammate)).not.toBe(older);
    copyLock(reviewer, teammate);
    const frozen = await cli(teammate, ["sync", "--frozen"], env);
    expect(frozen.code).toBe(0);
    expect(copyHead(teammate)).toBe(older);
  });

  test("a pinned tag: its older commit is accepted, a commit it never reached is refused", async () => {
    const { remote, env } = team("Tagged.", "v1");
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    const tagged = copyHead(reviewer);
    // The tag moves on: its old commit is still in its history.
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Tag moved on."));
    remote.push("moved");
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);
    const teammate = machine();
    copyLock(reviewer, teammate);
    expect((await cli(teammate, ["sync"], env)).code).toBe(0);
    expect(copyHead(teammate)).toBe(tagged);

    const fork = forkCommit(remote);
    const cloned = machine();
    copyLock(reviewer, cloned, (source) => (source.commit = fork));
    const refused = await cli(cloned, ["sync", "--json"], env);
    expect(refused.code).toBe(1);
    expect(errorOf(refused)).toEqual({
      code: "GIT_COMMIT_NOT_IN_REF",
      message: `commit ${fork.slice(0, 12)} recorded in skillhub.lock is not in the history of tag 'v1' of ${remote.url} (a commit from a fork, or the tag moved): review it, then run \`skillhub sync --update team\` to lock the current tag 'v1'.`,
    });
    expect(copyOf(cloned)).toBeUndefined();
  });

  test("a full commit hash pinned in the configuration is checked out, whatever commit the lock records for it", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const pinned = git(["rev-parse", "HEAD"], remote.work);
    const env = { SKILLS_REPO: remote.url, SKILLS_REF: pinned };
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    const fork = forkCommit(remote);
    const cloned = machine();
    copyLock(reviewer, cloned, (source) => (source.commit = fork));
    const synced = await cli(cloned, ["sync", "--frozen", "--json"], env);
    expect(JSON.parse(synced.out).repos[0]).toMatchObject({ success: true, commit_hash: pinned });
    expect(copyHead(cloned)).toBe(pinned);
  });

  test("a copy keeps serving its own commit of the branch when the lock names a fork's", async () => {
    const { remote, env } = team();
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const reviewed = copyHead(m);
    const fork = forkCommit(remote);
    copyLock(m, m, (source) => (source.commit = fork));
    const frozen = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(errorOf(frozen)).toEqual({ code: "GIT_COMMIT_NOT_IN_REF", message: notInBranch(remote, fork) });
    expect(copyHead(m)).toBe(reviewed);
    expect(JSON.parse(frozen.out).repos[0].served).toBe(true);
  });
});

describe("a copy at a commit its branch does not reach is not served", () => {
  test("a frozen server whose copy is at a fork's commit (and whose lock records it) removes the copy", async () => {
    const { remote, env } = team();
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    // As an earlier SkillHub left it: the fork's commit checked out, the lock written from it.
    const fork = forkCommit(remote);
    const copy = copyOf(m) as string;
    git(["fetch", "--quiet", remote.url, fork], copy);
    git(["checkout", "--quiet", "--detach", fork], copy);
    expect((await cli(m, ["lock"], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).skills["team:evil"]).toBeDefined();

    const s = await connect({
      home: m.home,
      cwd: m.project,
      env: { ...env, SKILLHUB_FROZEN: "1" },
      flags: { project: m.project },
      hub: { env: GIT_ENV, git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    try {
      expect(copyOf(m)).toBeUndefined();
      expect(s.hub.catalog.get("evil")).toBeUndefined();
      expect(s.logger.lines.join("\n")).toContain(
        `${notInBranch(remote, fork)} The copy in ${copy}, at commit ${fork.slice(0, 12)}, which is not in that history either, was removed.`,
      );
      const again = await s.call("refresh_skills", {});
      expect(JSON.stringify(again)).toContain("GIT_COMMIT_NOT_IN_REF");
      expect(s.hub.catalog.get("evil")).toBeUndefined();
      expect(copyOf(m)).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});

describe("offline, the locked commit is taken when the branch or tag, as the copy last fetched it, reaches it", () => {
  test("a second frozen sync succeeds offline at the locked commit, on a first copy's machine and the reviewer's", async () => {
    const { remote, env } = team();
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    const locked = copyHead(reviewer);
    const teammate = machine();
    copyLock(reviewer, teammate);
    expect((await cli(teammate, ["sync", "--frozen"], env)).code).toBe(0);

    offline(remote);
    for (const m of [teammate, reviewer]) {
      const again = await cli(m, ["sync", "--frozen", "--json"], env);
      expect(again.code, again.out + again.err).toBe(0);
      expect(JSON.parse(again.out).repos[0]).toMatchObject({ success: true, commit_hash: locked });
      expect(copyHead(m)).toBe(locked);
    }
  });

  const tls = selfSignedCert();
  test.skipIf(!tls)(
    "a remote that refuses the credentials a frozen sync has (none) serves the locked commit the copy holds",
    async () => {
      const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
      const token = "ghp_FAKEtoken0123456789abcdefSECRET";
      const basic = `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
      const http = serveGitHttps(projectRoot(remote.bare), tls as { cert: string; key: string }, (h) => h === basic);
      try {
        const env = { SKILLS_REPO: `${http.base}team.git`, GIT_SSL_NO_VERIFY: "1" };
        const m = machine();
        expect((await cli(m, ["sync"], { ...env, GITHUB_TOKEN: token })).code).toBe(0);
        const locked = copyHead(m);
        remote.write("skills/alpha/SKILL.md", skillText("alpha", "Not reviewed."));
        remote.push("later");

        // No token here (CI without the secret, a teammate without access): the copy already holds the commit.
        const frozen = await cli(m, ["sync", "--frozen", "--json"], env);
        expect(frozen.code, frozen.out + frozen.err).toBe(0);
        expect(JSON.parse(frozen.out).repos[0]).toMatchObject({ success: true, commit_hash: locked });
        expect(frozen.err).toContain(
          `sync: ${env.SKILLS_REPO} refused access: commit ${locked.slice(0, 12)} checked against branch 'main' as last fetched…`,
        );
        expect(copyHead(m)).toBe(locked);
        // A plain sync follows the branch, which it cannot read: it fails as before.
        const plain = await cli(m, ["sync", "--json"], env);
        expect(plain.code).toBe(1);
        expect(errorOf(plain)?.code).toBe("GIT_AUTH_FAILED");
      } finally {
        http.stop();
      }
    },
  );

  test("a lock back at an older commit the copy holds is checked out offline", async () => {
    const { remote, env } = team("First.");
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const older = readFileSync(m.lock, "utf8");
    const first = copyHead(m);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Second."));
    const second = remote.push("second");
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    expect(copyHead(m)).toBe(second);

    offline(remote);
    writeFileSync(m.lock, older);
    const frozen = await cli(m, ["sync", "--frozen"], env);
    expect(frozen.code, frozen.out + frozen.err).toBe(0);
    expect(copyHead(m)).toBe(first);
  });

  test("a pinned tag's second sync succeeds offline", async () => {
    const { remote, env } = team("Tagged.", "v1");
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const tagged = copyHead(m);

    offline(remote);
    const again = await cli(m, ["sync", "--json"], env);
    expect(again.code, again.out + again.err).toBe(0);
    expect(JSON.parse(again.out).repos[0]).toMatchObject({ success: true, commit_hash: tagged });
  });

  test("a copy without a record of the branch (made by an earlier SkillHub) fetches it once, then syncs offline", async () => {
    const { remote, env } = team();
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const locked = copyHead(m);
    git(["update-ref", "-d", "refs/remotes/origin/main"], copyOf(m) as string);

    const online = offline(remote);
    const unchecked = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(unchecked.code).toBe(1);
    expect(errorOf(unchecked)?.code).toBe("GIT_UNREACHABLE");
    online();
    expect((await cli(m, ["sync", "--frozen"], env)).code).toBe(0);
    offline(remote);
    const again = await cli(m, ["sync", "--frozen"], env);
    expect(again.code, again.out + again.err).toBe(0);
    expect(copyHead(m)).toBe(locked);
  });

  test("a commit the copy holds but its record of the branch no longer reaches goes to the remote, which refuses it", async () => {
    const { remote, env } = team("Reviewed.");
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const dropped = copyHead(m);
    const droppedLock = readFileSync(m.lock, "utf8");
    // The branch is force-pushed past it; the copy follows, and keeps the dropped commit's objects.
    forcePush(remote);
    const rewritten = git(["rev-parse", "HEAD"], remote.work);
    expect((await cli(m, ["sync", "--update"], env)).code).toBe(0);
    expect(copyHead(m)).toBe(rewritten);
    expect(git(["cat-file", "-t", dropped], copyOf(m) as string)).toBe("commit");
    writeFileSync(m.lock, droppedLock);

    const online = offline(remote);
    const unchecked = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(unchecked.code).toBe(1);
    expect(errorOf(unchecked)?.code).toBe("GIT_UNREACHABLE");
    expect(copyHead(m)).toBe(rewritten);
    online();
    const refused = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(errorOf(refused)).toEqual({ code: "GIT_COMMIT_NOT_IN_REF", message: notInBranch(remote, dropped) });
    expect(copyHead(m)).toBe(rewritten);
    const said = await cli(m, ["sync", "--frozen"], env);
    expect(said.out).toContain(
      `(the local copy is at commit ${rewritten.slice(0, 12)}, not the lock's ${dropped.slice(0, 12)}: a frozen server serves only its skills that match skillhub.lock)`,
    );
    expect(said.out).not.toContain("still served");
    const shown = await cli(m, ["show", "alpha"], { ...env, SKILLHUB_FROZEN: "1" });
    expect(shown.code).toBe(1);
    expect(shown.err).toContain("SKILL_LOCK_MISMATCH: Skill 'alpha' changed since it was reviewed");
    expect(shown.out).not.toContain("Rewritten.");
  });

  test("a commit the branch has dropped since the copy's last fetch is taken offline, and kept with a warning once the remote answers", async () => {
    const { remote, env } = team("Reviewed.");
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const dropped = copyHead(m);
    forcePush(remote);

    const online = offline(remote);
    const unchecked = await cli(m, ["sync", "--frozen"], env);
    expect(unchecked.code, unchecked.out + unchecked.err).toBe(0);
    expect(unchecked.err).toContain(
      `sync: ${remote.url} gave no answer: commit ${dropped.slice(0, 12)} checked against branch 'main' as last fetched…`,
    );
    expect(copyHead(m)).toBe(dropped);
    online();
    // The same answer at every sync until the lock moves, online or not: the record that reached it is kept.
    for (const again of [false, false, true]) {
      const restore = again ? offline(remote) : () => {};
      const kept = await cli(m, ["sync", "--frozen", "--json"], env);
      restore();
      expect(kept.code, kept.out + kept.err).toBe(0);
      expect(JSON.parse(kept.out).repos[0]).toMatchObject({ success: true, commit_hash: dropped });
      if (!again) expect(JSON.parse(kept.out).repos[0].warnings).toEqual([movedAway(remote, dropped)]);
      expect(copyHead(m)).toBe(dropped);
    }
  });

  test("a copy at a force-pushed-away commit stays when the lock names a fork's", async () => {
    const { remote, env } = team("Reviewed.");
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const reviewed = copyHead(m);
    forcePush(remote);
    const fork = forkCommit(remote);
    const lock = readFileSync(m.lock, "utf8");
    copyLock(m, m, (source) => (source.commit = fork));

    const refused = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(errorOf(refused)).toEqual({ code: "GIT_COMMIT_NOT_IN_REF", message: notInBranch(remote, fork) });
    expect(copyHead(m)).toBe(reviewed);
    writeFileSync(m.lock, lock);
    const kept = await cli(m, ["sync", "--frozen"], env);
    expect(kept.code, kept.out + kept.err).toBe(0);
    expect(copyHead(m)).toBe(reviewed);
  });

  test("a fork's commit the copy holds is not taken offline", async () => {
    const { remote, env } = team();
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const reviewed = copyHead(m);
    const fork = forkCommit(remote);
    git(["fetch", "--quiet", remote.url, fork], copyOf(m) as string);
    copyLock(m, m, (source) => (source.commit = fork));

    offline(remote);
    const frozen = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(frozen.code).toBe(1);
    expect(errorOf(frozen)?.code).toBe("GIT_UNREACHABLE");
    expect(copyHead(m)).toBe(reviewed);
  });

  test("a branch deleted on the remote: the locked commit its record reaches is served, with a warning; a fresh machine is refused", async () => {
    const { remote, env } = team();
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const locked = copyHead(m);
    git(["update-ref", "-d", "refs/heads/main"], remote.bare);
    const frozen = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(frozen.code, frozen.out + frozen.err).toBe(0);
    expect(JSON.parse(frozen.out).repos[0]).toMatchObject({ success: true, commit_hash: locked });
    expect(JSON.parse(frozen.out).repos[0].warnings).toEqual([
      `${remote.url} has no branch 'main' any more: commit ${locked.slice(0, 12)} recorded in skillhub.lock, which branch 'main' reached when SkillHub last fetched it, is still served; review the repository, then run \`skillhub sync --update team\` to lock what it serves now.`,
    ]);
    // Nothing tells a reviewed commit from a fork's there: the branch must reach it.
    const fresh = machine();
    copyLock(m, fresh);
    const refused = await cli(fresh, ["sync", "--frozen", "--json"], env);
    expect(refused.code).toBe(1);
    expect(errorOf(refused)?.code).toBe("GIT_BRANCH_NOT_FOUND");
    expect(copyOf(fresh)).toBeUndefined();
  });
});
