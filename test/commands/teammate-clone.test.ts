import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runBinary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, skillText } from "../helpers/git.ts";

afterAll(cleanupTemp);

/** The compiled binary run in `cwd` with its own HOME, git's test identity and no user git config. */
const skillhub = (args: string[], cwd: string, home: string) =>
  runBinary(args, cwd, home, { ...GIT_ENV, LOG_LEVEL: "WARN" });

describe("a teammate's fresh clone of a project whose skillhub.yaml adds a team repository", () => {
  test("verify, lock, list and doctor say to fetch the locked commit with sync --frozen, which then verifies", () => {
    const team = remoteRepo("team-skills", { "skills/deploy/SKILL.md": skillText("deploy", "Deploy steps.") });
    // The lead adds the repository and commits skillhub.yaml and skillhub.lock.
    const lead = tempDir();
    const project = join(lead, "project");
    git(["init", "--quiet", "-b", "main", project]);
    expect(skillhub(["add", team.url], project, lead).code).toBe(0);
    git(["add", "-A"], project);
    git(["commit", "--quiet", "-m", "skills"], project);
    // The branch moves on after the lock was committed: a plain sync would follow it and rewrite the lock.
    team.write("skills/deploy/SKILL.md", skillText("deploy", "Newer deploy steps."));
    team.push();

    const mate = tempDir();
    const clone = join(mate, "project");
    git(["clone", "--quiet", project, clone]);
    const lockText = readFileSync(join(clone, "skillhub.lock"), "utf8");

    const verify = skillhub(["verify"], clone, mate);
    expect(verify.code).toBe(1);
    expect(verify.out).toContain(
      "Repository team-skills has no local copy on this machine yet: run `skillhub sync --frozen` to fetch the commit skillhub.lock records, then `skillhub verify` again.",
    );
    // Not the advice for real differences: accepting them would drop the team's skills from the lock.
    expect(verify.out).not.toContain("run `skillhub lock` to accept them");
    expect(verify.err).not.toContain("`skillhub sync` fetches it");

    const lock = skillhub(["lock"], clone, mate);
    expect(lock.code).toBe(1);
    expect(lock.err).toContain("run `skillhub sync --frozen` to fetch the commit skillhub.lock records");
    expect(skillhub(["list"], clone, mate).err).toContain(
      "is not synced yet, so its skills are left out; run `skillhub sync --frozen` to fetch the commit skillhub.lock records.",
    );
    expect(skillhub(["doctor"], clone, mate).out).toContain(
      "not synced yet: no local copy, so no skills from this repository: run `skillhub sync --frozen`",
    );

    // Following the advice: the locked commit is fetched, the lock is unchanged and verifies.
    expect(skillhub(["sync", "--frozen"], clone, mate).code).toBe(0);
    expect(readFileSync(join(clone, "skillhub.lock"), "utf8")).toBe(lockText);
    const after = skillhub(["verify"], clone, mate);
    expect(after.code).toBe(0);
    expect(skillhub(["show", "deploy"], clone, mate).out).toContain("Deploy steps.");
  });

  test("a repository the lock does not record yet is fetched with a plain sync", () => {
    const team = remoteRepo("team-skills", { "skills/deploy/SKILL.md": skillText("deploy") });
    const home = tempDir();
    const project = join(home, "project");
    git(["init", "--quiet", "-b", "main", project]);
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n    - ${team.url}\n`);
    const list = skillhub(["list"], project, home);
    expect(list.err).toContain("is not synced yet, so its skills are left out; run `skillhub sync` to fetch it.");
    // No lock yet: `skillhub lock` would write none while the repository is not fetched; sync does both.
    const verify = skillhub(["verify"], project, home);
    expect(verify.code).toBe(2);
    expect(verify.err).toBe(
      `skillhub: no lock at ${join(project, "skillhub.lock")}; run \`skillhub sync\` to fetch repository team-skills and write it.\n`,
    );
    expect(skillhub(["sync"], project, home).code).toBe(0);
    expect(skillhub(["verify"], project, home).code).toBe(0);
  });
});
