import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, lchownSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GitError } from "../../../src/refresh/git/git-errors.ts";
import { GitRunner } from "../../../src/refresh/git/git-runner.ts";
import { isPrivateGroup, othersCanChange } from "../../../src/refresh/git/git-signers.ts";
import type { RepoTarget } from "../../../src/refresh/git/git-target.ts";
import { verifySigned } from "../../../src/refresh/git/git-trust.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { GIT_ENV, remoteRepo, signedCommit, skillText, sshKey } from "../../helpers/git.ts";
import { cli, machine, repoServerOn } from "../../lock/cli.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

const ROOT = process.getuid?.() === 0;

/** A team repository whose tip is signed by `trusted`, and a signers file listing that key. */
function signedTeam() {
  const keys = tempDir("skillhub-keys-");
  chmodSync(keys, 0o755);
  const trusted = sshKey(keys, "trusted");
  const stranger = sshKey(keys, "stranger");
  const signers = join(keys, "allowed_signers");
  writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
  const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
  remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed by the team."));
  signedCommit(remote, "signed", trusted.key);
  return { keys, trusted, stranger, signers, remote };
}

describe("the allowed-signers file", () => {
  test("one that other users could change vouches for no commit: the file, its folder, a link in front of it", async () => {
    const team = signedTeam();
    const env = (signers: string) => ({ SKILLS_REPO: team.remote.url, SKILLHUB_ALLOWED_SIGNERS: signers });
    const m = machine();
    expect((await cli(m, ["sync"], env(team.signers))).code).toBe(0);

    const refusedWith = async (signers: string, why: RegExp) => {
      const sync = await cli(machine(), ["sync", "--json"], env(signers));
      expect(sync.code).toBe(1);
      const error = JSON.parse(sync.out).repos[0].error;
      expect(error.code).toBe("GIT_SIGNATURE_INVALID");
      expect(error.message).toContain("could be changed by other users");
      expect(error.message).toMatch(why);
      // A copy already verified with it is not served either.
      expect((await cli(m, ["list", "--json"], env(signers))).out).not.toContain("Signed by the team.");
    };

    chmodSync(team.signers, 0o666);
    await refusedWith(team.signers, /is writable by every user/);
    chmodSync(team.signers, 0o644);

    const shared = tempDir("skillhub-shared-");
    chmodSync(shared, 0o777);
    const inShared = join(shared, "allowed_signers");
    writeFileSync(inShared, `trusted@example.com ${team.trusted.pub}\n`);
    await refusedWith(inShared, /skillhub-shared-[^ ]* is writable by every user/);
    // The same folder with the sticky bit (as /tmp): others cannot replace what is in it.
    chmodSync(shared, 0o1777);
    expect((await cli(machine(), ["sync"], env(inShared))).code).toBe(0);

    if (ROOT) {
      // A link another user owns decides where the name leads.
      const links = tempDir("skillhub-links-");
      chmodSync(links, 0o755);
      const link = join(links, "allowed_signers");
      symlinkSync(team.signers, link);
      lchownSync(link, 4242, 4242);
      await refusedWith(link, /the link .* is owned by user 4242/);
      // The file itself owned by another user.
      const theirs = join(tempDir("skillhub-theirs-"), "allowed_signers");
      writeFileSync(theirs, `trusted@example.com ${team.trusted.pub}\n`);
      lchownSync(theirs, 4242, 4242);
      await refusedWith(theirs, /is owned by user 4242/);
    }
    // Untouched, the file is used.
    expect((await cli(m, ["list", "--json"], env(team.signers))).out).toContain("Signed by the team.");
  });

  test("a key taken out of the file stops vouching at once for what a running server serves", async () => {
    const team = signedTeam();
    const m = machine();
    const env = { SKILLS_REPO: team.remote.url, SKILLHUB_ALLOWED_SIGNERS: team.signers };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const s = await repoServerOn(m, env);
    closers.push(s.close);
    expect(s.hub.catalog.get("alpha")).toBeDefined();

    // The team's key is revoked: the file now lists another key only.
    writeFileSync(team.signers, `stranger@example.com ${team.stranger.pub}\n`);
    await s.call("refresh_skills");
    expect(s.hub.catalog.get("alpha")).toBeUndefined();
    expect((await s.call("skill", { name: "alpha" })).isError).toBe(true);
    expect(s.logger.lines.join("\n")).toContain("its signature is not by a key in");

    // Listed again: served again.
    writeFileSync(team.signers, `trusted@example.com ${team.trusted.pub}\n`);
    await s.call("refresh_skills");
    expect(s.hub.catalog.get("alpha")).toBeDefined();
  });

  test("ssh-keygen checks the very bytes SkillHub read, not the file as it is a moment later", async () => {
    const team = signedTeam();
    // A commit signed by a key the file does not list.
    team.remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed by a stranger."));
    const foreign = signedCommit(team.remote, "foreign", team.stranger.key);
    // git, as seen by SkillHub, with someone adding their key to the file just before it verifies.
    const wrapper = join(team.keys, "git-adding-a-key");
    writeFileSync(
      wrapper,
      `#!/bin/sh\ncase "$*" in *verify-commit*) printf 'stranger@example.com %s\\n' '${team.stranger.pub}' >> '${team.signers}';; esac\nexec git "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const runner = new GitRunner({ env: GIT_ENV, git: wrapper });
    const target = { spec: { url: team.remote.url } } as unknown as RepoTarget;
    const refused = await verifySigned(target, { git: runner }, team.remote.work, foreign, team.signers).catch(
      (error: GitError) => error,
    );
    expect((refused as GitError).code).toBe("GIT_SIGNATURE_INVALID");
    expect((refused as GitError).message).toContain(`its signature is not by a key in ${team.signers}`);
    // The key was added meanwhile: read again, it vouches (the next check sees the file as it is).
    expect(await verifySigned(target, { git: runner }, team.remote.work, foreign, team.signers)).toBeUndefined();
  });

  test("a folder and file of one's own pass; the check names what another user could change", () => {
    const folder = tempDir("skillhub-own-");
    const file = join(folder, "allowed_signers");
    writeFileSync(file, "x\n");
    expect(othersCanChange(file, file, statSync(file).ino)).toBeUndefined();
    mkdirSync(join(folder, "open"));
    chmodSync(join(folder, "open"), 0o777);
    const open = join(folder, "open", "signers");
    writeFileSync(open, "x\n");
    expect(othersCanChange(open, open, statSync(open).ino)).toMatch(/open is writable by every user/);
    expect(othersCanChange(file, file, statSync(file).ino + 1)).toContain("was replaced while it was read");
  });

  test("a group-writable file passes only in the user's private group", () => {
    const passwd = "ana:x:1000:1000::/home/ana:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\n";
    // Debian's and Fedora's user private groups.
    expect(isPrivateGroup(1000, "ana", "ana:x:1000:\nbob:x:1001:\n", passwd)).toBe(true);
    expect(isPrivateGroup(1000, "ana", "ana:x:1000:ana\n", passwd)).toBe(true);
    // A group with another member, another user's primary group, a shared group (macOS staff), an unknown one.
    expect(isPrivateGroup(1000, "ana", "ana:x:1000:bob\n", passwd)).toBe(false);
    expect(isPrivateGroup(1000, "ana", "ana:x:1000:\n", `${passwd}eve:x:1002:1000::/home/eve:/bin/sh\n`)).toBe(false);
    expect(isPrivateGroup(20, "ana", "staff:*:20:root\n", passwd)).toBe(false);
    expect(isPrivateGroup(1000, "ana", "", passwd)).toBe(false);
    // A second name for the same group id, with other members.
    expect(isPrivateGroup(1000, "ana", "ana:x:1000:\nteam:x:1000:bob\n", passwd)).toBe(false);
  });

  test.skipIf(process.getuid?.() !== 0)(
    "a group-writable signers file: the user's own group passes, another is refused",
    () => {
      const folder = tempDir("skillhub-own-");
      chmodSync(folder, 0o755);
      const file = join(folder, "allowed_signers");
      writeFileSync(file, "x\n");
      chmodSync(file, 0o664);
      // root's group is root's alone here (/etc/group and /etc/passwd say so).
      expect(othersCanChange(file, file, statSync(file).ino)).toBeUndefined();
      // Group 100 is `users` on Debian, Fedora and Arch: shared by every ordinary user.
      lchownSync(file, 0, 100);
      expect(othersCanChange(file, file, statSync(file).ino)).toMatch(/allowed_signers is writable by group 100/);
    },
  );
});
