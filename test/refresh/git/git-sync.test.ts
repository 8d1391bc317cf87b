import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { run } from "../../../src/cli.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { repoConfigFiles } from "../../../src/refresh/git/git-copies.ts";
import { GitSync } from "../../../src/refresh/git/git-sync.ts";
import { createMemoryLogger } from "../../../src/util/logger.ts";
import { runCli } from "../../helpers/cli.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { fakeGit } from "../../helpers/fake-git.ts";
import { cleanupTemp, labelOfDir, tempDir, write, writeSkill } from "../../helpers/fs.ts";
import { GIT_ENV, git, remoteRepo, skillText } from "../../helpers/git.ts";
import { type ConnectOptions, connect, eventually, textOf } from "../../helpers/hub.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** A session whose hub syncs `repos`; git runs without the developer's own config. */
async function session(repos: string, options: ConnectOptions & { interval?: number } = {}) {
  const s = await connect({
    ...options,
    env: { SKILLS_REPO: repos, ...options.env },
    hub: { git: { runner: { env: GIT_ENV }, intervalMs: options.interval ?? 0 }, ...options.hub },
  });
  closers.push(s.close);
  return s;
}

const listChanged = (notifications: string[]) =>
  notifications.filter((n) => n === "notifications/tools/list_changed").length;

function teamRemote() {
  return remoteRepo("team-skills", {
    "skills/alpha/SKILL.md": skillText("alpha", "Alpha from the team repository."),
    "skills/shared/SKILL.md": skillText("shared", "The team's version."),
    "config.yaml": "matching:\n  min_score: 0.3\n",
    "README.md": "# Team skills\n",
  });
}

