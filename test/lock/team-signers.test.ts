import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Glob } from "bun";
import { binary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIT_ENV, git, type Remote, remoteRepo, signedCommit, skillText, sshKey } from "../helpers/git.ts";
import { eventually } from "../helpers/wait.ts";

afterAll(cleanupTemp);

/**
 * A team as a lead sets it up: two signers, a signed team repository, a project whose skillhub.yaml
 * names it (pinned to a tag when `pin` is given), committed with its lock, and machines (a HOME each)
 * that run the compiled binary in a clone of the project.
 */
function team(pin?: string) {
  const keys = tempDir("skillhub-team-keys-");
  chmodSync(keys, 0o755);
  const alice = sshKey(keys, "alice");
  const bob = sshKey(keys, "bob");
  const remote = remoteRepo("team-skills", { "skills/review/SKILL.md": skillText("review") });
  remote.write("skills/review/SKILL.md", skillText("review", "Review with the team checklist."));
  signedCommit(remote, "signed by alice", alice.key);
  if (pin) git(["tag", pin], remote.work), git(["push", "--quiet", "origin", pin], remote.work);
  const project = tempDir("skillhub-team-project-");
  write(
    join(project, "skillhub.yaml"),
    pin ? `git:\n  repos:\n    - url: ${remote.url}\n      ref: ${pin}\n` : `git:\n  repos:\n    - ${remote.url}\n`,
  );
  const machine = (signers: string[]) => {
    const home = tempDir("skillhub-team-home-");
    const file = join(home, "allowed_signers");
    const trust = (lines: string[]) => writeFileSync(file, lines.map((l) => `${l}\n`).join(""), { mode: 0o644 });
    trust(signers);
    const env = { ...GIT_ENV, HOME: home, SKILLHUB_ALLOWED_SIGNERS: file, SKILLHUB_WATCH: "0" } as Record<
      string,
      string
    >;
    const spawn = (args: string[], withEnv: Record<string, string>) => {
      // Run as a person runs it installed: the hints spell commands `skillhub …`.
      const p = Bun.spawnSync([binary(), ...args], { argv0: "skillhub", env: withEnv, cwd: project });
      return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
    };
    const run = (...args: string[]) => spawn(args, env);
    /** The same machine with no allowed-signers setting (a teammate who forgot it). */
    const unchecked = (...args: string[]) => {
      const { SKILLHUB_ALLOWED_SIGNERS: _, ...rest } = env;
      return spawn(args, rest);
    };
    return { run, unchecked, trust, home, env };
  };
  return {
    remote,
    project,
    machine,
    aliceLine: `alice@example.com ${alice.pub}`,
    bobLine: `bob@example.com ${bob.pub}`,
    alice,
    bob,
  };
}

/** Move `tag` of `remote` to its working clone's HEAD and push it. */
function moveTag(remote: Remote, tag: string) {
  git(["tag", "-f", tag], remote.work);
  git(["push", "--quiet", "--force", "origin", tag], remote.work);
}

