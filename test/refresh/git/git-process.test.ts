import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { GitSync } from "../../../src/refresh/git/git-sync.ts";
import { createMemoryLogger } from "../../../src/util/logger.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { type FakeGit, fakeGit, HANGING_GIT, killRecorded } from "../../helpers/fake-git.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../../helpers/fs.ts";
import { GIT_ENV, remoteRepo, skillText } from "../../helpers/git.ts";
import { connect, eventually, textOf, within } from "../../helpers/hub.ts";
import { isGone, survivors } from "../../helpers/process.ts";

afterAll(cleanupTemp);
const fakes: FakeGit[] = [];
const closers = closeAfterEach();
afterEach(() => {
  for (const fake of fakes.splice(0)) killRecorded(fake);
});

function fake(body: string): FakeGit {
  const f = fakeGit(body);
  fakes.push(f);
  return f;
}

function gitSync(
  home: string,
  env: Record<string, string | undefined>,
  extra: Partial<ConstructorParameters<typeof GitSync>[0]> = {},
) {
  const sync = new GitSync({
    repos: ["file:///nonexistent/team/skills.git"],
    branch: "main",
    home,
    logger: createMemoryLogger(),
    intervalMs: 0,
    runner: { env },
    ...extra,
  });
  closers.push(() => sync.close());
  return sync;
}

const tempClones = (home: string) =>
  existsSync(join(home, "repos")) ? readdirSync(join(home, "repos")).filter((n) => n.includes(".clone-")) : [];

describe("git processes are bounded", () => {
  test("a timed-out git is ended with its helpers: the call returns promptly and the next refresh is not stuck busy", async () => {
    const git = fake(HANGING_GIT);
    const home = tempDir("skillhub-home-");
    const sync = gitSync(home, git.env, { timeoutMs: 300 });
    // The helper sleeps 300 s: returning at all means it was ended (the cap only turns a hang into a failure).
    const first = await within(sync.refresh("first"), "a timed-out sync");
    expect(first.repos[0]?.error?.code).toBe("GIT_TIMEOUT");
    expect(git.children()).toHaveLength(1);
    expect(await survivors(git.children())).toEqual([]);
    const second = await within(sync.refresh("second"), "the next sync");
    expect(second.busy).toBe(false);
    expect(second.repos[0]?.error?.code).toBe("GIT_TIMEOUT");
    expect(tempClones(home)).toEqual([]);
  });

  test("close() ends a clone still running, and no later git starts", async () => {
    const git = fake(HANGING_GIT);
    const home = tempDir("skillhub-home-");
    const sync = gitSync(home, git.env);
    const running = sync.refresh("startup");
    await eventually(() => git.children().length === 1);
    sync.close();
    const outcome = await within(running, "the sync after close()");
    expect(outcome.success).toBe(false);
    expect(await survivors(git.children())).toEqual([]);
    expect(git.children()).toHaveLength(1);
    expect(tempClones(home)).toEqual([]);
  });

  test("leftover .clone-* folders of processes that are gone are removed at start; a live process's is kept", async () => {
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    const home = tempDir("skillhub-home-");
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const live = Bun.spawn(["sleep", "300"]);
    closers.push(() => live.kill("SIGKILL"));
    const repos = join(home, "repos");
    write(
      join(repos, `.team-skills-0123abcd.clone-${gone.pid}-${Date.now()}`, ".git", "HEAD"),
      "ref: refs/heads/main\n",
    );
    write(join(repos, `.team-skills-0123abcd.clone-${live.pid}-${Date.now() - 7_200_000}`, "x"), "old\n");
    const kept = `.team-skills-0123abcd.clone-${live.pid}-${Date.now()}`;
    mkdirSync(join(repos, kept), { recursive: true });
    const sync = gitSync(home, GIT_ENV, { repos: [remote.url] });
    expect((await sync.refresh("startup")).success).toBe(true);
    expect(tempClones(home)).toEqual([kept]);
  });
});

describe("start-up with a slow repository", () => {
  test("a hanging git does not hold tools/list back: local skills are served while the clone runs; closing ends it", async () => {
    const git = fake(HANGING_GIT);
    const local = tempDir();
    writeSkill(local, "mine");
    const session = await within(
      connect({
        flags: { "skills-dir": [local] },
        env: { SKILLS_REPO: "https://example.invalid/team/skills.git" },
        // The clone hangs for good: the start-up wait gives up on it (its length does not matter).
        hub: { git: { runner: { env: git.env }, intervalMs: 0, startupWaitMs: 100 } },
      }),
      "start-up",
    );
    closers.push(session.close);
    const tools = await within(session.client.listTools(), "tools/list");
    expect(tools.tools.map((t) => t.name)).toContain("skill");
    expect(textOf(await session.call("skill", { name: "mine" }))).toStartWith("Loading: mine\n");
    expect(session.logger.lines.some((l) => l.includes("taking long"))).toBe(true);
    // Served while the clone still hangs (its helper sleeps 300 s): the start-up wait gave up on it.
    expect(git.children().filter((pid) => !isGone(pid)).length).toBeGreaterThanOrEqual(1);
    await session.hub.shutdown();
    expect(await survivors(git.children())).toEqual([]);
  });

  test("a sync that ends after the wait rescans: the repository's skills appear with tools/list_changed", async () => {
    const remote = remoteRepo("team-skills", { "skills/alpha/SKILL.md": skillText("alpha") });
    const git = fake('[ "$1" = fetch ] && sleep 1\nexec "$REAL_GIT" "$@"');
    const local = tempDir();
    writeSkill(local, "mine");
    const session = await connect({
      flags: { "skills-dir": [local] },
      env: { SKILLS_REPO: remote.url },
      hub: { git: { runner: { env: git.env }, intervalMs: 0, startupWaitMs: 100 } },
    });
    closers.push(session.close);
    expect(session.hub.catalog.get("mine")).toBeDefined();
    expect(session.hub.catalog.get("alpha")).toBeUndefined();
    await session.client.listTools();
    await eventually(() => session.hub.catalog.get("alpha"));
    await eventually(() => session.notifications.includes("notifications/tools/list_changed"));
  });
});
