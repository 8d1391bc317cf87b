import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Of } from "../../src/catalog/digests.ts";
import { loadSettings } from "../../src/commands/load-settings.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { cleanupTemp } from "../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, skillText } from "../helpers/git.ts";
import { cli, type Machine, machine } from "./cli.ts";

afterAll(cleanupTemp);

const TEAM_CONFIG = "matching:\n  min_score: 0.3\n";
const TAMPERED = "matching:\n  min_score: 0.9\n";

/** A team repository with its own config.yaml, synced (and locked) on a new machine. */
async function synced() {
  const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha"), "config.yaml": TEAM_CONFIG });
  const m = machine();
  const env = { SKILLS_REPO: remote.url };
  expect((await cli(m, ["sync"], env)).code).toBe(0);
  const repos = join(m.home, ".skillhub", "repos");
  const copy = join(repos, readdirSync(repos).filter((n) => !n.startsWith("."))[0] as string);
  return { m, env, copy };
}

/** `team` publishes from `release` (its config.yaml says so); `main` has moved on with files nobody reviewed. */
function publishing() {
  const remote = remoteRepo("team", {
    "skills/alpha/SKILL.md": skillText("alpha", "Reviewed."),
    "config.yaml": "git:\n  branch: release\n",
  });
  git(["push", "--quiet", "origin", "HEAD:release"], remote.work);
  const reviewed = git(["rev-parse", "HEAD"], remote.work);
  remote.write("skills/alpha/SKILL.md", skillText("alpha", "Main's unreviewed words."));
  remote.write("config.yaml", "git:\n  branch: release\n# changed\n");
  remote.push("main moves on");
  return { remote, url: remote.url, reviewed };
}

/** The settings a command or server on `m` runs with (frozen or not), as the command line loads them. */
async function settingsOn(m: Machine, env: Record<string, string>, frozen: boolean) {
  const all = { ...GIT_ENV, HOME: m.home, ...env, ...(frozen ? { SKILLHUB_FROZEN: "1" } : {}) };
  const args = parseCommandLine(["serve", "--project", m.project]);
  return loadSettings({ args, env: all, homeDir: m.home, cwd: m.project });
}

