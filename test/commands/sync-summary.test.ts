import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readLockfile } from "../../src/lock/lockfile.ts";
import { runBinary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, skillText } from "../helpers/git.ts";

afterAll(cleanupTemp);

const skillhub = (args: string[], cwd: string, home: string) =>
  runBinary(args, cwd, home, { ...GIT_ENV, LOG_LEVEL: "WARN" });

describe("skillhub sync's summary", () => {
  test("a failed repository: only the lock that records repositories says it was not written", () => {
    const home = tempDir();
    const project = join(home, "project");
    git(["init", "--quiet", "-b", "main", project]);
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n    - file://${tempDir()}/missing.git\n`);
    const sync = skillhub(["sync"], project, home);
    expect(sync.code).toBe(1);
    expect(sync.out).toContain(`${join(project, "skillhub.lock")}: not written, a repository could not be synced.`);
    expect(sync.out).not.toContain(join(home, ".skillhub", "skillhub.lock"));
  });

  test("frozen, a repository is at the locked commit, and the line says where its branch is and what moves the lock", () => {
    const home = tempDir();
    const project = join(home, "project");
    git(["init", "--quiet", "-b", "main", project]);
    const team = remoteRepo("team-skills", { "skills/pdf/SKILL.md": skillText("pdf") });
    const locked = git(["rev-parse", "HEAD"], team.work);
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n    - ${team.url}\n`);
    expect(skillhub(["sync"], project, home).code).toBe(0);
    team.write("skills/pdf/SKILL.md", skillText("pdf", "A newer version."));
    const tip = team.push("two");
    const at = `team-skills  ${locked.slice(0, 7)}  at the locked commit (branch main is at ${tip.slice(0, 7)}; \`skillhub sync\` moves the lock to it)  `;

    const frozen = skillhub(["sync", "--frozen"], project, home);
    expect(frozen.code, frozen.err).toBe(0);
    expect(frozen.out).toContain(at);
    expect(frozen.out).not.toContain("up to date");
    // Local changes discarded: still at the locked commit, said after the warning.
    const repos = join(home, ".skillhub", "repos");
    const copy = join(repos, readdirSync(repos).find((n) => n.startsWith("team-skills")) as string);
    write(join(copy, "skills", "pdf", "SKILL.md"), skillText("pdf", "Edited here."));
    const restored = skillhub(["sync", "--frozen"], project, home);
    expect(restored.code, restored.err).toBe(0);
    expect(restored.out).toContain(at);
    expect(restored.out).toContain("warning: local changes in");
    // A first copy, made frozen, knows the branch too.
    const fresh = tempDir();
    const cloned = skillhub(["sync", "--frozen"], project, fresh);
    expect(cloned.code, cloned.err).toBe(0);
    expect(cloned.out).toContain(
      `team-skills  ${locked.slice(0, 7)}  cloned at the locked commit, 1 file (branch main is at ${tip.slice(0, 7)}; `,
    );
    // Frozen by the environment, a plain sync is frozen too: the line names the sync that is not.
    const byEnv = runBinary(["sync"], project, home, { ...GIT_ENV, LOG_LEVEL: "WARN", SKILLHUB_FROZEN: "1" });
    expect(byEnv.out).toContain(`; \`SKILLHUB_FROZEN=0 skillhub sync\` moves the lock to it)`);
    // What the line names moves the lock.
    const moved = skillhub(["sync"], project, home);
    expect(moved.out).toMatch(/^team-skills {2}[0-9a-f]{7} {2}updated, 1 file changed/m);
    expect(readLockfile(join(project, "skillhub.lock")).sources["team-skills"]?.commit).toBe(tip);
    expect(skillhub(["sync", "--frozen"], project, home).out).toContain(
      `team-skills  ${tip.slice(0, 7)}  at the locked commit  `,
    );
  });

  test("without repositories, it names skillhub add", () => {
    const home = tempDir();
    const project = join(home, "project");
    git(["init", "--quiet", "-b", "main", project]);
    const synced = skillhub(["sync"], project, home);
    expect(synced.out).toStartWith(
      "No git repository is configured (`skillhub add owner/repo` adds one to this project's skillhub.yaml;",
    );
    // Nothing served, nothing configured (a misspelt key, the wrong folder): no empty lock for verify to pass.
    expect(synced.out).toEndWith(
      "No lock written: nothing to record (no skill is served and no repository is configured).\n",
    );
    expect(readdirSync(project)).not.toContain("skillhub.lock");
    expect(skillhub(["verify"], project, home).code).not.toBe(0);
  });
});