describe("git sync", () => {
  test("first start clones shallow into <home>/repos/<slug>; skills/ is a source after the local folders", async () => {
    const remote = teamRemote();
    const local = tempDir();
    writeSkill(local, "shared", { description: "My local version." });
    const { hub, call } = await session(remote.url, { flags: { "skills-dir": [local] } });
    const last = hub.sources().at(-1);
    expect(last?.label).toBe("team-skills");
    expect(last?.location).toBe("remote");
    expect(last?.dir).toMatch(new RegExp(`^${join(hub.config.home, "repos")}/team-skills-[0-9a-f]{8}/skills$`));
    const copy = join(last?.dir ?? "", "..");
    expect(existsSync(join(copy, ".git", "shallow"))).toBe(true);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(git(["rev-parse", "HEAD"], remote.work));
    const alpha = await call("skill", { name: "alpha" });
    expect(textOf(alpha)).toContain(`Base directory: ${join(last?.dir ?? "", "alpha")}`);
    // Local folders come first: the repository's "shared" is shadowed, still reachable by qualified name.
    expect(hub.catalog.get("shared")?.source).toBe(labelOfDir(local));
    expect(hub.catalog.get("team-skills:shared")?.description).toBe("The team's version.");
  });

  test("the copy's root config.yaml is a config source once synced", async () => {
    const remote = teamRemote();
    const { hub } = await session(remote.url);
    const env = { HOME: join(hub.config.home, ".."), SKILLS_REPO: remote.url };
    const first = loadConfig({ env, homeDir: env.HOME, cwd: env.HOME });
    expect(first.config.matching.min_score).toBe(0.2);
    const files = repoConfigFiles(first.config).map((c) => c.file);
    expect(files).toEqual([join(hub.sources().at(-1)?.dir ?? "", "..", "config.yaml")]);
    expect(loadConfig({ env, homeDir: env.HOME, cwd: env.HOME, sourceFiles: files }).config.matching.min_score).toBe(
      0.3,
    );
  });

  test("a pushed commit is picked up by refresh_skills, with its documented fields and one list_changed", async () => {
    const remote = teamRemote();
    const { client, call, notifications, hub } = await session(remote.url);
    await client.listTools();
    remote.write("skills/beta/SKILL.md", skillText("beta"));
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Alpha, revised."));
    const hash = remote.push("add beta");
    const result = await call("refresh_skills");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      success: true,
      mode: "git",
      commit_hash: hash,
      files_changed: 2,
      skills_reindexed: 3,
    });
    expect(Date.parse(String(result.structuredContent?.last_sync))).toBeGreaterThan(Date.now() - 60_000);
    expect(textOf(await call("skill", { name: "beta" }))).toStartWith("Loading: beta\n");
    expect(hub.catalog.get("alpha")?.description).toBe("Alpha, revised.");
    await eventually(() => listChanged(notifications) === 1);
    const again = await call("refresh_skills");
    expect(again.structuredContent).toMatchObject({
      success: true,
      commit_hash: hash,
      files_changed: 0,
      skills_reindexed: 3,
    });
  });

  test("the periodic refresh picks up a pushed commit by itself", async () => {
    const remote = teamRemote();
    const { hub } = await session(remote.url, { interval: 150 });
    expect(hub.catalog.get("gamma")).toBeUndefined();
    remote.write("skills/gamma/SKILL.md", skillText("gamma"));
    remote.push("add gamma");
    await eventually(() => hub.catalog.get("gamma"));
  });

  test("offline start serves the cached copy with a warning; refresh_skills says the remote is unreachable", async () => {
    const remote = teamRemote();
    const home = tempDir("skillhub-home-");
    const first = await session(remote.url, { home });
    const cached = git(["rev-parse", "HEAD"], remote.work);
    await first.close();
    renameSync(remote.bare, `${remote.bare}.gone`);
    const { call, logger } = await session(remote.url, { home });
    expect(textOf(await call("skill", { name: "alpha" }))).toStartWith("Loading: alpha\n");
    expect(
      logger.lines.some(
        (l) => l.includes("WARN") && l.includes("cannot reach") && l.includes("Serving the local copy"),
      ),
    ).toBe(true);
    const result = await call("refresh_skills");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      success: false,
      mode: "git",
      commit_hash: cached,
      skills_reindexed: 2,
      error: { code: "GIT_UNREACHABLE" },
    });
  });

  test("an unreachable remote with no copy yet: local skills are served, the log and doctor say why", async () => {
    const local = tempDir();
    writeSkill(local, "mine");
    const url = "file:///nonexistent/skillhub/team.git";
    const { call, logger, home } = await session(url, { flags: { "skills-dir": [local] } });
    expect(textOf(await call("skill", { name: "mine" }))).toStartWith("Loading: mine\n");
    expect(logger.lines.some((l) => l.includes("no local copy yet"))).toBe(true);
    let out = "";
    const code = await run(
      ["doctor", "--skills-dir", local],
      { HOME: home, SKILLS_REPO: url },
      { out: (t) => void (out += t), err: () => undefined, cwd: home },
    );
    // A configured repository whose skills cannot be served is a problem doctor exits 1 for.
    expect(code).toBe(1);
    expect(out).toContain("not synced yet: no local copy, so no skills from this repository");
  });

  test("a second refresh while one runs returns { success: false } at once", async () => {
    const remote = teamRemote();
    const { call } = await session(remote.url);
    const [a, b] = await Promise.all([call("refresh_skills"), call("refresh_skills")]);
    const results = [a, b].map((r) => r.structuredContent);
    expect(results.filter((r) => r?.success === true)).toHaveLength(1);
    const busy = [a, b].find((r) => r.structuredContent?.success === false);
    expect(busy?.isError).toBeFalsy();
    expect(busy?.structuredContent).toEqual({
      success: false,
      message: "A refresh is already running; try again in a moment.",
    });
    expect(JSON.parse(textOf(busy as CallToolResult))).toEqual(busy?.structuredContent as object);
  });

  test("refresh_skills fetches a repository at most once a minute: a call within it rescans and says when to call again; the background sync is not held back", async () => {
    const remote = teamRemote();
    // The real git behind a wrapper that counts the fetches it runs.
    const counting = fakeGit(
      'case " $* " in *" fetch "*) echo fetch >> "$FAKE_GIT_DIR/fetches";; esac\nexec "$REAL_GIT" "$@"',
    );
    const fetches = () => counting.lines("fetches").length;
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const local = tempDir();
    const { call, hub } = await session(remote.url, {
      flags: { "skills-dir": [local] },
      hub: { git: { runner: { env: counting.env }, intervalMs: 0, now: () => clock } },
    });
    const started = fetches();
    expect((await call("refresh_skills")).structuredContent).toMatchObject({ success: true, files_changed: 0 });
    const perSync = fetches() - started;
    expect(perSync).toBeGreaterThan(0);
    remote.write("skills/beta/SKILL.md", skillText("beta"));
    const hash = remote.push("add beta");
    writeSkill(local, "mine");
    clock += 15_000;
    const rested = await call("refresh_skills");
    expect(fetches()).toBe(started + perSync);
    // Not an error: the folders were rescanned (the local skill is in), the copy is served as it was.
    expect(rested.isError).toBeFalsy();
    expect(hub.catalog.get("mine")).toBeDefined();
    expect(hub.catalog.get("beta")).toBeUndefined();
    expect(rested.structuredContent).toMatchObject({
      success: true,
      mode: "git",
      files_changed: 0,
      skills_reindexed: 3,
      message:
        "team-skills was not fetched again: it was fetched 15 s ago, and refresh_skills fetches a repository at most once every 60 s. The skill folders were rescanned; call refresh_skills again in 45 s to get newer commits. 3 skills are indexed.",
    });
    expect(rested.structuredContent?.commit_hash).not.toBe(hash);
    // Once the minute has passed, the next call fetches.
    clock += 45_000;
    const fetched = await call("refresh_skills");
    expect(fetches()).toBe(started + 2 * perSync);
    expect(fetched.structuredContent).toMatchObject({ success: true, commit_hash: hash, files_changed: 1 });
    expect(fetched.structuredContent?.message).toBeUndefined();
    expect(hub.catalog.get("beta")).toBeDefined();
    // The background sync keeps its own interval: it fetches whenever its time comes.
    await hub.git?.refresh("timer");
    expect(fetches()).toBe(started + 3 * perSync);
  });

  test("a failed fetch counts too: a call within the minute repeats its error, unlogged, and fetches nothing", async () => {
    const remote = teamRemote();
    const home = tempDir("skillhub-home-");
    await (await session(remote.url, { home })).close();
    renameSync(remote.bare, `${remote.bare}.gone`);
    const counting = fakeGit(
      'case " $* " in *" fetch "*) echo fetch >> "$FAKE_GIT_DIR/fetches";; esac\nexec "$REAL_GIT" "$@"',
    );
    const clock = Date.parse("2026-01-01T00:00:00Z");
    const { call, logger } = await session(remote.url, {
      home,
      hub: { git: { runner: { env: counting.env }, intervalMs: 0, now: () => clock } },
    });
    const failed = await call("refresh_skills");
    expect(failed.structuredContent).toMatchObject({ success: false, error: { code: "GIT_UNREACHABLE" } });
    const fetches = counting.lines("fetches").length;
    expect(fetches).toBeGreaterThan(0);
    const warnings = logger.lines.filter((l) => l.includes("cannot reach")).length;
    const again = await call("refresh_skills");
    expect(counting.lines("fetches")).toHaveLength(fetches);
    expect(logger.lines.filter((l) => l.includes("cannot reach"))).toHaveLength(warnings);
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toMatchObject({
      success: false,
      error: { code: "GIT_UNREACHABLE" },
    });
    expect(textOf(again)).toContain(
      "team-skills was not fetched again: it was fetched 0 s ago, and refresh_skills fetches a repository at most once every 60 s.",
    );
  });

  test("GitSync.refresh itself never overlaps", async () => {
    const remote = teamRemote();
    const sync = new GitSync({
      repos: [remote.url],
      branch: "main",
      home: tempDir(),
      logger: createMemoryLogger(),
      intervalMs: 0,
      runner: { env: GIT_ENV },
    });
    const first = sync.refresh("a");
    const second = await sync.refresh("b");
    expect(second).toMatchObject({ success: false, busy: true });
    expect((await first).success).toBe(true);
  });

  test("an interval past what a timer takes (about 24.8 days) waits as long as a timer can, not once per millisecond", () => {
    const delays: number[] = [];
    const sync = new GitSync({
      repos: ["file:///nowhere"],
      branch: "main",
      home: tempDir(),
      logger: createMemoryLogger(),
      intervalMs: 40_000 * 60_000,
      setInterval: (_fn, ms) => {
        delays.push(ms);
        return 1 as unknown as ReturnType<typeof setInterval>;
      },
    });
    sync.start();
    expect(delays).toEqual([2 ** 31 - 1]);
  });

  test("a dirty or diverged copy is reset to the remote with a warning", async () => {
    const remote = teamRemote();
    const { call, hub, logger } = await session(remote.url);
    const copy = join(hub.sources().at(-1)?.dir ?? "", "..");
    // A local edit, an untracked file and a local commit.
    write(join(copy, "skills", "alpha", "SKILL.md"), skillText("alpha", "Edited in the cache."));
    write(join(copy, "stray.txt"), "x");
    git(["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "local"], copy);
    write(join(copy, "README.md"), "dirty\n");
    // And the remote history is rewritten.
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Alpha after a force-push."));
    git(["add", "-A"], remote.work);
    git(["commit", "-q", "--amend", "-m", "rewritten"], remote.work);
    git(["push", "-q", "--force", "origin", "main"], remote.work);
    const result = await call("refresh_skills");
    expect(result.structuredContent).toMatchObject({
      success: true,
      commit_hash: git(["rev-parse", "HEAD"], remote.work),
    });
    const warnings = (result.structuredContent?.repos as { warnings: string[] }[])[0]?.warnings ?? [];
    expect(warnings.join(" ")).toContain("local changes");
    expect(warnings.join(" ")).toContain("reset to the remote");
    expect(
      logger.lines.filter((l) => l.includes("WARN") && l.includes("repo team-skills")).length,
    ).toBeGreaterThanOrEqual(2);
    expect(readFileSync(join(copy, "README.md"), "utf8")).toBe("# Team skills\n");
    expect(existsSync(join(copy, "stray.txt"))).toBe(false);
    expect(hub.catalog.get("alpha")?.description).toBe("Alpha after a force-push.");
  });

  test("a repository without skills/ serves its root; a missing branch is an explicit error", async () => {
    const remote = remoteRepo("flat", { "tool/SKILL.md": skillText("tool") });
    const { hub, call } = await session(remote.url);
    expect(hub.sources().at(-1)?.dir).toMatch(/\/flat-[0-9a-f]{8}$/);
    expect(hub.catalog.get("tool")?.source).toBe("flat");
    const other = await session(remote.url, { env: { SKILLS_BRANCH: "release" } });
    const result = await other.call("refresh_skills");
    expect(result.structuredContent).toMatchObject({ success: false, error: { code: "GIT_BRANCH_NOT_FOUND" } });
    expect(textOf(result)).toContain("SKILLS_BRANCH");
    expect((await call("refresh_skills")).isError).toBeFalsy();
  });

  test("a repository whose default branch is not main: the error names the branch to set", async () => {
    const remote = remoteRepo("older", { "skills/tool/SKILL.md": skillText("tool") }, "master");
    const { call } = await session(remote.url);
    const result = await call("refresh_skills");
    expect(result.structuredContent).toMatchObject({ success: false, error: { code: "GIT_BRANCH_NOT_FOUND" } });
    expect(textOf(result)).toContain(
      `branch 'main' does not exist in ${remote.url}, whose default branch is 'master'; set SKILLS_BRANCH=master`,
    );
    const fixed = await session(remote.url, { env: { SKILLS_BRANCH: "master" } });
    expect(fixed.hub.catalog.get("tool")?.source).toBe("older");

    // A tag named as the branch is said to be one, to pin.
    git(["tag", "v1"], remote.work);
    git(["push", "--quiet", "origin", "v1"], remote.work);
    const tag = await (await session(remote.url, { env: { SKILLS_BRANCH: "v1" } })).call("refresh_skills");
    expect(tag.structuredContent).toMatchObject({ success: false, error: { code: "GIT_BRANCH_NOT_FOUND" } });
    expect(textOf(tag)).toContain(
      `'v1' is a tag of ${remote.url}, not a branch: pin it as the ref, \`ref: v1\` in its entry (in place of any \`branch:\`) or SKILLS_REF=v1.`,
    );
  });

  test("an empty repository is said to be empty; one whose HEAD names no branch lists the branches it has", async () => {
    const empty = tempDir("skillhub-empty-");
    git(["init", "--quiet", "--bare", join(empty, "empty.git")]);
    const url = pathToFileURL(join(empty, "empty.git")).href;
    const none = await (await session(url)).call("refresh_skills");
    expect(none.structuredContent).toMatchObject({ success: false, error: { code: "GIT_BRANCH_NOT_FOUND" } });
    expect(textOf(none)).toContain(
      `${url} has no branch yet (an empty repository): push a first commit of skills to it, then sync again.`,
    );

    // Tags alone: a tag is what there is to pin.
    const tagged = remoteRepo("tagged", { "skills/tool/SKILL.md": skillText("tool") }, "trunk");
    git(["tag", "v1"], tagged.work);
    git(["push", "--quiet", "origin", "v1"], tagged.work);
    git(["update-ref", "-d", "refs/heads/trunk"], tagged.bare);
    const tags = await (await session(tagged.url)).call("refresh_skills");
    expect(textOf(tags)).toContain(
      `${tagged.url} has no branch, only tags ('v1'): pin one with SKILLS_REF (or \`ref:\` in its entry).`,
    );

    const odd = remoteRepo("odd", { "skills/tool/SKILL.md": skillText("tool") }, "trunk");
    git(["push", "--quiet", "origin", "trunk:dev"], odd.work);
    git(["symbolic-ref", "HEAD", "refs/heads/gone"], odd.bare);
    const listed = await (await session(odd.url)).call("refresh_skills");
    expect(textOf(listed)).toContain(
      `branch 'main' does not exist in ${odd.url}, whose branches include 'dev', 'trunk'; set SKILLS_BRANCH=dev`,
    );
  });

  test("several repositories: unique labels, every one synced", async () => {
    const a = remoteRepo("skills", { "skills/one/SKILL.md": skillText("one") });
    const b = remoteRepo("skills", { "skills/two/SKILL.md": skillText("two") });
    const { hub, call } = await session(`${a.url},${b.url}`);
    expect(
      hub
        .sources()
        .slice(-2)
        .map((s) => s.label),
    ).toEqual(["skills", "skills-2"]);
    expect(hub.catalog.get("two")?.source).toBe("skills-2");
    const result = await call("refresh_skills");
    expect((result.structuredContent?.repos as unknown[]).length).toBe(2);
  });
});