describe("skillhub.lock records a repository's config.yaml", () => {
  test("the lock records its digest; verify and sync --frozen name a copy's config.yaml changed on disk", async () => {
    const { m, env, copy } = await synced();
    const lock = JSON.parse(readFileSync(m.lock, "utf8"));
    expect(lock.sources.team.config).toBe(sha256Of(TEAM_CONFIG));

    writeFileSync(join(copy, "config.yaml"), TAMPERED);
    const change = `changed source team: config.yaml ${sha256Of(TEAM_CONFIG).slice(0, 19)}… → ${sha256Of(TAMPERED).slice(0, 19)}…`;
    const verify = await cli(m, ["verify"], env);
    expect(verify.code).toBe(1);
    expect(verify.out).toContain(`  ${change}\n`);
    expect(verify.out).toContain("Repository team's copy has local changes (config.yaml)");
    const json = JSON.parse((await cli(m, ["verify", "--json"], env)).out);
    expect(json.changes).toContainEqual(expect.objectContaining({ subject: "source", id: "team", fields: ["config"] }));
    // `lock` does not record a file the next sync discards.
    expect((await cli(m, ["lock"], env)).code).toBe(1);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).sources.team.config).toBe(sha256Of(TEAM_CONFIG));

    // sync --frozen puts the locked commit's file back, and then verifies.
    const frozen = await cli(m, ["sync", "--frozen"], env);
    expect(frozen.code, frozen.out + frozen.err).toBe(0);
    expect(frozen.out).toContain(`warning: local changes in ${copy} (config.yaml) were discarded`);
    expect(readFileSync(join(copy, "config.yaml"), "utf8")).toBe(TEAM_CONFIG);
    expect((await cli(m, ["verify"], env)).code).toBe(0);
  });

  test("a frozen server applies a copy's config.yaml only as the lock records it", async () => {
    const { m, env, copy } = await synced();
    expect((await settingsOn(m, env, true)).config.matching.min_score).toBe(0.3);

    writeFileSync(join(copy, "config.yaml"), TAMPERED);
    const frozen = await settingsOn(m, env, true);
    expect(frozen.config.matching.min_score).not.toBe(0.9);
    expect(frozen.warnings.join("\n")).toContain(
      `${join(copy, "config.yaml")} is not the one skillhub.lock records for its repository (${sha256Of(TEAM_CONFIG).slice(0, 19)}… recorded, ${sha256Of(TAMPERED).slice(0, 19)}… here): run \`skillhub sync --frozen\` to put the locked commit's file back, or review it and run \`skillhub lock\`. Its settings are ignored.`,
    );
    // Not frozen, the copy's file applies as it is.
    expect((await settingsOn(m, env, false)).config.matching.min_score).toBe(0.9);
  });

  test("a frozen server names a locked config.yaml removed from the copy, or replaced by a link to nothing", async () => {
    const { m, env, copy } = await synced();
    const file = join(copy, "config.yaml");
    const missing = `${file} is missing (deleted, or a link to nothing), but skillhub.lock records one for its repository (${sha256Of(TEAM_CONFIG).slice(0, 19)}… recorded): run \`skillhub sync --frozen\` to put the locked commit's file back. Its settings are ignored.`;
    rmSync(file);
    expect((await settingsOn(m, env, true)).warnings).toContain(missing);
    symlinkSync(join(copy, "nowhere.yaml"), file);
    expect((await settingsOn(m, env, true)).warnings).toContain(missing);
    // Not frozen, a copy without the file has no settings of its own, as ever.
    expect((await settingsOn(m, env, false)).warnings.join("\n")).not.toContain("config.yaml");
  });

  test("a lock that records no config.yaml: a frozen server says to review the copy's and lock it", async () => {
    const { m, env, copy } = await synced();
    const lock = JSON.parse(readFileSync(m.lock, "utf8"));
    delete lock.sources.team.config;
    writeFileSync(m.lock, JSON.stringify(lock, null, 2));
    const frozen = await settingsOn(m, env, true);
    expect(frozen.warnings).toContain(
      `${join(copy, "config.yaml")} is not the one skillhub.lock records for its repository (it records none, ${sha256Of(TEAM_CONFIG).slice(0, 19)}… here): review it and run \`skillhub lock\` to record it. Its settings are ignored.`,
    );
  });
  test("a fresh machine's sync --frozen fetches the branch the lock records, which the repository's config.yaml chose", async () => {
    const { remote, reviewed } = publishing();
    const lead = machine();
    const env = { SKILLS_REPO: remote.url };
    expect((await cli(lead, ["sync"], env)).code).toBe(0);
    expect(JSON.parse(readFileSync(lead.lock, "utf8")).sources.team).toMatchObject({
      ref: "release",
      commit: reviewed,
    });

    // A teammate's first sync, with the committed lock and no copy yet.
    const mate = machine();
    writeFileSync(mate.lock, readFileSync(lead.lock));
    const frozen = await cli(mate, ["sync", "--frozen"], env);
    expect(frozen.code, frozen.out + frozen.err).toBe(0);
    expect(frozen.out).toContain("verified (frozen)");
    expect(frozen.err).toContain(
      "repo team: frozen, branch release as skillhub.lock records it (the configuration says main;",
    );
    const repos = join(mate.home, ".skillhub", "repos");
    const copy = join(repos, readdirSync(repos).filter((n) => !n.startsWith(".") && !n.endsWith(".lock"))[0] as string);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(reviewed);
    // Nothing of main's tip was fetched, let alone checked out.
    expect(() => git(["cat-file", "-e", git(["rev-parse", "HEAD"], remote.work)], copy)).toThrow();
    expect((await cli(mate, ["list", "--json"], { ...env, SKILLHUB_FROZEN: "1" })).out).toContain("Reviewed.");
  });
});

