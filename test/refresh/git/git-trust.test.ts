import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { git, type Remote, remoteRepo, skillText } from "../../helpers/git.ts";
import { cli, type Machine, machine } from "../../lock/cli.ts";

afterAll(cleanupTemp);

/** A fresh ed25519 key made with ssh-keygen for this test: { key (private), pub (its line) }. */
function sshKey(dir: string, name: string): { key: string; pub: string } {
  const key = join(dir, name);
  const proc = Bun.spawnSync(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", `${name}@example.com`, "-f", key]);
  if (proc.exitCode !== 0) throw new Error(`ssh-keygen failed: ${proc.stderr.toString()}`);
  return { key, pub: readFileSync(`${key}.pub`, "utf8").trim() };
}

/** Commit everything in the remote's working clone, signed with `key` (or unsigned), and push. */
function commit(remote: Remote, message: string, key?: string): string {
  git(["add", "-A"], remote.work);
  const sign = key ? ["-c", "gpg.format=ssh", "-c", `user.signingkey=${key}`, "commit", "-S"] : ["commit"];
  git([...sign, "--quiet", "--allow-empty", "-m", message], remote.work);
  git(["push", "--quiet", "origin", "main"], remote.work);
  return git(["rev-parse", "HEAD"], remote.work);
}

function copyHead(m: Machine): string {
  const repos = join(m.home, ".skillhub", "repos");
  const [slug] = readdirSync(repos).filter((n) => !n.startsWith("."));
  return git(["rev-parse", "HEAD"], join(repos, slug as string));
}

describe("trust.allowed_signers: only commits signed by a listed SSH key", () => {
  test("a signed commit is synced; an unsigned or foreign-signed one is refused and the last good checkout kept", async () => {
    const keys = tempDir("skillhub-keys-");
    const trusted = sshKey(keys, "trusted");
    const stranger = sshKey(keys, "stranger");
    const signers = join(keys, "allowed_signers");
    writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);

    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed by the team."));
    const good = commit(remote, "signed", trusted.key);
    const m = machine();
    const env = { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: signers };
    const first = await cli(m, ["sync"], env);
    expect(first.err).not.toContain("FAILED");
    expect(first.code).toBe(0);
    expect(copyHead(m)).toBe(good);

    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Unsigned change."));
    const unsigned = commit(remote, "unsigned");
    const refused = await cli(m, ["sync", "--json"], env);
    expect(refused.code).toBe(1);
    const error = JSON.parse(refused.out).repos[0].error;
    expect(error.code).toBe("GIT_SIGNATURE_INVALID");
    expect(error.message).toBe(
      `refused commit ${unsigned.slice(0, 12)} of ${remote.url}: it is not signed. trust.allowed_signers accepts only commits signed by a listed key; the last good checkout is kept.`,
    );
    expect(copyHead(m)).toBe(good);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).sources.team.commit).toBe(good);

    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed by a stranger."));
    const foreign = commit(remote, "foreign", stranger.key);
    const again = await cli(m, ["sync", "--json"], env);
    const second = JSON.parse(again.out).repos[0].error;
    expect(second.code).toBe("GIT_SIGNATURE_INVALID");
    expect(second.message).toContain(`refused commit ${foreign.slice(0, 12)}`);
    expect(second.message).toContain(`its signature is not by a key in ${signers}`);
    expect(copyHead(m)).toBe(good);
    expect(
      readFileSync(
        join(
          m.home,
          ".skillhub",
          "repos",
          readdirSync(join(m.home, ".skillhub", "repos"))[0] as string,
          "skills",
          "alpha",
          "SKILL.md",
        ),
        "utf8",
      ),
    ).toContain("Signed by the team.");

    // Signed again by the team: accepted.
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed again."));
    const fixed = commit(remote, "signed again", trusted.key);
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    expect(copyHead(m)).toBe(fixed);
  });

  test("a first clone whose tip is unsigned leaves no copy; a missing signers file refuses everything", async () => {
    const keys = tempDir("skillhub-keys-");
    const trusted = sshKey(keys, "trusted");
    const signers = join(keys, "allowed_signers");
    writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const m = machine();
    const result = await cli(m, ["sync", "--json"], { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: signers });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out).repos[0].error.code).toBe("GIT_SIGNATURE_INVALID");
    expect(readdirSync(join(m.home, ".skillhub", "repos"))).toEqual([]);
    const list = await cli(m, ["list", "--json"], { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: signers });
    expect(list.out).not.toContain("alpha");

    const missing = await cli(machine(), ["sync", "--json"], {
      SKILLS_REPO: remote.url,
      SKILLHUB_ALLOWED_SIGNERS: join(keys, "nope"),
    });
    const error = JSON.parse(missing.out).repos[0].error;
    expect(error.code).toBe("GIT_SIGNATURE_INVALID");
    expect(error.message).toContain("does not exist, so no commit");
  });
});
