import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    const verified = await cli(m, ["verify"], { SKILLS_REPO: other.url });
    expect(verified.out).toEndWith(
      "skillhub.lock names another URL for repository team than the configuration (above): if the lock's is right, put it back in skillhub.yaml (or ~/.skillhub/config.yaml); if the configuration's is, `skillhub sync` fetches it and records it in the lock, for review before the lock is committed.\n",
    );

    // A frozen server says the same to the agent that asks for a refresh, and serves nothing of it.
    const s = await repoServerOn(m, { SKILLS_REPO: other.url, SKILLHUB_FROZEN: "1" });
    try {
      const refreshed = JSON.parse(textOf(await s.call("refresh_skills", {})));
      expect(refreshed.repos[0].error.code).toBe("GIT_NOT_LOCKED");
      expect((await s.call("skill", { name: "unreviewed" })).isError).toBe(true);
      // An error at start-up and when asked; the background syncs after it repeat it in the debug log only.
      await s.hub.git?.refresh("timer");
      await s.hub.git?.refresh("timer");
      const said = s.logger.lines.filter((l) => l.includes("skillhub.lock records this repository at URL"));
      const levels = said.map((l) => /\b(ERROR|WARN|INFO|DEBUG)\b/.exec(l)?.[1]);
      expect(levels.slice(-2)).toEqual(["DEBUG", "DEBUG"]);
      expect(new Set(levels.slice(0, -2))).toEqual(new Set(["ERROR"]));
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

    // verify says to choose a ref; `skillhub lock` would record v1's commit as v2's, and refuses.
    const v2env = { SKILLS_REPO: team.url, SKILLS_REF: "v2" };
    const verified = await cli(m, ["verify"], v2env);
    expect(verified.code).toBe(1);
    expect(verified.out).toEndWith(
      "skillhub.lock names another ref for repository team than the configuration (above): if the lock's is right, put it back in skillhub.yaml (or ~/.skillhub/config.yaml); if the configuration's is, `skillhub sync` fetches it and records it in the lock, for review before the lock is committed.\n",
    );
    const locked = readFileSync(m.lock, "utf8");
    const refused = await cli(m, ["lock"], v2env);
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      "skillhub lock: repository team's copy was fetched for v1, not the configured v2, so no lock was written; run `skillhub sync` to fetch v2 and record it in the lock, for review before the lock is committed.\n",
    );
    expect(readFileSync(m.lock, "utf8")).toBe(locked);
    expect((await cli(m, ["sync"], v2env)).code).toBe(0);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).sources.team.ref).toBe("v2");
    expect(onDisk(m, "unreviewed")).toBe(true);
  }, 120_000);

  test("a lock pinning a tag, where no ref is configured: the tag is named, to pin", async () => {
    const { team, v1 } = taggedTeam();
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: team.url, SKILLS_REF: "v1" })).code).toBe(0);

    const frozen = await cli(m, ["sync", "--frozen"], { SKILLS_REPO: team.url });
    expect(frozen.code).toBe(1);
    expect(frozen.out).toContain(
      `FAILED: skillhub.lock records ref v1 for this repository, where the configuration follows branch 'main': 'v1' is a tag of ${team.url}, not a branch: pin it as the ref, \`ref: v1\` in its entry (in place of any \`branch:\`) or SKILLS_REF=v1. (the local copy is still served)\n`,
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
    const lock = JSON.parse(readFileSync(m.lock, "utf8"));
    expect(lock.sources.other.url).toBe(other.url);

    // A lock that drops it again (a teammate's, pulled): its copy is kept, and serves nothing frozen.
    delete lock.sources.other;
    for (const id of Object.keys(lock.skills)) if (id.startsWith("other:")) delete lock.skills[id];
    writeFileSync(m.lock, JSON.stringify(lock, null, 2));
    const dropped = await cli(m, ["sync", "--frozen"], { SKILLS_REPO: `${team.url},${other.url}` });
    expect(dropped.code).toBe(1);
    expect(dropped.out).toContain(
      "for review before the lock is committed (a frozen server serves none of the local copy's skills: skillhub.lock records no commit of it)\n",
    );
  }, 120_000);

  test("a frozen server whose lock turns unreadable or goes fetches nothing more", async () => {
    for (const lockIs of ["conflicted", "a folder", "deleted"]) {
      const team = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
      const m = machine();
      expect((await cli(m, ["sync"], { SKILLS_REPO: team.url })).code).toBe(0);
      const s = await repoServerOn(m, { SKILLS_REPO: team.url, SKILLHUB_FROZEN: "1" });
      try {
        team.write("skills/unreviewed/SKILL.md", UNREVIEWED);
        team.push("unreviewed");
        rmSync(m.lock);
        if (lockIs === "conflicted") writeFileSync(m.lock, "<<<<<<< HEAD\n{}\n");
        if (lockIs === "a folder") mkdirSync(m.lock);
        const refreshed = JSON.parse(textOf(await s.call("refresh_skills", {})));
        expect(refreshed.repos[0].error.code, lockIs).toBe("GIT_NOT_LOCKED");
        expect(refreshed.repos[0].error.message, lockIs).toStartWith(
          "nothing was fetched: a frozen sync fetches only what a lock records, and ",
        );
        expect(onDisk(m, "unreviewed"), lockIs).toBe(false);
      } finally {
        await s.close();
      }
    }
  }, 120_000);

  test("a label the lock records for a repository now configured under another label: the new one is unrecorded", async () => {
    const reviewed = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    const other = remoteRepo("team", { "skills/unreviewed/SKILL.md": UNREVIEWED });
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: reviewed.url })).code).toBe(0);

    // The new repository takes the label `team`; the reviewed one becomes `team-2`.
    const frozen = await cli(m, ["sync", "--frozen"], { SKILLS_REPO: `${other.url},${reviewed.url}` });
    expect(frozen.code).toBe(1);
    expect(frozen.out).toContain(
      "team    -        FAILED: skillhub.lock does not record this repository, and a frozen sync",
    );
    expect(onDisk(m, "unreviewed")).toBe(false);
  }, 120_000);
});