describe("a repository's config.yaml chooses the branch it publishes", () => {
  test("a first sync goes on to that branch, and the lock records its commit under its name", async () => {
    const { url, reviewed } = publishing();
    const m = machine();
    const synced = await cli(m, ["sync"], { SKILLS_REPO: url });
    expect(synced.code, synced.err).toBe(0);
    expect(synced.err).toContain(`sync: fetching ${url} (release)…`);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).sources.team).toMatchObject({ ref: "release", commit: reviewed });
    const listed = await cli(m, ["list"], { SKILLS_REPO: url });
    expect(listed.out).toContain("Reviewed.");
    expect(listed.out).not.toContain("unreviewed");
  });

  test("add --global fetches that branch before it writes your lock", async () => {
    const { url, reviewed } = publishing();
    const m = machine();
    const added = await cli(m, ["add", "--global", url]);
    expect(added.code, added.err).toBe(0);
    expect(added.err).toContain(`add: fetching ${url} (release)…`);
    // Another branch than the copy's is a move the configuration asked for, not a force-push.
    expect(added.err).not.toContain("force-push");
    expect(added.out).toContain("alpha  Reviewed.");
    const own = JSON.parse(readFileSync(join(m.home, ".skillhub", "skillhub.lock"), "utf8"));
    expect(own.sources.team).toMatchObject({ ref: "release", commit: reviewed });
  });

  test("a project's add follows its entry's branch, and says how to follow the one the config.yaml names", async () => {
    const { url } = publishing();
    const m = machine();
    const added = await cli(m, ["add", url]);
    expect(added.code, added.err).toBe(0);
    const warning = `key "git.branch" ignored: a repository the project's skillhub.yaml names follows the branch its entry there gives; \`skillhub add URL#release\` writes that branch in it.`;
    expect(added.err).toContain(warning);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).sources.team.ref).toBe("main");
    const followed = await cli(m, ["add", `${url}#release`]);
    expect(followed.code, followed.err).toBe(0);
    expect(JSON.parse(readFileSync(m.lock, "utf8")).sources.team.ref).toBe("release");
    expect((await cli(m, ["list"])).err).not.toContain("git.branch");
  });

  test("a project's add of a repository you follow leaves your copy and your lock as they are", async () => {
    const { remote, url, reviewed } = publishing();
    const m = machine();
    expect((await cli(m, ["add", "--global", url])).code).toBe(0);
    const ownLock = join(m.home, ".skillhub", "skillhub.lock");
    const before = readFileSync(ownLock, "utf8");
    expect(JSON.parse(before).sources.team.commit).toBe(reviewed);
    // release moves on with words nobody reviewed: only a sync of your own may take them.
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Release's unreviewed words."));
    git(["commit", "--quiet", "-am", "release moves on"], remote.work);
    git(["push", "--quiet", "origin", "HEAD:release"], remote.work);
    const added = await cli(m, ["add", url]);
    expect(added.code, added.err).toBe(0);
    expect(added.err).not.toContain("names branch release");
    expect(added.out).toContain("alpha  Reviewed.");
    expect(readFileSync(ownLock, "utf8")).toBe(before);
  });

  test("lock writes nothing for a copy still at the default branch's commit, and says to sync", async () => {
    const { url } = publishing();
    const m = machine();
    // Synced while SKILLS_BRANCH chose main: the copy holds main's tip, which the lock records as main's.
    expect((await cli(m, ["sync"], { SKILLS_REPO: url, SKILLS_BRANCH: "main" })).code).toBe(0);
    const before = readFileSync(m.lock, "utf8");
    expect(JSON.parse(before).sources.team.ref).toBe("main");
    const locked = await cli(m, ["lock"], { SKILLS_REPO: url });
    expect(locked.code).toBe(1);
    expect(locked.err).toContain(
      "skillhub lock: repository team's copy was fetched for main, not the configured release, so no lock was written; run `skillhub sync` to fetch release",
    );
    expect(readFileSync(m.lock, "utf8")).toBe(before);
    // Frozen by the environment, a plain sync is frozen too: the advice turns it off for that sync.
    const frozen = await cli(m, ["lock"], { SKILLS_REPO: url, SKILLHUB_FROZEN: "1" });
    expect(frozen.code).toBe(1);
    expect(frozen.err).toContain("run `SKILLHUB_FROZEN=0 skillhub sync` to fetch release");
  });
});
