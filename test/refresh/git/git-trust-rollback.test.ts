import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoAuth } from "../../../src/refresh/git/git-auth.ts";
import { inRefHistory } from "../../../src/refresh/git/git-fetch.ts";
import { GitRunner } from "../../../src/refresh/git/git-runner.ts";
import { parseRepo } from "../../../src/refresh/git/git-url.ts";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, signedCommit, skillText } from "../../helpers/git.ts";
import { cli, machine } from "../../lock/cli.ts";
import { signedCopy } from "./signed-copy.ts";

afterAll(cleanupTemp);

describe("a signed branch force-pushed back to an older signed commit", () => {
  test("is not taken by a plain sync: the copy keeps serving its commit; `sync --update` takes it", async () => {
    const { m, env, copy, remote, trusted } = await signedCopy("Known bad.");
    const old = git(["rev-parse", "HEAD"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Fixed."));
    const fixed = signedCommit(remote, "fix", trusted.key);
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(fixed);
    const locked = readFileSync(m.lock, "utf8");

    // Whoever controls the remote cannot sign, but can re-serve the old signed commit.
    git(["push", "--quiet", "--force", "origin", `${old}:refs/heads/main`], remote.work);
    const refused = await cli(m, ["sync", "--json"], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out).repos[0].error).toEqual({
      code: "GIT_HISTORY_REWRITTEN",
      message: `branch 'main' of ${remote.url} is now at commit ${old.slice(0, 12)}, which does not descend from commit ${fixed.slice(0, 12)} of the copy (the branch was force-pushed: back to an older commit, or its history rewritten), so it is not taken; if that was deliberate, review the branch, then run \`skillhub sync --update team\` to accept it. The copy stays at its last verified commit ${fixed.slice(0, 12)}, which is served.`,
    });
    expect(git(["rev-parse", "HEAD"], copy)).toBe(fixed);
    expect(readFileSync(m.lock, "utf8")).toBe(locked);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("Fixed.");
    // The refused tip is not left as the copy's record of the branch: a frozen sync still serves the lock's
    // commit, which the branch reached when it was fetched, with a warning.
    expect(git(["rev-parse", "refs/remotes/origin/main"], copy)).toBe(fixed);
    const frozen = await cli(m, ["sync", "--frozen"], env);
    expect(frozen.code, frozen.out + frozen.err).toBe(0);
    expect(frozen.err).toContain(`was force-pushed away from commit ${fixed.slice(0, 12)} recorded in skillhub.lock`);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(fixed);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("Fixed.");

    const accepted = await cli(m, ["sync", "--update", "team"], env);
    expect(accepted.code, accepted.out + accepted.err).toBe(0);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(old);
  });

  test("nor past the lock's commit: by a machine without a copy, nor by one whose copy is older than the lock", async () => {
    const { m, env, copy, remote, trusted } = await signedCopy("Known bad.");
    const old = git(["rev-parse", "HEAD"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Fixed."));
    const fixed = signedCommit(remote, "fix", trusted.key);
    // A teammate's lock records the fix; this machine's copy is still at the old commit.
    const reviewer = machine();
    expect((await cli(reviewer, ["sync"], env)).code).toBe(0);
    git(["push", "--quiet", "--force", "origin", `${old}:refs/heads/main`], remote.work);
    const refusal = `branch 'main' of ${remote.url} is now at commit ${old.slice(0, 12)}, which does not descend from commit ${fixed.slice(0, 12)} recorded in skillhub.lock (the branch was force-pushed: back to an older commit, or its history rewritten), so it is not taken; if that was deliberate, review the branch, then run \`skillhub sync --update team\` to accept it.`;

    const fresh = machine();
    writeFileSync(fresh.lock, readFileSync(reviewer.lock, "utf8"));
    const first = await cli(fresh, ["sync", "--json"], env);
    expect(first.code).toBe(1);
    expect(JSON.parse(first.out).repos[0].error).toEqual({
      code: "GIT_HISTORY_REWRITTEN",
      message: `${refusal} No copy was made.`,
    });
    expect(first.err).toContain(
      `${refusal} No copy was made. \`skillhub sync --update team\`, after that review, takes it.\n`,
    );
    const repos = join(fresh.home, ".skillhub", "repos");
    const copies = existsSync(repos)
      ? readdirSync(repos).filter((n) => !n.startsWith(".") && !n.endsWith(".lock"))
      : [];
    expect(copies).toEqual([]);

    writeFileSync(m.lock, readFileSync(reviewer.lock, "utf8"));
    const behind = await cli(m, ["sync", "--json"], env);
    expect(behind.code).toBe(1);
    expect(JSON.parse(behind.out).repos[0].error.code).toBe("GIT_HISTORY_REWRITTEN");
    // The copy, older than the lock's commit, is the rollback itself: it is not kept to be served.
    expect(JSON.parse(behind.out).repos[0].error.message).toBe(
      `${refusal} The copy in ${copy}, at commit ${old.slice(0, 12)}, which is older than commit ${fixed.slice(0, 12)} recorded in skillhub.lock, was removed: nothing older than the lock's commit is served.`,
    );
    expect(existsSync(copy)).toBe(false);
    expect((await cli(m, ["list", "--json"], env)).out).not.toContain("Known bad.");
  });

  test("a shallow copy's missing history is not taken for a rewrite: the remote is asked", async () => {
    const { m: reviewer, env, remote, trusted } = await signedCopy("Reviewed.");
    const reviewed = readFileSync(reviewer.lock, "utf8");
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Middle."));
    signedCommit(remote, "middle", trusted.key);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Latest."));
    const latest = signedCommit(remote, "latest", trusted.key);
    // A first copy at the tip (shallow), then frozen back to the reviewed commit: its history stops at the tip.
    // (Without the setting: with it, no lock takes a copy back behind the tip this machine verified.)
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    writeFileSync(m.lock, reviewed);
    expect((await cli(m, ["sync", "--frozen"], { SKILLS_REPO: env.SKILLS_REPO })).code).toBe(0);
    const synced = await cli(m, ["sync", "--json"], env);
    expect(synced.code, synced.out + synced.err).toBe(0);
    expect(JSON.parse(synced.out).repos[0]).toMatchObject({ success: true, commit_hash: latest });
  });

  test("a machine without a copy takes a tip that goes on from the lock's commit, however old both are", async () => {
    const { m, env, remote, trusted } = await signedCopy("Reviewed.");
    // A signed commit on top, dated two days ago, as a teammate's lock usually trails the branch.
    const when = `@${Math.floor(Date.now() / 1000) - 2 * 86_400} +0000`;
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Newer."));
    git(["add", "-A"], remote.work);
    const signed = [
      "-c",
      "gpg.format=ssh",
      "-c",
      `user.signingkey=${trusted.key}`,
      "commit",
      "-S",
      "--quiet",
      "-m",
      "newer",
    ];
    const made = Bun.spawnSync(["git", ...signed], {
      cwd: remote.work,
      env: { ...GIT_ENV, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when },
    });
    expect(made.exitCode).toBe(0);
    git(["push", "--quiet", "origin", "main"], remote.work);
    const newer = git(["rev-parse", "HEAD"], remote.work);

    const fresh = machine();
    writeFileSync(fresh.lock, readFileSync(m.lock, "utf8"));
    const synced = await cli(fresh, ["sync", "--json"], env);
    expect(synced.code, synced.out + synced.err).toBe(0);
    expect(JSON.parse(synced.out).repos[0]).toMatchObject({ success: true, commit_hash: newer });
  });

  test("a signed commit pushed on top of the copy's is taken as before", async () => {
    const { m, env, copy, remote, trusted } = await signedCopy("First.");
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Second."));
    const second = signedCommit(remote, "second", trusted.key);
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(second);
  });
});

describe("a signed copy moved back in place (an older commit checked out in it)", () => {
  test("is not recorded by `skillhub lock`, and doctor shows the commit the copy is at", async () => {
    const { m, env, copy, remote, trusted } = await signedCopy("Known bad.");
    const old = git(["rev-parse", "HEAD"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Fixed."));
    const fixed = signedCommit(remote, "fix", trusted.key);
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const locked = readFileSync(m.lock, "utf8");
    git(["checkout", "--quiet", "-B", "main", old], copy);

    const doctor = await cli(m, ["doctor", "--json"], env);
    expect(JSON.parse(doctor.out).repos[0]).toMatchObject({ commit: old, state: { commit: fixed } });
    expect((await cli(m, ["doctor"], env)).out).toContain(`copy ${copy} at ${old.slice(0, 7)}, last synced`);

    const lock = await cli(m, ["lock"], env);
    expect(lock.code).toBe(1);
    expect(lock.err).toBe(
      `skillhub lock: repository team's copy is at commit ${old.slice(0, 12)}, which does not go on from commit ${fixed.slice(0, 12)} recorded in ${m.lock} (moved back in the copy), and trust.allowed_signers lets a lock only go forward: run \`skillhub sync --frozen\` to put the copy back at the locked commit, or, if the branch was rewritten on purpose, review it and run \`skillhub sync --update team\`; no lock was written.\n`,
    );
    expect(readFileSync(m.lock, "utf8")).toBe(locked);
  });
});

describe("a signed repository's configured branch changed", () => {
  test("is an explicit move: the other branch is followed, whatever its history", async () => {
    const { m, env, copy, remote, trusted } = await signedCopy("On main.");
    git(["checkout", "--quiet", "--orphan", "other"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "On another branch."));
    git(["add", "-A"], remote.work);
    git(
      ["-c", "gpg.format=ssh", "-c", `user.signingkey=${trusted.key}`, "commit", "-S", "--quiet", "-m", "other"],
      remote.work,
    );
    git(["push", "--quiet", "origin", "other"], remote.work);
    const other = git(["rev-parse", "HEAD"], remote.work);
    const synced = await cli(m, ["sync"], { ...env, SKILLS_BRANCH: "other" });
    expect(synced.code, synced.out + synced.err).toBe(0);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(other);
  });
});

describe("whether a commit descends from the lock's is told from that commit's own history", () => {
  test("not from the branch's, which the remote may have moved back since the commit was fetched", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "First.") });
    const first = git(["rev-parse", "HEAD"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Reviewed."));
    const locked = remote.push("reviewed");
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Later."));
    const later = remote.push("later");
    // An older line of history, beside the branch (what a rollback serves).
    git(["checkout", "--quiet", "-b", "old", first], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Known bad."));
    const old = remote.push("old");
    git(["push", "--quiet", "origin", "old"], remote.work);

    const spec = parseRepo(remote.url);
    // A first copy holding none of these commits (as one fetched at a depth of 1 holds almost none).
    const target = { spec, label: "team", dir: join(tempDir("skillhub-repos-"), "team"), branch: "main" };
    git(["init", "--quiet", target.dir]);
    const ctx = {
      git: new GitRunner({ env: GIT_ENV }),
      auth: repoAuth(spec, undefined),
      now: Date.now,
      progress: () => {},
      timeoutMs: 60_000,
    };
    expect(await inRefHistory(target, ctx, target.dir, locked)).toEqual({ reached: true, tip: later });
    expect(await inRefHistory(target, ctx, target.dir, locked, later)).toEqual({ reached: true, tip: later });
    // main still reaches the locked commit; the commit about to be taken does not.
    expect(await inRefHistory(target, ctx, target.dir, locked, old)).toEqual({ reached: false, tip: old });
  });
});