describe("verify on a machine without the repositories' copies", () => {
  test("a repository with its own config.yaml: no local copy yet, which `sync --frozen` fetches", async () => {
    const team = remoteRepo("team", {
      "skills/alpha/SKILL.md": skillText("alpha", "Reviewed."),
      "config.yaml": "matching:\n  min_score: 0.3\n",
    });
    const m = machine();
    const env = { SKILLS_REPO: team.url };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    rmSync(join(m.home, ".skillhub", "repos"), { recursive: true });

    const verified = await cli(m, ["verify"], env);
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(`removed source team: no local copy of ${team.url}; run \`skillhub sync --frozen\``);
    expect(verified.out).not.toContain("config.yaml");
    expect((await cli(m, ["sync", "--frozen"], env)).code).toBe(0);
    expect((await cli(m, ["verify"], env)).code).toBe(0);
  }, 120_000);

  test("a repository pinned to another tag than the lock's: verify says to choose one", async () => {
    const { team, v1 } = taggedTeam();
    git(["tag", "v2"], team.work);
    git(["push", "--quiet", "origin", "v2"], team.work);
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: team.url, SKILLS_REF: "v1" })).code).toBe(0);
    rmSync(join(m.home, ".skillhub", "repos"), { recursive: true });

    const verified = await cli(m, ["verify"], { SKILLS_REPO: team.url, SKILLS_REF: "v2" });
    expect(verified.code).toBe(1);
    expect(verified.out).toContain("changed source team: ref v1 → v2 (no local copy)\n");
    expect(verified.out).toEndWith(
      "skillhub.lock names another ref for repository team than the configuration (above): if the lock's is right, put it back in skillhub.yaml (or ~/.skillhub/config.yaml); if the configuration's is, `skillhub sync` fetches it and records it in the lock, for review before the lock is committed.\n",
    );
    expect((await cli(m, ["sync", "--frozen"], { SKILLS_REPO: team.url, SKILLS_REF: "v1" })).code).toBe(0);
    const [copy] = copies(m);
    expect(git(["rev-parse", "HEAD"], join(m.home, ".skillhub", "repos", copy as string))).toBe(v1);
  }, 120_000);

  test("a repository whose own config.yaml chooses its branch is locked after its first sync", async () => {
    const team = remoteRepo("team", {
      "skills/alpha/SKILL.md": skillText("alpha", "Reviewed."),
      "config.yaml": "git:\n  branch: stable\n",
    });
    git(["push", "--quiet", "origin", "main:stable"], team.work);
    const m = machine();
    const env = { SKILLS_REPO: team.url };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const locked = await cli(m, ["lock"], env);
    expect({ code: locked.code, err: locked.err }).toEqual({ code: 0, err: "" });
  }, 120_000);

  test("the repository's URL spelt otherwise (a path for its file:// URL) is the same repository", async () => {
    const team = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Reviewed.") });
    const m = machine();
    expect((await cli(m, ["sync"], { SKILLS_REPO: team.url })).code).toBe(0);
    rmSync(join(m.home, ".skillhub", "repos"), { recursive: true });
    const env = { SKILLS_REPO: team.bare };

    expect((await cli(m, ["verify"], env)).out).toContain(`removed source team: no local copy of ${team.url}`);
    const frozen = await cli(m, ["sync", "--frozen"], env);
    expect(frozen.code).toBe(1);
    expect(frozen.out).toMatch(/^team +[0-9a-f]{7} +cloned at the locked commit/m);
    expect(frozen.out).toContain(`changed source team: url ${team.url} → ${team.bare}\n`);
    expect(frozen.out).toEndWith(
      "skillhub.lock names another URL for repository team than the configuration (above): if the lock's is right, put it back in skillhub.yaml (or ~/.skillhub/config.yaml); if the configuration's is, `skillhub sync` fetches it and records it in the lock, for review before the lock is committed.\n",
    );
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    expect((await cli(m, ["verify"], env)).code).toBe(0);
  }, 120_000);
});