describe("skillhub sync", () => {
  const cli = runCli;

  test("clones with progress on stderr and a summary on stdout; a failure exits 1", async () => {
    const remote = teamRemote();
    const first = await cli(["sync"], { SKILLS_REPO: remote.url });
    expect(first.err).toContain("sync: cloning");
    // A first copy is fetched by its clone: one line says so.
    expect(first.err).not.toContain("sync: fetching");
    expect(first.out).toMatch(/^team-skills\s+[0-9a-f]{7}\s+cloned, 4 files/m);
    expect(first.out).toContain("2 skills indexed");
    expect(first.code).toBe(0);
    const again = await cli(["sync", "--json"], { SKILLS_REPO: remote.url, HOME: first.home });
    expect(JSON.parse(again.out)).toMatchObject({ mode: "git", success: true, files_changed: 0 });
    expect(JSON.parse(again.out).repos?.[0]?.cloned).toBeUndefined();
    expect(again.err).toContain("sync: fetching");
    remote.write("skills/added.md", "# more\n");
    remote.push("more");
    const updated = await cli(["sync"], { SKILLS_REPO: remote.url, HOME: first.home });
    expect(updated.out).toMatch(/^team-skills\s+[0-9a-f]{7}\s+updated, 1 file changed/m);
    const failed = await cli(["sync"], { SKILLS_REPO: "file:///nonexistent/skillhub/x.git" });
    expect(failed.code).toBe(1);
    expect(failed.out).toContain("FAILED: cannot reach");
    // The command itself is the way to try again: the warning does not send to refresh_skills, nor speak
    // of a server's background sync.
    expect(failed.err).toContain("; run `skillhub sync` again once that is fixed.");
    expect(failed.err).not.toContain("background sync");
    expect(failed.err).not.toContain("refresh_skills");
  });

  test("without repositories it rescans the local folders", async () => {
    const local = tempDir();
    writeSkill(local, "solo");
    const result = await cli(["sync", "--skills-dir", local], {});
    expect(result.code).toBe(0);
    expect(result.out).toContain("No git repository is configured");
    expect(result.out).toContain("Rescanned the local folders: 1 skill.\n");
  });

  test("counts are singular for one: 1 skill indexed, cloned 1 file", async () => {
    const remote = remoteRepo("solo", { "skills/only/SKILL.md": skillText("only") });
    const first = await cli(["sync"], { SKILLS_REPO: remote.url });
    expect(first.out).toMatch(/^solo\s+[0-9a-f]{7}\s+cloned, 1 file\s/m);
    expect(first.out).toMatch(/^1 skill indexed; last full sync /m);
    expect(first.out).not.toContain("1 skills");
  });
});
