import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readLockfile } from "../../src/lock/lockfile.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { git, type Remote, remoteRepo, signedCommit, skillText, sshKey } from "../helpers/git.ts";
import { cli, machine } from "./cli.ts";

afterAll(cleanupTemp);

/**
 * A team repository (SKILLS_REPO) whose main branch holds the reviewed `deploy`, and a commit of a fork's
 * that only `refs/pull/2/head` reaches, as GitHub serves a pull request's under the original URL. With
 * `key`, both are signed by it.
 */
function teamWithFork(key?: string): { remote: Remote; reviewed: string; fork: string } {
  const remote = remoteRepo("team2", { "skills/deploy/SKILL.md": skillText("deploy", "First draft.") });
  remote.write("skills/deploy/SKILL.md", skillText("deploy", "Deploy with care."));
  const reviewed = signedCommit(remote, "reviewed", key);
  git(["checkout", "--quiet", "-b", "fork"], remote.work);
  remote.write("skills/deploy/SKILL.md", skillText("deploy", "A fork's deploy."));
  git(["add", "-A"], remote.work);
  const sign = key ? ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}`, "commit", "-S"] : ["commit"];
  git([...sign, "--quiet", "-m", "fork"], remote.work);
  const fork = git(["rev-parse", "HEAD"], remote.work);
  git(["push", "--quiet", "origin", "HEAD:refs/pull/2/head"], remote.work);
  git(["checkout", "--quiet", "main"], remote.work);
  return { remote, reviewed, fork };
}

/** `url` without its `.git`. */
const withoutGit = (url: string) => url.replace(/\.git$/, "");
/** The plain path a `file://` URL names. */
const asPath = (url: string) => fileURLToPath(url);
/** `url` with its last slash doubled. */
const doubledSlash = (url: string) => url.replace(/\/(?=[^/]*$)/, "//");

describe("a project's skillhub.yaml cannot choose the commit of SKILLS_REPO's repository", () => {
  for (const signed of [false, true])
    for (const [spelling, spell] of [
      ["as SKILLS_REPO spells it", (url: string) => url],
      ["with a trailing slash", (url: string) => `${url}/`],
      ["without .git", withoutGit],
      ["as a plain path", asPath],
      ["with a doubled slash", doubledSlash],
    ] as const)
      test(`${signed ? "with allowed signers, " : ""}a project's entry of it ${spelling}, pinned to a fork's commit, serves SKILLS_REPO's branch`, async () => {
        const keys = tempDir("skillhub-keys-");
        const trusted = signed ? sshKey(keys, "trusted") : undefined;
        const { remote, reviewed, fork } = teamWithFork(trusted?.key);
        const m = machine();
        const env: Record<string, string> = { SKILLS_REPO: remote.url };
        if (trusted) {
          const signers = join(keys, "allowed_signers");
          writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
          env.SKILLHUB_ALLOWED_SIGNERS = signers;
        }
        // A project you clone names your team's repository, pinned to the fork's commit.
        const entry = `    - url: ${spell(remote.url)}\n      ref: ${fork}\n`;
        write(join(m.project, "skillhub.yaml"), `git:\n  repos:\n${entry}`);

        const synced = await cli(m, ["sync"], env);
        expect(synced.code, synced.out + synced.err).toBe(0);
        for (const name of ["deploy", "team2:deploy"]) {
          const shown = await cli(m, ["show", name], env);
          expect(shown.code, shown.err).toBe(0);
          expect(shown.out).toContain("Deploy with care.");
          expect(shown.out).not.toContain("A fork's deploy.");
        }
        // The project's pin is said not to be served, in every command, doctor's report included.
        const overridden = `the project's skillhub.yaml gives ${spell(remote.url)} ref ${fork}, but SKILLS_REPO names that repository too, and your setting decides its copy (its default branch): take it out of the project's file or SKILLS_REPO to serve the project's.`;
        expect(synced.err).toContain(`skillhub: warning: config ${overridden}`);
        expect(JSON.parse((await cli(m, ["doctor", "--json"], env)).out).config_warnings).toContain(overridden);
        // One copy, at main's commit, recorded by the project's lock under SKILLS_REPO's URL.
        const repos = join(m.home, ".skillhub", "repos");
        const copies = existsSync(repos)
          ? readdirSync(repos).filter((n) => !n.startsWith(".") && !n.endsWith(".lock"))
          : [];
        expect(copies).toHaveLength(1);
        expect(git(["rev-parse", "HEAD"], join(repos, copies[0] as string))).toBe(reviewed);
        expect(readLockfile(m.lock).sources).toEqual({ team2: { url: remote.url, ref: "main", commit: reviewed } });
      }, 120_000);

  test("a project's repository of the same name at another path stays the project's, at its own pin", async () => {
    const { remote } = teamWithFork();
    const theirs = remoteRepo("team2", {
      "skills/deploy/SKILL.md": skillText("deploy", "The project's pinned deploy."),
    });
    git(["tag", "v0.1"], theirs.work);
    git(["push", "--quiet", "origin", "v0.1"], theirs.work);
    const pinned = git(["rev-parse", "HEAD"], theirs.work);
    theirs.write("skills/deploy/SKILL.md", skillText("deploy", "The project's later deploy."));
    theirs.push("later");
    const m = machine();
    const env = { SKILLS_REPO: remote.url };
    write(join(m.project, "skillhub.yaml"), `git:\n  repos:\n    - url: ${asPath(theirs.url)}\n      ref: v0.1\n`);

    const synced = await cli(m, ["sync"], env);
    expect(synced.code, synced.out + synced.err).toBe(0);
    expect(synced.err).not.toContain("SKILLS_REPO names that repository too");
    expect((await cli(m, ["show", "team2:deploy"], env)).out).toContain("Deploy with care.");
    expect((await cli(m, ["show", "team2-2:deploy"], env)).out).toContain("The project's pinned deploy.");
    expect(readLockfile(m.lock).sources["team2-2"]).toEqual({ url: asPath(theirs.url), ref: "v0.1", commit: pinned });
  }, 120_000);
});
