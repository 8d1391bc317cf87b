import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { GIT_ENV, git, type Remote, remoteRepo, skillText } from "../../helpers/git.ts";
import { connect } from "../../helpers/hub.ts";
import { cli, type Machine, machine } from "../../lock/cli.ts";

afterAll(cleanupTemp);

/** The commit checked out in the machine's copy of the repository (its only one). */
function copyHead(m: Machine): string {
  const repos = join(m.home, ".skillhub", "repos");
  const [slug] = readRepos(repos);
  return git(["rev-parse", "HEAD"], join(repos, slug as string));
}

function readRepos(dir: string): string[] {
  return readdirSync(dir).filter((n) => !n.startsWith("."));
}

function lockOf(m: Machine) {
  return JSON.parse(readFileSync(m.lock, "utf8"));
}

describe("pinning a tag or a commit (SKILLS_REF / git.ref)", () => {
  test("a tag is checked out, new commits do not move it, a moved tag moves only with sync --update", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Version one.") });
    const v1 = git(["rev-parse", "HEAD"], remote.work);
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Version two, on main only."));
    remote.push("two");
    const m = machine();
    const env = { SKILLS_REPO: remote.url, SKILLS_REF: "v1" };
    const first = await cli(m, ["sync"], env);
    expect(first.code).toBe(0);
    expect(copyHead(m)).toBe(v1);
    expect(lockOf(m).sources.team).toEqual({ url: remote.url, ref: "v1", commit: v1 });
    expect(lockOf(m).skills["team:alpha"].path).toBe("alpha/SKILL.md");

    // Someone moves the tag: sync keeps the reviewed commit.
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Version three, tag moved."));
    const v3 = remote.push("three");
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);
    const again = await cli(m, ["sync"], env);
    expect(again.code).toBe(0);
    expect(copyHead(m)).toBe(v1);
    expect(again.out).toContain("up to date.\n");
    expect((await cli(m, ["verify"], env)).code).toBe(0);

    // --update moves the pin and rewrites the lock, naming the changes.
    const update = await cli(m, ["sync", "--update"], env);
    expect(update.code).toBe(0);
    expect(copyHead(m)).toBe(v3);
    expect(lockOf(m).sources.team.commit).toBe(v3);
    expect(update.out).toContain(`changed source team: commit ${v1.slice(0, 12)} → ${v3.slice(0, 12)}`);
    expect(update.out).toContain("changed skill team:alpha file SKILL.md");
    expect((await cli(m, ["verify"], env)).code).toBe(0);
    // The copies live under the home folder; the lock names the repository by URL only.
    const text = readFileSync(m.lock, "utf8");
    expect(text).not.toContain(m.home);
    expect(text).not.toContain(m.project);

    // Changing the configured ref is an explicit move: no --update needed.
    git(["tag", "v2", v1], remote.work);
    git(["push", "--quiet", "origin", "v2"], remote.work);
    const v2 = await cli(m, ["sync"], { ...env, SKILLS_REF: "v2" });
    expect(v2.code).toBe(0);
    expect(copyHead(m)).toBe(v1);
    expect(lockOf(m).sources.team).toEqual({ url: remote.url, ref: "v2", commit: v1 });
  });

  test("sync --update NAME moves only the pins of the repositories named; an unknown name moves none", async () => {
    const tagged = (name: string) => {
      const remote = remoteRepo(name, { [`skills/${name}-skill/SKILL.md`]: skillText(`${name}-skill`, "One.") });
      git(["tag", "v1"], remote.work);
      git(["push", "--quiet", "origin", "v1"], remote.work);
      return { remote, v1: git(["rev-parse", "HEAD"], remote.work) };
    };
    const moveTag = (remote: Remote) => {
      remote.write("README.md", "moved\n");
      const moved = remote.push("moved");
      git(["tag", "-f", "v1"], remote.work);
      git(["push", "--quiet", "--force", "origin", "v1"], remote.work);
      return moved;
    };
    const team = tagged("team");
    const docs = tagged("docs");
    const m = machine();
    const env = { SKILLS_REPO: `${team.remote.url},${docs.remote.url}`, SKILLS_REF: "v1" };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const teamMoved = moveTag(team.remote);
    moveTag(docs.remote);

    const unknown = await cli(m, ["sync", "--update", "tema"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe("skillhub: no repository named 'tema' to update. Repositories: team, docs.\n");
    const bare = await cli(m, ["sync", "team"], env);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain(
      "name repositories after --update to move only their pins (`skillhub sync --update team`)",
    );
    expect(lockOf(m).sources.team.commit).toBe(team.v1);

    const one = await cli(m, ["sync", "--update", "team"], env);
    expect(one.code, one.out + one.err).toBe(0);
    expect(lockOf(m).sources.team.commit).toBe(teamMoved);
    expect(lockOf(m).sources.docs.commit).toBe(docs.v1);
    expect(one.out).toContain(`docs  ${docs.v1.slice(0, 7)}  at the locked commit (tag v1 is at`);
    expect(one.out).toContain("`skillhub sync --update docs` moves the lock to it)");
  });

  test("two folders of one repository pinned to one tag have a pin each: --update of one leaves the other's", async () => {
    const remote = remoteRepo("multi", {
      "skills/a/alpha/SKILL.md": skillText("alpha", "Alpha one."),
      "skills/b/beta/SKILL.md": skillText("beta", "Beta one."),
    });
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    const v1 = git(["rev-parse", "HEAD"], remote.work);
    const m = machine();
    const entry = (path: string) => `    - url: ${remote.url}\n      ref: v1\n      path: ${path}\n`;
    write(join(m.project, "skillhub.yaml"), `git:\n  repos:\n${entry("skills/a")}${entry("skills/b")}`);
    expect((await cli(m, ["sync"], {})).code).toBe(0);
    remote.write("skills/a/alpha/SKILL.md", skillText("alpha", "Alpha two, unreviewed."));
    remote.write("skills/b/beta/SKILL.md", skillText("beta", "Beta two, reviewed."));
    const v2 = remote.push("two");
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);

    expect((await cli(m, ["sync", "--update", "multi-b"], {})).code).toBe(0);
    const commits = () =>
      Object.fromEntries(Object.entries(lockOf(m).sources).map(([k, v]) => [k, (v as { commit: string }).commit]));
    expect(commits()).toEqual({ "multi-a": v1, "multi-b": v2 });
    // A plain sync later keeps each folder at its own pin.
    expect((await cli(m, ["sync"], {})).code).toBe(0);
    expect(commits()).toEqual({ "multi-a": v1, "multi-b": v2 });
    expect((await cli(m, ["show", "alpha"], {})).out).toContain("Alpha one.");
    expect((await cli(m, ["show", "beta"], {})).out).toContain("Beta two, reviewed.");
  });

  test("a tag moved sideways keeps its reviewed commit served, with a warning, until sync --update", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    const reviewed = git(["rev-parse", "HEAD"], remote.work);
    const m = machine();
    const env = { SKILLS_REPO: remote.url, SKILLS_REF: "v1" };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    // The tagged commit amended and the tag force-pushed: the new tag commit does not reach the old one.
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Amended."));
    git(["add", "-A"], remote.work);
    git(["commit", "--quiet", "--amend", "-m", "amended"], remote.work);
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);
    const amended = git(["rev-parse", "HEAD"], remote.work);
    const warning = `tag 'v1' of ${remote.url} was moved away from commit ${reviewed.slice(0, 12)} recorded in skillhub.lock: that commit, which the tag reached when SkillHub last fetched it, is still served; review the current tag 'v1', then run \`skillhub sync --update team\` to lock it.`;

    for (let i = 0; i < 2; i++) {
      const again = await cli(m, ["sync"], env);
      expect(again.code, again.out + again.err).toBe(0);
      expect(copyHead(m)).toBe(reviewed);
      expect(again.out).toContain(`warning: ${warning}`);
      expect(again.out).toContain(
        `team  ${reviewed.slice(0, 7)}  at the locked commit (tag v1 is at ${amended.slice(0, 7)}; \`skillhub sync --update team\` moves the lock to it)`,
      );
      expect(again.out).toContain("up to date.\n");
    }
    // A fresh machine has no record of the tag reaching it: refused, as a fork's commit would be.
    const fresh = machine();
    writeFileSync(fresh.lock, readFileSync(m.lock));
    const refused = await cli(fresh, ["sync", "--json"], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out).repos[0].error.code).toBe("GIT_COMMIT_NOT_IN_REF");

    const update = await cli(m, ["sync", "--update"], env);
    expect(update.code).toBe(0);
    expect(copyHead(m)).toBe(amended);
    expect(lockOf(m).sources.team.commit).toBe(amended);
    expect(update.out).not.toContain("warning:");
  });

  test("a copy is made and synced with core.preferSymlinkRefs set in the user's git config", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const m = machine();
    const env = {
      SKILLS_REPO: remote.url,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.preferSymlinkRefs",
      GIT_CONFIG_VALUE_0: "true",
    };
    for (const next of ["beta", undefined]) {
      const synced = await cli(m, ["sync", "--json"], env);
      expect(synced.code, synced.out + synced.err).toBe(0);
      expect(JSON.parse(synced.out).repos[0]).toMatchObject({ success: true, warnings: [] });
      if (!next) break;
      remote.write(`skills/${next}/SKILL.md`, skillText(next));
      remote.push(next);
    }
    expect(copyHead(m)).toBe(git(["rev-parse", "HEAD"], remote.work));
  });

  test("a full commit hash is checked out detached; a missing tag or commit is an explicit error", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const first = git(["rev-parse", "HEAD"], remote.work);
    remote.write("skills/beta/SKILL.md", skillText("beta"));
    remote.push("beta");
    const m = machine();
    const pinned = await cli(m, ["sync", "--json"], { SKILLS_REPO: remote.url, SKILLS_REF: first });
    expect(JSON.parse(pinned.out)).toMatchObject({ success: true, commit_hash: first });
    expect(Object.keys(lockOf(m).skills)).toEqual(["team:alpha"]);

    const noTag = await cli(machine(), ["sync", "--json"], { SKILLS_REPO: remote.url, SKILLS_REF: "v9" });
    expect(noTag.code).toBe(1);
    expect(JSON.parse(noTag.out).repos[0].error).toEqual({
      code: "GIT_REF_NOT_FOUND",
      message: `tag 'v9' (SKILLS_REF / git.ref) does not exist in ${remote.url}; pin an existing tag or a full commit hash.`,
    });
    const bad = await cli(machine(), ["sync"], { SKILLS_REPO: remote.url, SKILLS_REF: "--upload-pack=x" });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('SKILLS_REF (environment variable) (config key git.ref) = "--upload-pack=x"');
  });
});

