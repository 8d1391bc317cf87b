import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cleanupTemp, write } from "../../helpers/fs.ts";
import { GIT_ENV, git, type Remote, skillText } from "../../helpers/git.ts";
import { cli } from "../../lock/cli.ts";
import { refusedThenRestored, replaceObject, signedCopy, unpackObjects } from "./signed-copy.ts";

afterAll(cleanupTemp);

/** The tree `lines` (`git mktree` input: mode, type, object, tab, name) make in `repo`, written as given. */
function mktree(repo: string, lines: string[]): string {
  const input = Buffer.from(lines.map((line) => `${line}\n`).join(""));
  const made = Bun.spawnSync(["git", "mktree"], { cwd: repo, env: GIT_ENV, stdin: input, stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`git mktree failed: ${made.stderr.toString()}`);
  return made.stdout.toString().trim();
}

/** Commit `tree` on the remote's branch, SSH-signed with `key`, and push it. */
function pushSignedTree(remote: Remote, tree: string, key: string): string {
  const sign = ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}`];
  const commit = git([...sign, "commit-tree", "-S", tree, "-p", "HEAD", "-m", "written by another tool"], remote.work);
  git(["update-ref", "refs/heads/main", commit], remote.work);
  git(["push", "--quiet", "origin", "main"], remote.work);
  return commit;
}

describe("trust.allowed_signers: a signed tree that git would write otherwise", () => {
  test("an entry of mode 100664 and an empty folder are served as signed; a tree of one's own under such a tree's name is not", async () => {
    const { m, env, copy, remote, trusted } = await signedCopy("Signed by the team.");
    // Early git wrote group-writable files as 100664; other tools write empty trees. git reads both, and
    // its index holds neither as such: 100664 becomes 100644, an empty folder nothing.
    const w = remote.work;
    const blob = git(["rev-parse", "HEAD:skills/alpha/SKILL.md"], w);
    const alpha = mktree(w, [`100664 blob ${blob}\tSKILL.md`]);
    const skills = mktree(w, [`040000 tree ${alpha}\talpha`, `040000 tree ${mktree(w, [])}\tempty`]);
    const commit = pushSignedTree(remote, mktree(w, [`040000 tree ${skills}\tskills`]), trusted.key);
    const raw = Bun.spawnSync(["git", "cat-file", "tree", alpha], { cwd: w, env: GIT_ENV }).stdout.toString("latin1");
    expect(raw).toStartWith("100664 SKILL.md\0");

    const synced = await cli(m, ["sync"], env);
    expect(synced.err).not.toContain("not served");
    expect(git(["rev-parse", "HEAD"], copy)).toBe(commit);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("Signed by the team.");
    expect(JSON.parse((await cli(m, ["doctor", "--json"], env)).out).repos[0].not_served).toBeUndefined();

    // The 100664 tree's object overwritten on disk by a tree of the attacker's, itself of mode 100664.
    unpackObjects(copy);
    write(join(copy, "skills", "alpha", "SKILL.md"), skillText("alpha", "Tampered on disk."));
    const planted = git(["hash-object", "-w", "skills/alpha/SKILL.md"], copy);
    replaceObject(copy, alpha, mktree(copy, [`100664 blob ${planted}\tSKILL.md`]));
    expect(git(["ls-tree", "-r", "HEAD", "skills/alpha/"], copy)).toContain(planted);
    const why = `its .git holds trees that are not those of commit ${commit.slice(0, 12)}`;
    await refusedThenRestored(m, env, why, "Signed by the team.", "Tampered on disk.");
  });
});

describe("trust.allowed_signers: objects replaced in a copy's .git", () => {
  test("a signed file's object replaced on disk is written again by every checkout: the sync clones the copy again", async () => {
    const { m, env, copy } = await signedCopy("Signed by the team.");
    unpackObjects(copy);
    const file = join(copy, "skills", "alpha", "SKILL.md");
    const signed = git(["rev-parse", "HEAD:skills/alpha/SKILL.md"], copy);
    write(file, skillText("alpha", "Tampered on disk."));
    replaceObject(copy, signed, git(["hash-object", "-w", "skills/alpha/SKILL.md"], copy));
    const commit = git(["rev-parse", "HEAD"], copy).slice(0, 12);
    const synced = await cli(m, ["sync"], env);
    expect(synced.code).toBe(0);
    expect(synced.out).toContain(
      `the copy in ${copy} was removed and cloned again: its .git wrote files that are not those of commit ${commit} (objects replaced on disk).`,
    );
    const listed = (await cli(m, ["list", "--json"], env)).out;
    expect(listed).toContain("Signed by the team.");
    expect(listed).not.toContain("Tampered on disk.");
  });
});
