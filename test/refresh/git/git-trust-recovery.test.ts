import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir } from "../../helpers/fs.ts";
import { git, remoteRepo, signedCommit, skillText, sshKey } from "../../helpers/git.ts";
import { cli, type Machine, machine } from "../../lock/cli.ts";

afterAll(cleanupTemp);

/** The machine's copy of its only repository. */
function copyOf(m: Machine): string {
  const repos = join(m.home, ".skillhub", "repos");
  const [slug] = readdirSync(repos).filter((n) => !n.startsWith("."));
  return join(repos, slug as string);
}

/** An allowed-signers file listing one fresh key, and a key it does not list. */
function keys() {
  const dir = tempDir("skillhub-keys-");
  const trusted = sshKey(dir, "trusted");
  const stranger = sshKey(dir, "stranger");
  const signers = join(dir, "allowed_signers");
  writeFileSync(signers, `trusted@example.com ${trusted.pub}\n`);
  return { trusted, stranger, signers };
}

describe("a refused sync says what is served, and what serves the copy again", () => {
  test("a verified copy with local edits is put back at its signed commit when the new tip is refused", async () => {
    const k = keys();
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed by the team."));
    const good = signedCommit(remote, "signed", k.trusted.key);
    const m = machine();
    const env = { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: k.signers };
    expect((await cli(m, ["sync"], env)).code).toBe(0);

    writeFileSync(join(copyOf(m), "skills", "alpha", "SKILL.md"), skillText("alpha", "Edited on disk."));
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed by a stranger."));
    signedCommit(remote, "foreign", k.stranger.key);
    const refused = await cli(m, ["sync"], env);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(
      `The copy was put back at its last verified commit ${good.slice(0, 12)} (local changes in ${copyOf(m)} discarded), which is served.`,
    );
    expect(refused.out).toContain("1 skill indexed");
    expect(refused.out + refused.err).not.toContain("A successful sync replaces it");
    expect(git(["rev-parse", "HEAD"], copyOf(m))).toBe(good);
    expect((await cli(m, ["show", "alpha"], env)).out).toContain("Signed by the team.");

    const doctor = await cli(m, ["doctor"], env);
    expect(doctor.code).toBe(0);
    expect(doctor.out).toContain("the last sync failed (");
    expect(doctor.out).toContain("its signature is not by a key in");
    expect(doctor.out).toContain("    served: 1 skill\n");
  });

  test("over an unsigned copy whose tip is unsigned too: nothing is served, said everywhere, doctor exits 1", async () => {
    const k = keys();
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: remote.url })).code).toBe(0);
    const head = git(["rev-parse", "HEAD"], copyOf(m));
    const env = { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: k.signers };
    const refused = await cli(m, ["sync"], env);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(
      `The copy's own commit ${head.slice(0, 12)} is not signed by a listed key either, so nothing of ${remote.url} can be served until someone whose key ${k.signers} lists pushes a signed commit to main.`,
    );
    expect(refused.out).not.toContain("still served");
    expect(refused.err).not.toContain("Serving the local copy");
    expect(refused.out).toContain("0 skills indexed");

    const doctor = await cli(m, ["doctor"], env);
    expect(doctor.code).toBe(1);
    expect(doctor.out).toContain("the last sync failed (");
    expect(doctor.out).toContain("    not served: refused commit");
    expect(doctor.out).toContain("Not served: the skills of repository team (see Git repositories above).");
    expect(doctor.out).not.toContain("Put skill folders");
    const json = await cli(m, ["doctor", "--json"], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).repos[0].served).toBe(false);

    // A commit signed by a listed key is pushed: served again, the failure gone from doctor.
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed now."));
    signedCommit(remote, "signed", k.trusted.key);
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const healed = await cli(m, ["doctor"], env);
    expect(healed.code).toBe(0);
    expect(healed.out).not.toContain("the last sync failed");
  });

  test("an unreachable remote: the command says how to retry, doctor shows the failure beside the copy it still serves", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const m = machine();
    const env = { SKILLS_REPO: remote.url };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    renameSync(remote.bare, `${remote.bare}.away`);
    const failed = await cli(m, ["sync"], env);
    expect(failed.code).toBe(1);
    expect(failed.out).toContain("(the local copy is still served)");
    expect(failed.err).toContain("run `skillhub sync` again once that is fixed.");
    expect(failed.err).not.toContain("background sync");
    const doctor = await cli(m, ["doctor"], env);
    expect(doctor.code).toBe(0);
    expect(doctor.out).toMatch(/the last sync failed \([^)]+\): /);
    expect(doctor.out).toContain("    served: 1 skill\n");
    renameSync(`${remote.bare}.away`, remote.bare);
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    expect((await cli(m, ["doctor"], env)).out).not.toContain("the last sync failed");
  });
});
