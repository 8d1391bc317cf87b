import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runBinary } from "../helpers/binary.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";
import { GIT_ENV, git } from "../helpers/git.ts";

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

  test("without repositories, it names skillhub add", () => {
    const home = tempDir();
    const project = join(home, "project");
    git(["init", "--quiet", "-b", "main", project]);
    expect(skillhub(["sync"], project, home).out).toStartWith(
      "No git repository is configured (`skillhub add owner/repo` adds one to this project's skillhub.yaml;",
    );
  });
});
