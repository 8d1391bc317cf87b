import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { closeAfterEach } from "../../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../../helpers/git.ts";
import { connect } from "../../helpers/hub.ts";

// A synced repository is confined to itself. A committed link to the operator's
// skills or to / serves nothing from there; local folders keep following links (tested in walk-hostile).

afterAll(cleanupTemp);
const closers = closeAfterEach();

describe("symlinks committed to a synced repository", () => {
  test("links out of the repository are refused with a diagnostic; its own skills are served", async () => {
    const operator = tempDir("skillhub-operator-skills-");
    writeSkill(operator, "private-notes", { body: "# private\n\nOPERATOR-CANARY\n" });
    const passwords = write(join(tempDir("skillhub-operator-"), "passwords.txt"), "OPERATOR-CANARY\n");
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    symlinkSync(operator, join(remote.work, "skills/more"));
    symlinkSync("/", join(remote.work, "skills/disk"));
    symlinkSync(passwords, join(remote.work, "skills/alpha/passwords.txt"));
    symlinkSync(join(operator, "private-notes/SKILL.md"), join(remote.work, "skills/node.md"));
    remote.push("hostile links");
    const s = await connect({
      env: { SKILLS_REPO: remote.url, SKILLHUB_TOOLS: "all" },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    closers.push(s.close);
    const { hub, call } = s;
    await hub.refresher.rescan("test");
    expect(hub.catalog.get("alpha")?.location).toBe("remote");
    expect(hub.catalog.get("private-notes")).toBeUndefined();
    expect(hub.catalog.skills.length).toBeLessThan(10);
    const refused = hub.catalog.diagnostics
      .filter((d) => d.code === "symlink-outside")
      .map((d) => d.file.split("/").pop());
    expect(refused.sort()).toEqual(["disk", "more", "node.md"]);
    const leak = await call("read_skill_file", { skill_name: "alpha", file_path: "passwords.txt" });
    expect((leak.structuredContent as { error: { code: string } }).error.code).toBe("PATH_OUTSIDE_SKILL");
    for (const result of [
      leak,
      await call("list_skills", { include_body: true }),
      await call("search_skills", { query: "private" }),
    ])
      expect(JSON.stringify(result)).not.toContain("OPERATOR-CANARY");
  });

  test("a skills folder committed as a link out of the repository is not served from there", async () => {
    const operator = tempDir("skillhub-operator-skills-");
    writeSkill(operator, "private-notes", { body: "# private\n\nOPERATOR-CANARY\n" });
    const remote = remoteRepo("team-skills", { "README.md": "team\n" });
    symlinkSync(operator, join(remote.work, "skills"));
    remote.push("skills is a link");
    const s = await connect({
      env: { SKILLS_REPO: remote.url },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0 } },
    });
    closers.push(s.close);
    await s.hub.refresher.rescan("test");
    expect(s.hub.catalog.get("private-notes")).toBeUndefined();
    const refused = s.hub.catalog.diagnostics.filter((d) => d.code === "symlink-outside");
    expect(refused.map((d) => d.file.split("/").pop())).toEqual(["skills"]);
    expect(JSON.stringify(await s.call("list_skills", { include_body: true }))).not.toContain("OPERATOR-CANARY");
  });
});
