import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp } from "../helpers/fs.ts";
import { git, remoteRepo, skillText } from "../helpers/git.ts";
import { textOf } from "../helpers/hub.ts";
import { cli, type Machine, machine, repoServerOn } from "./cli.ts";

afterAll(cleanupTemp);

/** The repository copies on `m`, by folder name. */
function copies(m: Machine): string[] {
  const repos = join(m.home, ".skillhub", "repos");
  return existsSync(repos) ? readdirSync(repos).sort() : [];
}

/** Whether any copy on `m` holds `skill`'s folder. */
function onDisk(m: Machine, skill: string): boolean {
  return copies(m).some((copy) => existsSync(join(m.home, ".skillhub", "repos", copy, "skills", skill)));
}

const UNREVIEWED = skillText("unreviewed", "Nobody reviewed this skill.");

/** A repository whose tag v1 (commit `v1`) holds a reviewed skill, and whose branch goes on to an unreviewed one. */
function taggedTeam() {
  const team = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
  git(["tag", "v1"], team.work);
  git(["push", "--quiet", "origin", "v1"], team.work);
  const v1 = git(["rev-parse", "HEAD"], team.work);
  team.write("skills/unreviewed/SKILL.md", UNREVIEWED);
  team.push("unreviewed");
  return { team, v1 };
}

describe("a frozen sync fetches only what skillhub.lock records", () => {
  test("a repository configured at another URL than the lock's is not fetched: the lock's copy stays", async () => {
    const reviewed = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    const other = remoteRepo("team", { "skills/unreviewed/SKILL.md": UNREVIEWED });
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: reviewed.url })).code).toBe(0);
    const locked = readFileSync(m.lock, "utf8");
    const before = copies(m);

    const frozen = await cli(m, ["sync", "--frozen"], { SKILLS_REPO: other.url });
    expect(frozen.code).toBe(1);
    expect(frozen.out).toContain(
      `team  -        FAILED: skillhub.lock records this repository at URL ${reviewed.url}, not the configured ${other.url}, and a frozen sync fetches only what the lock records: nothing was fetched. If the lock's URL is right, put it back in the configuration; if the configuration's is, \`skillhub sync\` fetches it and records it in the lock, for review before the lock is committed\n`,
    );
    expect(frozen.out).toContain(`changed source team: url ${reviewed.url} → ${other.url} (no local copy)\n`);
    expect(frozen.err).toContain("No copy is made, so this repository's skills are unavailable.");
    expect(copies(m)).toEqual(before);
    expect(onDisk(m, "unreviewed")).toBe(false);
    expect(readFileSync(m.lock, "utf8")).toBe(locked);

    // A frozen server says the same to the agent that asks for a refresh, and serves nothing of it.
    const s = await repoServerOn(m, { SKILLS_REPO: other.url, SKILLHUB_FROZEN: "1" });
    try {
      const refreshed = JSON.parse(textOf(await s.call("refresh_skills", {})));
      expect(refreshed.repos[0].error.code).toBe("GIT_NOT_LOCKED");
      expect((await s.call("skill", { name: "unreviewed" })).isError).toBe(true);
    } finally {
      await s.close();
    }
    expect(onDisk(m, "unreviewed")).toBe(false);
  }, 120_000);

  test("a repository configured at another tag than the lock's stays at the locked commit", async () => {
    const { team, v1 } = taggedTeam();
    git(["tag", "v2"], team.work);
    git(["push", "--quiet", "origin", "v2"], team.work);
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: team.url, SKILLS_REF: "v1" })).code).toBe(0);

    const frozen = await cli(m, ["sync", "--frozen"], { SKILLS_REPO: team.url, SKILLS_REF: "v2" });
    expect(frozen.code).toBe(1);
    expect(frozen.out).toContain(
      `FAILED: skillhub.lock records this repository at ref v1 (commit ${v1.slice(0, 12)}), not the configured tag 'v2', and a frozen sync fetches only what the lock records: nothing was fetched. If the lock's ref is right, put it back in the configuration;`,
    );
    expect(frozen.out).toContain("(the local copy is still served)\n");
    expect(frozen.out).toContain("changed source team: ref v1 → v2\n");
    const [copy] = copies(m);
    expect(git(["rev-parse", "HEAD"], join(m.home, ".skillhub", "repos", copy as string))).toBe(v1);
    expect(onDisk(m, "unreviewed")).toBe(false);
  }, 120_000);

  test("a lock pinning a tag, where no ref is configured: the tag is named, to pin", async () => {
    const { team, v1 } = taggedTeam();
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: team.url, SKILLS_REF: "v1" })).code).toBe(0);

    const frozen = await cli(m, ["sync", "--frozen"], { SKILLS_REPO: team.url });
    expect(frozen.code).toBe(1);
    expect(frozen.out).toContain(
      `FAILED: 'v1' is a tag of ${team.url}, not a branch: pin it with SKILLS_REF=v1 (or \`ref: v1\` in its entry). (the local copy is still served)\n`,
    );
    const [copy] = copies(m);
    expect(git(["rev-parse", "HEAD"], join(m.home, ".skillhub", "repos", copy as string))).toBe(v1);
    expect(onDisk(m, "unreviewed")).toBe(false);
    expect((await cli(m, ["sync", "--frozen"], { SKILLS_REPO: team.url, SKILLS_REF: "v1" })).code).toBe(0);
  }, 120_000);

  test("a configured repository the lock does not record is not cloned; the locked ones still sync", async () => {
    const team = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    const other = remoteRepo("other", { "skills/unreviewed/SKILL.md": UNREVIEWED });
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: team.url })).code).toBe(0);
    const before = copies(m);

    const frozen = await cli(m, ["sync", "--frozen"], { SKILLS_REPO: `${team.url},${other.url}` });
    expect(frozen.code).toBe(1);
    expect(frozen.out).toMatch(/^team +[0-9a-f]{7} +at the locked commit /m);
    expect(frozen.out).toContain(
      "other  -        FAILED: skillhub.lock does not record this repository, and a frozen sync fetches only what the lock records: nothing was fetched. `skillhub sync` fetches it and records it in the lock, for review before the lock is committed\n",
    );
    expect(frozen.out).toContain(`added source other: ${other.url} (main) is not in the lock (no local copy)\n`);
    expect(copies(m)).toEqual(before);
    expect(onDisk(m, "unreviewed")).toBe(false);

    // A plain sync fetches it and records it in the lock, for review.
    expect((await cli(m, ["sync"], { SKILLS_REPO: `${team.url},${other.url}` })).code).toBe(0);
    expect(onDisk(m, "unreviewed")).toBe(true);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).sources.other.url).toBe(other.url);
  }, 120_000);
});
