import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { git, skillText, sshKey } from "../../helpers/git.ts";
import { cli } from "../../lock/cli.ts";
import { gitStatusFromCommit, refusedThenRestored, signedCopy } from "./signed-copy.ts";

// What a signed copy can hold besides the commit's files, put there by whoever can write it, where the
// check of the copy (trust.allowed_signers) must not take it for the commit's.

afterAll(cleanupTemp);

describe("a program planted in a signed copy", () => {
  test("an ssh-keygen at the copy's root is never the verifier, even with '.' or an empty entry in PATH", async () => {
    const { m, env, copy } = await signedCopy("Signed by the team.");
    // A commit of the attacker's on disk, signed by a key the file does not list, and a verifier that says yes.
    const ran = join(tempDir("skillhub-ran-"), "ran");
    const verifier = write(
      join(copy, "ssh-keygen"),
      `#!/bin/sh\ntouch '${ran}'\ncase "$*" in\n  *find-principals*) echo trusted@example.com;;\n  *) cat >/dev/null; echo 'Good "git" signature for trusted@example.com with ED25519 key SHA256:x';;\nesac\n`,
    );
    chmodSync(verifier, 0o755);
    write(join(copy, "skills", "alpha", "SKILL.md"), skillText("alpha", "Tampered on disk."));
    const stranger = sshKey(tempDir("skillhub-keys-"), "stranger");
    git(["add", "-A"], copy);
    git(["-c", "gpg.format=ssh", "-c", `user.signingkey=${stranger.key}`, "commit", "-S", "--quiet", "-m", "x"], copy);
    for (const PATH of [`.:${process.env.PATH}`, `:${process.env.PATH}`]) {
      expect((await cli(m, ["list", "--json"], { ...env, PATH })).out).not.toContain("Tampered on disk.");
      const doctor = JSON.parse((await cli(m, ["doctor", "--json"], { ...env, PATH })).out);
      expect(doctor.repos[0].not_served).toContain("its signature is not by a key in");
    }
    expect(existsSync(ran)).toBe(false);
  });
});

/**
 * A PATH whose git cannot read a folder its mode forbids, as any user but root: for root, a `git` that
 * drops the capabilities that let root read any folder (setpriv). Undefined where neither can be had.
 */
function gitBoundByModes(): string | undefined {
  if (process.platform === "win32") return undefined;
  if (process.getuid?.() !== 0) return process.env.PATH;
  const setpriv = Bun.which("setpriv");
  const realGit = Bun.which("git");
  if (!setpriv || !realGit) return undefined;
  const folder = tempDir("skillhub-git-");
  const caps = "-dac_read_search,-dac_override";
  write(join(folder, "git"), `#!/bin/sh\nexec ${setpriv} --bounding-set ${caps} --inh-caps ${caps} ${realGit} "$@"\n`);
  chmodSync(join(folder, "git"), 0o755);
  return `${folder}:${process.env.PATH}`;
}
const BOUND_PATH = gitBoundByModes();
if (!BOUND_PATH) process.stderr.write("skipping the execute-only folder test: running as root without setpriv\n");

describe("a folder of a signed copy that git cannot list", () => {
  test.skipIf(!BOUND_PATH)(
    "an execute-only folder, whose files open by name but which git status passes over, makes the copy unserved",
    async () => {
      const { m, env, copy } = await signedCopy("Signed by the team.");
      const hidden = join(copy, "skills", "alpha", "hidden");
      write(join(hidden, "planted.md"), "Planted on disk.\n");
      chmodSync(hidden, 0o111);
      try {
        const bound = { ...env, PATH: BOUND_PATH as string };
        const commit = git(["rev-parse", "HEAD"], copy).slice(0, 12);
        const doctor = JSON.parse((await cli(m, ["doctor", "--json"], bound)).out);
        expect(doctor.repos[0].not_served).toBe(
          `its files cannot be compared with commit ${commit} (could not open directory 'skills/alpha/hidden/': Permission denied)`,
        );
        expect((await cli(m, ["list", "--json"], bound)).out).not.toContain("Signed by the team.");
      } finally {
        chmodSync(hidden, 0o755);
      }
    },
  );
});

describe("a signed link into a copy's .git", () => {
  test("a skill folder, or the skills folder, committed as a link into .git serves nothing put there", async () => {
    const { m, env, copy } = await signedCopy("Signed by the team.", (remote) => {
      // Skills at the repository's root, where `.git` is beside them.
      remote.remove("skills");
      remote.write("alpha/SKILL.md", skillText("alpha", "Signed by the team."));
      symlinkSync(".git/planted", join(remote.work, "beta"));
    });
    write(join(copy, ".git", "planted", "SKILL.md"), skillText("beta", "Planted on disk."));
    const listed = (await cli(m, ["list", "--json"], env)).out;
    expect(listed).toContain("Signed by the team.");
    expect(listed).not.toContain("Planted on disk.");

    const linked = await signedCopy("Signed by the team.", (remote) => {
      remote.remove("skills");
      symlinkSync(".git/planted", join(remote.work, "skills"));
    });
    write(join(linked.copy, ".git", "planted", "beta", "SKILL.md"), skillText("beta", "Planted on disk."));
    expect((await cli(linked.m, ["list", "--json"], linked.env)).out).not.toContain("Planted on disk.");
  });
});

describe("a repository planted in a signed copy's folders", () => {
  test("a .git put in a skill's folder, which git status never reports and a script's git would use, makes the copy unserved", async () => {
    const { m, env, copy } = await signedCopy("Signed by the team.");
    // A repository of the attacker's where a skill's script runs: its config names a program any git there runs.
    const marker = join(tempDir("skillhub-ran-"), "ran");
    git(["init", "--quiet", join(copy, "skills", "alpha")], copy);
    git(["config", "core.fsmonitor", `touch '${marker}'`], join(copy, "skills", "alpha"));
    expect(gitStatusFromCommit(copy)).toBe("");
    await refusedThenRestored(m, env, "skills/alpha/.git", "Signed by the team.", "Planted on disk.");
    expect(existsSync(join(copy, "skills", "alpha", ".git"))).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});
