import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { remoteRepo, signedCommit, skillText, sshKey } from "../helpers/git.ts";
import { cli, machine } from "../lock/cli.ts";

afterAll(cleanupTemp);

/** `~/.skillhub/config.yaml` of the machine's home, holding `yaml`. */
function userConfig(home: string, yaml: string) {
  mkdirSync(join(home, ".skillhub"), { recursive: true });
  writeFileSync(join(home, ".skillhub", "config.yaml"), yaml);
}

describe("a `~/` path in the user's config file is the home's, for every setting that names a file", () => {
  test("lock.file: skillhub lock writes the lock in the home, not in a folder named ~ where it runs", async () => {
    const m = machine();
    write(join(m.skills, "notes", "SKILL.md"), skillText("notes"));
    userConfig(m.home, "lock:\n  file: ~/locks/team.lock\n");
    const out = await cli(m, ["lock"]);
    expect(out.code).toBe(0);
    expect(existsSync(join(m.home, "locks", "team.lock"))).toBe(true);
    expect(existsSync(join(m.project, "~"))).toBe(false);
  });

  test("trust.allowed_signers: sync checks commits against the home's file, found", async () => {
    const m = machine();
    const keys = tempDir("skillhub-home-keys-");
    const alice = sshKey(keys, "alice");
    const remote = remoteRepo("team-skills", { "skills/review/SKILL.md": skillText("review") });
    remote.write("skills/review/SKILL.md", skillText("review", "Review with the checklist."));
    signedCommit(remote, "signed by alice", alice.key);
    writeFileSync(join(m.home, "allowed_signers"), `alice@example.com ${alice.pub}\n`, { mode: 0o600 });
    userConfig(m.home, `trust:\n  allowed_signers: ~/allowed_signers\ngit:\n  repos:\n    - ${remote.url}\n`);
    const sync = await cli(m, ["sync"]);
    expect(sync.err).not.toContain("does not exist");
    expect(sync.code).toBe(0);
    expect(sync.err).toContain("the copy is verified (trust.allowed_signers)");
  });
});