describe("a force-pushed branch", () => {
  test("--frozen keeps serving the reviewed commit it no longer reaches, with a warning; a fresh machine refuses it; sync moves on", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    const m = machine();
    const env = { SKILLS_REPO: remote.url };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const reviewed = lockOf(m).sources.team.commit;
    const teammate = machine();
    writeFileSync(teammate.lock, readFileSync(m.lock));
    expect((await cli(teammate, ["sync", "--frozen"], env)).code).toBe(0);

    // History rewritten: the reviewed commit is gone from the branch.
    git(["commit", "--quiet", "--amend", "-m", "rewritten"], remote.work);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Rewritten by someone else."));
    git(["add", "-A"], remote.work);
    git(["commit", "--quiet", "--amend", "-m", "rewritten"], remote.work);
    git(["push", "--quiet", "--force", "origin", "main"], remote.work);
    const rewritten = git(["rev-parse", "HEAD"], remote.work);
    const refusal = `commit ${reviewed.slice(0, 12)} recorded in skillhub.lock is not in the history of branch 'main' of ${remote.url} (a commit from a fork, or the branch was force-pushed): review it, then run \`skillhub sync --update team\` to lock the current branch 'main'.`;

    // The teammate's copy reached the reviewed commit through the branch: the lock still pins it.
    const frozen = await cli(teammate, ["sync", "--frozen"], env);
    expect(frozen.code, frozen.out + frozen.err).toBe(0);
    expect(copyHead(teammate)).toBe(reviewed);
    expect(frozen.out).toContain(
      `warning: branch 'main' of ${remote.url} was force-pushed away from commit ${reviewed.slice(0, 12)} recorded in skillhub.lock: that commit, which the branch reached when SkillHub last fetched it, is still served; review the current branch 'main', then run \`skillhub sync --update team\` to lock it.`,
    );
    expect(lockOf(teammate).sources.team.commit).toBe(reviewed);

    // A fresh machine with the committed lock: refused while the server still has the commit, and once it
    // has dropped it (gc), said so.
    const other = machine();
    writeFileSync(other.lock, readFileSync(m.lock));
    const stale = await cli(other, ["sync", "--frozen", "--json"], env);
    expect(stale.code).toBe(1);
    expect(JSON.parse(stale.out).repos[0].error).toEqual({ code: "GIT_COMMIT_NOT_IN_REF", message: refusal });
    const said = await cli(other, ["sync", "--frozen"], env);
    expect(said.err).toContain(
      `${refusal} No copy is made, so this repository's skills are unavailable until the lock names a commit the branch or tag reaches; \`skillhub sync --update team\`, after that review, locks one.`,
    );
    git(["reflog", "expire", "--expire=now", "--all"], remote.bare);
    git(["gc", "--quiet", "--prune=now"], remote.bare);
    const fresh = await cli(other, ["sync", "--frozen", "--json"], env);
    expect(fresh.code).toBe(1);
    const error = JSON.parse(fresh.out).repos[0].error;
    expect(error.code).toBe("GIT_REF_NOT_FOUND");
    expect(error.message).toContain(
      `commit ${reviewed.slice(0, 12)} recorded in skillhub.lock is not in ${remote.url}`,
    );
    expect(existsSync(join(other.home, ".skillhub", "repos"))).toBe(true);
    expect(readRepos(join(other.home, ".skillhub", "repos"))).toEqual([]);

    // Not frozen, not pinned: the branch is followed, the copy reset with a warning, the lock shows the change.
    const moved = await cli(m, ["sync"], env);
    expect(moved.code).toBe(0);
    expect(copyHead(m)).toBe(rewritten);
    expect(moved.out).toContain("e.g. after a force-push; it was reset to the remote");
    expect(moved.out).toContain("changed skill team:alpha file SKILL.md");
    expect(lockOf(m).sources.team.commit).toBe(rewritten);
  });
});

