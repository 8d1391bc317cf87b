import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GitSync } from "../../../src/refresh/git/git-sync.ts";
import { createMemoryLogger } from "../../../src/util/logger.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { cleanupTemp, tempDir, writeSkill } from "../../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, signedCommit, skillText, sshKey } from "../../helpers/git.ts";
import { textOf } from "../../helpers/hub.ts";
import { cli, type Machine, machine, repoServerOn } from "../../lock/cli.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/**
 * SKILLS_REPO's repository with a signed commit on main, `old` (a skill a later one fixes), and the machine
 * (`writer`) whose project's lock recorded it, with that project's own skill `notes`.
 */
async function signedTeam() {
  const keys = tempDir("skillhub-keys-");
  const trusted = sshKey(keys, "trusted");
  const signers = join(keys, "allowed_signers");
  writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
  const remote = remoteRepo("team2", { "skills/deploy/SKILL.md": skillText("deploy", "First draft.") });
  const env = { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: signers };
  remote.write("skills/deploy/SKILL.md", skillText("deploy", "Deploy, vulnerably."));
  const old = signedCommit(remote, "old", trusted.key);
  const writer = machine();
  writeSkill(writer.skills, "notes", { description: "The project's notes." });
  expect((await cli(writer, ["sync"], env)).code).toBe(0);
  expect((await cli(writer, ["lock"], env)).code).toBe(0);
  return { remote, trusted, env, old, writer };
}

/** A signed commit on main that fixes `deploy`: its hash. */
function pushFix(remote: ReturnType<typeof remoteRepo>, key: string): string {
  remote.write("skills/deploy/SKILL.md", skillText("deploy", "Deploy, fixed."));
  return signedCommit(remote, "fix", key);
}

/** Your machine, synced with `env`, and its one copy. */
async function yourMachine(env: Record<string, string>) {
  const m = machine();
  expect((await cli(m, ["sync"], env)).code).toBe(0);
  const [yours] = copiesOn(m);
  return { m, yours: yours as string };
}

/** `m`'s home with another project folder: the same machine, another project. */
function otherProject(m: Machine): Machine {
  const project = tempDir("skillhub-lock-project-");
  return { home: m.home, project, skills: join(project, ".agents", "skills"), lock: join(project, "skillhub.lock") };
}

/** The copies in `m`'s repos folder (folder paths). */
function copiesOn(m: Machine): string[] {
  const repos = join(m.home, ".skillhub", "repos");
  return existsSync(repos)
    ? readdirSync(repos)
        .filter((n) => !n.startsWith(".") && !n.endsWith(".lock"))
        .map((n) => join(repos, n))
    : [];
}