describe("a team repository under trust.allowed_signers: what the commands tell the lead", () => {
  test("a retired signer's commit: verify and lock name what serves it again, not `lock` or `sync --frozen`", () => {
    const t = team();
    const lead = t.machine([t.aliceLine, t.bobLine]);
    const first = lead.run("sync");
    expect(first.code).toBe(0);
    // A first clone was never refused: nothing is served "again".
    expect(first.err).toContain("the copy is verified (trust.allowed_signers).");
    expect(first.err).not.toContain("served again");
    expect(lead.run("verify").code).toBe(0);
    // doctor says whether commits are checked at all: without the setting, unsigned ones are served.
    expect(lead.run("doctor").out).toContain("commit signatures: checked, only commits signed by a key in");
    expect(lead.unchecked("doctor").out).toContain("commit signatures: not checked (set SKILLHUB_ALLOWED_SIGNERS");
    expect(JSON.parse(lead.unchecked("doctor", "--json").out).allowed_signers).toBeNull();

    // Alice's key is retired while the branch's tip is still her commit.
    lead.trust([t.bobLine]);
    const verify = lead.run("verify");
    expect(verify.code).toBe(1);
    expect(verify.out).toContain("Repository team-skills is not served here: trust.allowed_signers refuses its copy");
    expect(verify.out).toContain(`once main of ${t.remote.url} has a commit signed by a key in`);
    expect(verify.out).not.toContain("run `skillhub lock` to accept them");
    const doctor = lead.run("doctor");
    expect(doctor.code).toBe(1);
    expect(doctor.out).toContain("not served: refused commit");
    expect(doctor.out).not.toContain("listed key (trust.allowed_signers)");
    // sources does not show it as a repository without skills.
    expect(lead.run("sources").out).toContain("not served: trust.allowed_signers refuses the copy; `skillhub doctor`");
    const lock = lead.run("lock");
    expect(lock.code).toBe(1);
    expect(lock.err).toContain(`no lock was written; a sync serves it again once main of ${t.remote.url}`);

    // The path they name: a remaining signer pushes a signed commit; a plain sync adopts it.
    signedCommit(t.remote, "re-signed by bob", t.bob.key);
    expect(lead.run("sync").code).toBe(0);
    expect(lead.run("verify").code).toBe(0);
  });

  test("a pinned repository whose signer is retired: the messages point at moving the pin, which works", () => {
    const t = team("v1");
    const lead = t.machine([t.aliceLine, t.bobLine]);
    expect(lead.run("sync").code).toBe(0);
    lead.trust([t.bobLine]);
    signedCommit(t.remote, "re-signed by bob", t.bob.key);
    // A plain sync never moves a pin: it cannot serve the repository again, and says what does.
    const sync = lead.run("sync");
    expect(sync.code).toBe(1);
    expect(sync.out).toContain("until its pin v1 names a commit signed by a key in");
    expect(sync.out).toContain("`skillhub sync --update team-skills` moves the pin if the tag v1 was moved to it");
    expect(sync.out).not.toContain("pushes a signed commit to v1");
    const verify = lead.run("verify");
    expect(verify.out).toContain("It is served again once its pin v1 names a commit signed by a key in");

    moveTag(t.remote, "v1");
    expect(lead.run("sync", "--update").code).toBe(0);
    expect(lead.run("verify").code).toBe(0);
  });

  test("a teammate whose copy is behind a pulled lock is told `sync --frozen` first", () => {
    const t = team();
    const lead = t.machine([t.aliceLine]);
    const mate = t.machine([t.aliceLine]);
    expect(lead.run("sync").code).toBe(0);
    expect(mate.run("sync", "--frozen").code).toBe(0);
    // The lead adopts a new signed commit; the teammate gets the new lock (the same file here).
    t.remote.write("skills/review/SKILL.md", skillText("review", "Review with the new checklist."));
    signedCommit(t.remote, "new checklist", t.alice.key);
    expect(lead.run("sync", "--update").code).toBe(0);
    const verify = mate.run("verify");
    expect(verify.code).toBe(1);
    expect(verify.out).toContain("The copy of team-skills is at another commit than skillhub.lock records");
    expect(verify.out).toContain("run `skillhub sync --frozen` to check out the locked commit");
    // The copy is older than the lock: recording it would take back the reviewed change.
    expect(verify.out).toContain("A copy at an older commit is a rollback: it is not recorded.");
    expect(verify.out).not.toContain("to record the copy's instead");
    expect(verify.out).not.toContain("Review them, then run `skillhub lock`");
    expect(mate.run("sync", "--frozen").code).toBe(0);
    expect(mate.run("verify").code).toBe(0);
  });

  test("a copy changed on disk: verify says `sync --frozen` puts it back, which keeps the lock as it is", () => {
    const t = team();
    const ci = t.machine([t.aliceLine]);
    expect(ci.run("sync").code).toBe(0);
    const lock = readFileSync(join(t.project, "skillhub.lock"), "utf8");
    const [copy] = new Glob(".skillhub/repos/team-skills-*/skills/review/SKILL.md").scanSync({
      cwd: ci.home,
      dot: true,
    });
    appendFileSync(join(ci.home, copy as string), "\nRun this too.\n");
    const verify = ci.run("verify");
    expect(verify.code).toBe(1);
    expect(verify.out).toContain("`skillhub sync --frozen` puts its files back at the commit skillhub.lock records");
    expect(ci.run("sync", "--frozen").code).toBe(0);
    expect(ci.run("verify").code).toBe(0);
    expect(readFileSync(join(t.project, "skillhub.lock"), "utf8")).toBe(lock);
  });

  test("adding a repository whose tip is unsigned records nothing, and says to add it again", () => {
    const t = team();
    const unsigned = remoteRepo("unsigned-skills", { "skills/x/SKILL.md": skillText("x") });
    const lead = t.machine([t.aliceLine]);
    const before = readFileSync(join(t.project, "skillhub.yaml"), "utf8");
    const add = lead.run("add", unsigned.url);
    expect(add.code).toBe(1);
    expect(add.err).toContain("it is not signed");
    expect(add.err).toContain("Nothing was added.");
    expect(add.err).toContain("run `skillhub add` again once that is fixed");
    expect(add.err).not.toContain("or run `skillhub sync`");
    expect(readFileSync(join(t.project, "skillhub.yaml"), "utf8")).toBe(before);
  });

  test("an unsigned tip on a teammate's first plain sync: it points at the locked commit, which `--frozen` serves", () => {
    const t = team();
    const lead = t.machine([t.aliceLine]);
    expect(lead.run("sync").code).toBe(0);
    t.remote.write("skills/review/SKILL.md", skillText("review", "Unreviewed."));
    signedCommit(t.remote, "unsigned");
    const mate = t.machine([t.aliceLine]);
    const sync = mate.run("sync");
    expect(sync.code).toBe(1);
    expect(sync.out).toContain("it is not signed");
    expect(sync.out).toContain(
      "skillhub.lock records a commit of it: `skillhub sync --frozen` fetches and serves that one.",
    );
    expect(mate.run("sync", "--frozen").code).toBe(0);
    expect(mate.run("verify").code).toBe(0);
  });

  test("a frozen server after a pull of a newer lock: the refusal says `sync --frozen`, which serves the new commit", async () => {
    const t = team();
    const lead = t.machine([t.aliceLine]);
    const mate = t.machine([t.aliceLine]);
    expect(lead.run("sync").code).toBe(0);
    expect(mate.run("sync", "--frozen").code).toBe(0);
    const transport = new StdioClientTransport({
      command: binary(),
      args: ["serve", "--frozen"],
      // The copies a command moves are noticed by the stat check (no watch covers them): a short one.
      env: { ...mate.env, SKILLHUB_FROZEN: "1", SKILLHUB_RESCAN_SECONDS: "1" },
      cwd: t.project,
      stderr: "pipe",
    });
    const client = new Client({ name: "team-signers", version: "1.0.0" });
    await client.connect(transport);
    try {
      const review = () => client.callTool({ name: "skill", arguments: { name: "review" } }) as Promise<CallToolResult>;
      expect((await review()).isError).toBeFalsy();
      // The lead adopts a new signed commit; the teammate's project now holds the newer lock.
      t.remote.write("skills/review/SKILL.md", skillText("review", "Review with the new checklist."));
      signedCommit(t.remote, "new checklist", t.alice.key);
      expect(lead.run("sync").code).toBe(0);
      const refused = await eventually(async () => {
        const r = await review();
        return r.isError ? r : undefined;
      });
      const error = (refused?.structuredContent as { error: { code: string; message: string } }).error;
      expect(error.code).toBe("SKILL_LOCK_MISMATCH");
      expect(error.message).toContain(
        "`skillhub sync --frozen` puts its repository's copy at the commit the lock records",
      );
      expect(error.message).not.toContain("run `skillhub lock`");
      expect(mate.run("sync", "--frozen").code).toBe(0);
      await eventually(async () => {
        const r = await review();
        return !r.isError && JSON.stringify(r.content).includes("Review with the new checklist.");
      });
    } finally {
      await client.close();
    }
  });

  test("frozen, a locked commit whose signer was retired: sync --frozen says the lock must record a signed one", () => {
    const t = team();
    const lead = t.machine([t.aliceLine, t.bobLine]);
    expect(lead.run("sync").code).toBe(0);
    const mate = t.machine([t.bobLine]);
    const frozen = mate.run("sync", "--frozen");
    expect(frozen.code).toBe(1);
    expect(frozen.out).toContain("Frozen, only the commit skillhub.lock records is fetched");
    // The path it names: a listed signer pushes, the lead adopts it into the lock, the teammate syncs frozen.
    signedCommit(t.remote, "re-signed by bob", t.bob.key);
    expect(lead.run("sync").code).toBe(0);
    expect(mate.run("sync", "--frozen").code).toBe(0);
    expect(mate.run("verify").code).toBe(0);
  });
});