describe("the running server keeps pins too", () => {
  test("refresh_skills leaves a pinned repository at its locked commit when the tag moves", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed text.") });
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    const m = machine();
    const env = { SKILLS_REPO: remote.url, SKILLS_REF: "v1" };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Moved tag text."));
    remote.push("moved");
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);
    const s = await connect({
      home: m.home,
      cwd: m.project,
      env,
      flags: { project: m.project },
      hub: { env: GIT_ENV, git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    try {
      const result = await s.call("refresh_skills", {});
      expect(result.isError).toBeFalsy();
      expect(s.hub.catalog.get("alpha")?.description).toBe("Reviewed text.");
    } finally {
      await s.close();
    }
  });
});

/**
 * A folder holding `git-remote-tst`, a remote helper that connects to `bare` whatever address it is given:
 * `tst::https://u:TOKEN@example.com/team.git` then works as a user's own remote-helper URL does.
 */
function remoteHelper(bare: string): string {
  const bin = tempDir("skillhub-helper-");
  write(
    join(bin, "git-remote-tst"),
    `#!/bin/sh\nwhile read line; do\n  case "$line" in\n    capabilities) printf 'connect\\n\\n' ;;\n    connect*) printf '\\n'; exec git "\${line#connect git-}" '${bare}' ;;\n    *) exit 0 ;;\n  esac\ndone\n`,
  );
  chmodSync(join(bin, "git-remote-tst"), 0o755);
  return bin;
}

describe("a lock written when a URL's shown form still held a credential", () => {
  test("keeps its pin (a moved tag is not followed), and verify and sync never print the credential", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed text.") });
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    const reviewed = git(["rev-parse", "HEAD"], remote.work);
    const url = "tst::https://u:S3CRET-TOKEN@example.com/team.git";
    const env = {
      SKILLS_REPO: url,
      SKILLS_REF: "v1",
      PATH: `${remoteHelper(remote.bare)}:${process.env.PATH ?? ""}`,
    };
    const m = machine();
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    expect(lockOf(m).sources.team).toEqual({ url: "tst::https://example.com/team.git", ref: "v1", commit: reviewed });
    // The lock as an earlier SkillHub wrote it: the address as configured, credential and all.
    writeFileSync(
      m.lock,
      readFileSync(m.lock, "utf8").replace("tst::https://example.com/", "tst::https://u:S3CRET-TOKEN@example.com/"),
    );
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Moved tag text."));
    remote.push("moved");
    git(["tag", "-f", "v1"], remote.work);
    git(["push", "--quiet", "--force", "origin", "v1"], remote.work);

    const verified = await cli(m, ["verify"], env);
    expect(verified.code).toBe(1);
    expect(verified.out + verified.err).toContain(
      "changed source team: url tst::https://***@example.com/team.git → tst::https://example.com/team.git",
    );
    const synced = await cli(m, ["sync"], env);
    expect(synced.code).toBe(0);
    expect(copyHead(m)).toBe(reviewed);
    for (const text of [verified.out, verified.err, synced.out, synced.err, readFileSync(m.lock, "utf8")])
      expect(text).not.toContain("S3CRET");
    expect(lockOf(m).sources.team).toEqual({ url: "tst::https://example.com/team.git", ref: "v1", commit: reviewed });
    expect((await cli(m, ["verify"], env)).code).toBe(0);
  });
});