describe("with allowed signers, a lock does not take a repository back behind what this machine verified", () => {
  test("a cloned project's lock naming an older signed commit of SKILLS_REPO's branch is refused; its other skills are served", async () => {
    const { remote, trusted, env, old, writer } = await signedTeam();
    const attackerLock = readFileSync(writer.lock, "utf8");
    expect(JSON.parse(attackerLock).sources.team2.commit).toBe(old);
    const fixed = pushFix(remote, trusted.key);

    // Your machine serves the fix, in a project of yours.
    const { m, yours } = await yourMachine(env);
    expect(git(["rev-parse", "HEAD"], yours as string)).toBe(fixed);

    // A project you clone carries a lock written before the fix (and its own skill, which it records).
    const cloned = otherProject(m);
    cpSync(writer.project, cloned.project, { recursive: true });
    const frozen = await cli(cloned, ["sync", "--frozen", "--json"], env);
    expect(frozen.code).toBe(1);
    const refusal = `commit ${old.slice(0, 12)} recorded in skillhub.lock for branch 'main' of ${remote.url} is older than commit ${fixed.slice(0, 12)}, which this machine has already verified for it (in ${yours}), and trust.allowed_signers lets a lock only go forward, so it is not checked out; review the branch, then run \`skillhub sync --update team2\` to move the lock forward.`;
    expect(JSON.parse(frozen.out).repos[0].error).toEqual({
      code: "GIT_HISTORY_REWRITTEN",
      message: `${refusal} No copy was made.`,
    });
    expect(copiesOn(m)).toEqual([yours as string]);
    expect(git(["rev-parse", "HEAD"], yours as string)).toBe(fixed);

    // A frozen server started there serves the project's own skill, and nothing of the older commit.
    const s = await repoServerOn(cloned, { ...env, SKILLHUB_FROZEN: "1" });
    closers.push(s.close);
    expect(textOf(await s.call("skill", { name: "notes" }))).toContain("The project's notes.");
    for (const name of ["deploy", "team2:deploy"]) {
      const served = await s.call("skill", { name });
      expect(served.isError).toBe(true);
      expect(textOf(served)).not.toContain("Deploy, vulnerably.");
    }
    expect(s.logger.lines.join("\n")).toContain(refusal);
    expect(copiesOn(m)).toEqual([yours as string]);
  }, 120_000);

  test("the same repository spelt otherwise (a plain path for its file:// URL) is measured against the same copies", async () => {
    const { remote, trusted, env, old, writer } = await signedTeam();
    const fixed = pushFix(remote, trusted.key);
    const { m, yours } = await yourMachine(env);

    // A project you clone, with SKILLS_REPO spelt as the path its URL names: its lock pins the older commit.
    const cloned = otherProject(m);
    cpSync(writer.project, cloned.project, { recursive: true });
    const frozen = await cli(cloned, ["sync", "--frozen", "--json"], { ...env, SKILLS_REPO: remote.bare });
    expect(frozen.code).toBe(1);
    expect(JSON.parse(frozen.out).repos[0].error).toMatchObject({ code: "GIT_HISTORY_REWRITTEN" });
    expect(JSON.parse(frozen.out).repos[0].error.message).toContain(
      `is older than commit ${fixed.slice(0, 12)}, which this machine has already verified for it (in ${yours})`,
    );
    expect(old).not.toBe(fixed);
    for (const copy of copiesOn(m)) expect(git(["rev-parse", "HEAD"], copy)).toBe(fixed);
  }, 120_000);

  test("a copy at the older commit (checked out for that lock without the setting) is removed, not served", async () => {
    const { remote, trusted, env, old, writer } = await signedTeam();
    const fixed = pushFix(remote, trusted.key);
    const { m, yours } = await yourMachine(env);
    const cloned = otherProject(m);
    cpSync(writer.project, cloned.project, { recursive: true });
    expect((await cli(cloned, ["sync", "--frozen"], { SKILLS_REPO: remote.url })).code).toBe(0);
    const theirs = copiesOn(m).find((copy) => copy !== yours) as string;
    expect(git(["rev-parse", "HEAD"], theirs)).toBe(old);

    const frozen = await cli(cloned, ["sync", "--frozen", "--json"], env);
    expect(frozen.code).toBe(1);
    expect(JSON.parse(frozen.out).repos[0].error.message).toEndWith(
      `to move the lock forward. The copy in ${theirs}, at commit ${old.slice(0, 12)}, which is older than commit ${fixed.slice(0, 12)}, was removed: no lock takes a copy back behind what this machine has verified.`,
    );
    expect(copiesOn(m)).toEqual([yours as string]);
    const listed = (await cli(cloned, ["list", "--json"], { ...env, SKILLHUB_FROZEN: "1" })).out;
    expect(listed).not.toContain("Deploy, vulnerably.");
  }, 120_000);

  test("a copy made at the branch's tip (shallow: its history stops there) is not taken back to the lock's older commit", async () => {
    const { remote, trusted, env, old, writer } = await signedTeam();
    const fixed = pushFix(remote, trusted.key);
    const m = machine();
    cpSync(writer.skills, m.skills, { recursive: true });
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const [copy] = copiesOn(m);
    writeFileSync(m.lock, readFileSync(writer.lock));
    const frozen = await cli(m, ["sync", "--frozen", "--json"], env);
    expect(frozen.code).toBe(1);
    expect(JSON.parse(frozen.out).repos[0].error.message).toStartWith(
      `commit ${old.slice(0, 12)} recorded in skillhub.lock for branch 'main' of ${remote.url} is older than commit ${fixed.slice(0, 12)}, which this machine has already verified for it (in ${copy}),`,
    );
    expect(git(["rev-parse", "HEAD"], copy as string)).toBe(fixed);
    // The copy's record of the branch is where it was, so the next sync decides the same.
    expect(git(["rev-parse", "refs/remotes/origin/main"], copy as string)).toBe(fixed);
    expect((await cli(m, ["sync", "--frozen"], env)).code).toBe(1);
  }, 120_000);

  test("nor behind a pinned tag's commit this machine verified (a pinned tag's lock holds it, frozen or not)", async () => {
    const { remote, trusted, env, old } = await signedTeam();
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    const pinned = { ...env, SKILLS_REF: "v1" };
    const writer = machine();
    expect((await cli(writer, ["sync"], pinned)).code).toBe(0);
    // The tag moves on to the fix, which your machine serves.
    const fixed = pushFix(remote, trusted.key);
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);
    const m = machine();
    expect((await cli(m, ["sync"], pinned)).code).toBe(0);
    const [yours] = copiesOn(m);

    const cloned = otherProject(m);
    writeFileSync(cloned.lock, readFileSync(writer.lock));
    const synced = await cli(cloned, ["sync", "--json"], pinned);
    expect(synced.code).toBe(1);
    expect(JSON.parse(synced.out).repos[0].error.message).toBe(
      `commit ${old.slice(0, 12)} recorded in skillhub.lock for tag 'v1' of ${remote.url} is older than commit ${fixed.slice(0, 12)}, which this machine has already verified for it (in ${yours}), and trust.allowed_signers lets a lock only go forward, so it is not checked out; review the tag, then run \`skillhub sync --update team2\` to move the lock forward. No copy was made.`,
    );
    expect(copiesOn(m)).toEqual([yours as string]);
  }, 120_000);

  test("a project with no lock does not clone a branch or tag moved back behind what another copy verified", async () => {
    const { remote, trusted, env, old } = await signedTeam();
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    const fixed = pushFix(remote, trusted.key);
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);
    const { m, yours } = await yourMachine(env);
    const tagged = otherProject(m);
    expect((await cli(tagged, ["sync"], { ...env, SKILLS_REF: "v1" })).code).toBe(0);
    const [tagCopy] = copiesOn(m).filter((copy) => copy !== yours);

    // The branch and the tag are force-pushed back to the older signed commit.
    git(["push", "--quiet", "--force", "origin", `${old}:refs/heads/main`, `${old}:refs/tags/v1`], remote.work);
    for (const [ref, extra, copy] of [
      ["branch 'main'", {}, yours],
      ["tag 'v1'", { SKILLS_REF: "v1" }, tagCopy],
    ] as const) {
      const fresh = otherProject(m);
      const synced = await cli(fresh, ["sync", "--json"], { ...env, ...extra });
      expect(synced.code).toBe(1);
      expect(JSON.parse(synced.out).repos[0].error).toEqual({
        code: "GIT_HISTORY_REWRITTEN",
        message: `${ref} of ${remote.url} is now at commit ${old.slice(0, 12)}, which is older than commit ${fixed.slice(0, 12)}, which this machine has already verified for it (in ${copy}): it was moved back (force-pushed), so it is not taken; if that was deliberate, review the ${ref.split(" ")[0]}, then run \`skillhub sync --update team2\` to accept it. No copy was made.`,
      });
      expect(existsSync(fresh.lock)).toBe(false);
      const listed = (await cli(fresh, ["list", "--json"], { ...env, ...extra })).out;
      expect(listed).not.toContain("Deploy, vulnerably.");
    }
    expect(copiesOn(m).length).toBe(2);

    // `sync --update` accepts the move, after review.
    const fresh = otherProject(m);
    const updated = await cli(fresh, ["sync", "--update", "team2"], env);
    expect(updated.code, updated.out + updated.err).toBe(0);
    expect(JSON.parse(readFileSync(fresh.lock, "utf8")).sources.team2.commit).toBe(old);
  }, 120_000);

  test("a frozen server's background syncs ask the remote once whether the lock's commit is older than a lagging copy's", async () => {
    const { remote, trusted, env, writer } = await signedTeam();
    const fixed = pushFix(remote, trusted.key);
    // Another project's frozen server on the same machine, its lock at the fix: measured against the writer's copy.
    const progress: string[] = [];
    const lock = join(tempDir("skillhub-lock-project-"), "skillhub.lock");
    const sync = new GitSync({
      repos: [remote.url],
      branch: "main",
      home: join(writer.home, ".skillhub"),
      lockFile: () => lock,
      allowedSigners: env.SKILLHUB_ALLOWED_SIGNERS,
      frozen: true,
      pins: () => new Map([["team2", { pin: { ref: "main", commit: fixed } }]]),
      logger: createMemoryLogger(),
      intervalMs: 0,
      runner: { env: GIT_ENV },
      progress: (line) => progress.push(line),
    });
    const asked = () => progress.filter((line) => line.startsWith("fetching the history of main")).length;
    // Each frozen sync asks whether the lock's commit is in the branch's history (its copy is shallow); the
    // first one also asks whether it is older than the writer's copy, which the later ones know.
    expect((await sync.refresh("start")).success).toBe(true);
    const first = asked();
    expect(first).toBe(2);
    expect((await sync.refresh("timer")).success).toBe(true);
    expect((await sync.refresh("timer")).success).toBe(true);
    expect(asked()).toBe(first + 2);
  }, 120_000);

  test("a move back taken with `sync --update` stays taken by that project's next syncs; another copy's record is not asked of the remote", async () => {
    const { remote, trusted, env, old } = await signedTeam();
    pushFix(remote, trusted.key);
    const { m, yours } = await yourMachine(env);
    git(["push", "--quiet", "--force", "origin", `${old}:refs/heads/main`], remote.work);
    const accepted = otherProject(m);
    expect((await cli(accepted, ["sync", "--update", "team2"], env)).code).toBe(0);
    const copy = copiesOn(m).find((c) => c !== yours) as string;

    // Its plain syncs (a server's background sync) keep the copy it accepted, without fetching any history.
    for (let i = 0; i < 2; i++) {
      const again = await cli(accepted, ["sync"], env);
      expect(again.code, again.out + again.err).toBe(0);
      expect(again.err).not.toContain("fetching the history");
    }
    expect(git(["rev-parse", "HEAD"], copy)).toBe(old);
    expect((await cli(accepted, ["list", "--json"], env)).out).toContain("Deploy, vulnerably.");
  }, 120_000);

  test("a branch rewritten and pruned on the remote: a first copy says what cannot be told and how to go on", async () => {
    const { remote, trusted, env, old, writer } = await signedTeam();
    // The maintainers rewrite the branch's last commit and the server forgets the old one.
    remote.write("skills/deploy/SKILL.md", skillText("deploy", "Deploy, rewritten."));
    git(["add", "-A"], remote.work);
    git(
      [
        "-c",
        "gpg.format=ssh",
        "-c",
        `user.signingkey=${trusted.key}`,
        "commit",
        "--quiet",
        "--amend",
        "-S",
        "-m",
        "rewritten",
      ],
      remote.work,
    );
    git(["push", "--quiet", "--force", "origin", "main"], remote.work);
    git(["reflog", "expire", "--expire=now", "--all"], remote.bare);
    git(["gc", "--quiet", "--prune=now"], remote.bare);

    const fresh = otherProject(writer);
    const synced = await cli(fresh, ["sync", "--json"], env);
    expect(synced.code).toBe(1);
    const error = JSON.parse(synced.out).repos[0].error;
    expect(error.message).toStartWith(
      `whether main of ${remote.url} went back behind commit ${old.slice(0, 12)}, which this machine has verified for it (in ${copiesOn(writer)[0]}), cannot be told: `,
    );
    expect(error.message).toEndWith(
      "; if the branch was rewritten, review it, then run `skillhub sync --update team2` to accept it. No copy was made.",
    );
    const updated = await cli(fresh, ["sync", "--update", "team2"], env);
    expect(updated.code, updated.out + updated.err).toBe(0);
  }, 120_000);

  test("a fresh machine (CI) takes the lock's older commit; once it verified a newer one, a lock going back is refused", async () => {
    const { remote, trusted, env, old, writer } = await signedTeam();
    const lockAtOld = readFileSync(writer.lock, "utf8");
    const fixed = pushFix(remote, trusted.key);
    expect((await cli(writer, ["sync"], env)).code).toBe(0);
    const lockAtFixed = readFileSync(writer.lock, "utf8");

    // CI: no copy, nothing verified yet: the lock's commit is fetched and served, behind the branch's tip.
    const ci = machine();
    cpSync(writer.skills, ci.skills, { recursive: true });
    writeFileSync(ci.lock, lockAtOld);
    const first = await cli(ci, ["sync", "--frozen"], env);
    expect(first.code, first.out + first.err).toBe(0);
    const [copy] = copiesOn(ci);
    expect(git(["rev-parse", "HEAD"], copy as string)).toBe(old);
    expect((await cli(ci, ["verify"], env)).code).toBe(0);

    // The project's lock moves forward to the fix, and the copy with it.
    writeFileSync(ci.lock, lockAtFixed);
    expect((await cli(ci, ["sync", "--frozen"], env)).code).toBe(0);
    expect(git(["rev-parse", "HEAD"], copy as string)).toBe(fixed);

    // Put back to the lock written before the fix (an old branch of the project, an attacker's commit).
    writeFileSync(ci.lock, lockAtOld);
    const back = await cli(ci, ["sync", "--frozen", "--json"], env);
    expect(back.code).toBe(1);
    expect(JSON.parse(back.out).repos[0].error).toEqual({
      code: "GIT_HISTORY_REWRITTEN",
      message: `commit ${old.slice(0, 12)} recorded in skillhub.lock for branch 'main' of ${remote.url} is older than commit ${fixed.slice(0, 12)}, which this machine has already verified for it (in ${copy}), and trust.allowed_signers lets a lock only go forward, so it is not checked out; review the branch, then run \`skillhub sync --update team2\` to move the lock forward. The copy stays at its last verified commit ${fixed.slice(0, 12)}, which is served.`,
    });
    expect(git(["rev-parse", "HEAD"], copy as string)).toBe(fixed);
    const listed = (await cli(ci, ["list", "--json"], { ...env, SKILLHUB_FROZEN: "1" })).out;
    expect(listed).not.toContain("Deploy, vulnerably.");

    // `sync --update` moves the lock forward, to what the branch serves.
    const updated = await cli(ci, ["sync", "--update", "team2"], env);
    expect(updated.code, updated.out + updated.err).toBe(0);
    expect(JSON.parse(readFileSync(ci.lock, "utf8")).sources.team2.commit).toBe(fixed);
  }, 120_000);
});
