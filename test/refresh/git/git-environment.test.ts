import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { git, remoteRepo, skillText } from "../../helpers/git.ts";
import { cli, machine } from "../../lock/cli.ts";

afterAll(cleanupTemp);

describe("git run from inside another repository's hook or alias", () => {
  test("GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE of that repository neither change it nor the sync", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "From the team.") });
    // The user's own repository, as a hook or a `!skillhub sync` alias sees it.
    const own = tempDir("skillhub-own-repo-");
    git(["init", "--quiet", "-b", "main", own]);
    write(join(own, "README.md"), "mine\n");
    git(["add", "-A"], own);
    git(["commit", "--quiet", "-m", "my work"], own);
    const before = {
      head: git(["rev-parse", "HEAD"], own),
      config: readFileSync(join(own, ".git", "config"), "utf8"),
      index: readFileSync(join(own, ".git", "index")),
    };
    const m = machine();
    const env = {
      SKILLS_REPO: remote.url,
      GIT_DIR: join(own, ".git"),
      GIT_WORK_TREE: own,
      GIT_INDEX_FILE: join(own, ".git", "index"),
      GIT_OBJECT_DIRECTORY: join(own, ".git", "objects"),
    };
    const sync = await cli(m, ["sync"], env);
    expect(sync.err).not.toContain("FAILED");
    expect(sync.code).toBe(0);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("From the team.");
    expect(git(["rev-parse", "HEAD"], own)).toBe(before.head);
    expect(git(["branch", "--list"], own)).toBe("* main");
    expect(readFileSync(join(own, ".git", "config"), "utf8")).toBe(before.config);
    expect(readFileSync(join(own, ".git", "index"))).toEqual(before.index);
    expect(git(["status", "--porcelain"], own)).toBe("");
  });

  test("a GIT_CONFIG_COUNT set that carries the server's token is not passed to git, and git still runs", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "From the team.") });
    const m = machine();
    const token = "ghp_decoyTokenForTheHeaderTest0000000000";
    const env = {
      SKILLS_REPO: remote.url,
      GITHUB_TOKEN: token,
      // A CI step's header with the token: the set is left out for git, whose own entries must not leave a gap.
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: `Authorization: Bearer ${token}`,
    };
    const sync = await cli(m, ["sync"], env);
    expect(sync.err).not.toContain("missing config");
    expect(sync.code).toBe(0);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("From the team.");
  });
});
