import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { GitRunner } from "../../../src/refresh/git/git-runner.ts";
import { checkoutBytes, FetchLimit, repackWhenMany } from "../../../src/refresh/git/git-size-limit.ts";
import { gitStatus } from "../../../src/ui/hub-view.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { cleanupTemp, write } from "../../helpers/fs.ts";
import { GIT_ENV, git, type Remote, remoteRepo, skillText } from "../../helpers/git.ts";
import { projectRoot, serveGitHttpStalled } from "../../helpers/git-http.ts";
import { textOf } from "../../helpers/hub.ts";
import { within } from "../../helpers/wait.ts";
import { cli, type Machine, machine, repoServerOn } from "../../lock/cli.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** The limit the tests set: a few MiB, far under the files they push. */
const LIMIT = 2 * 1024 * 1024;
const limited = (url: string) => ({ SKILLS_REPO: url, SKILLHUB_MAX_REPO_BYTES: String(LIMIT) });
const raise =
  "if the repository is meant to be that large, raise the limit of 2,097,152 bytes: SKILLHUB_MAX_REPO_BYTES, or git.max_repo_bytes in ~/.skillhub/config.yaml (0 = no limit)";
const sentTooMuch = (url: string) =>
  `${url} sent more than 2,097,152 bytes for one sync, so git was stopped and what it wrote removed; ${raise}, else take the large files out of the repository's history.`;

function teamRemote(): Remote {
  return remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Alpha as first reviewed.") });
}

/** Push a commit that changes alpha and adds `bytes` as a file of its own. */
function pushLarge(remote: Remote, bytes: Uint8Array): string {
  remote.write("skills/alpha/SKILL.md", skillText("alpha", "Alpha with a large file."));
  write(join(remote.work, "skills", "alpha", "assets", "recording.bin"), bytes);
  return remote.push("large file");
}

function reposOf(m: Machine): string {
  return join(m.home, ".skillhub", "repos");
}

/** The copy of the one repository of `m`. */
function copyOf(m: Machine): string {
  const copies = readdirSync(reposOf(m)).filter((name) => !name.endsWith(".lock"));
  expect(copies).toHaveLength(1);
  return join(reposOf(m), copies[0] as string);
}

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((path) => relative(dir, join(dir, path))).sort();
}

/** Temporary packs and objects, and unfinished clones, anywhere under SkillHub's folder. */
function leftovers(m: Machine): string[] {
  const home = join(m.home, ".skillhub");
  return filesUnder(home).filter((path) => /tmp_pack|tmp_idx|tmp_obj|\.clone-/.test(path));
}

async function syncJson(m: Machine, env: Record<string, string>) {
  const synced = await cli(m, ["sync", "--json"], env);
  return { code: synced.code, repo: JSON.parse(synced.out).repos[0], err: synced.err };
}

describe("git.max_repo_bytes: what one sync may bring onto disk", () => {
  test("a first clone that receives more than the limit: GIT_TOO_LARGE, no copy and nothing of it left", async () => {
    const remote = teamRemote();
    pushLarge(remote, randomBytes(6 * 1024 * 1024));
    const m = machine();

    const synced = await syncJson(m, limited(remote.url));
    expect(synced.code).toBe(1);
    expect(synced.repo.error).toEqual({ code: "GIT_TOO_LARGE", message: sentTooMuch(remote.url) });
    expect(synced.repo.commit_hash).toBeNull();
    expect(readdirSync(reposOf(m)).filter((name) => !name.endsWith(".lock"))).toEqual([]);
    expect(leftovers(m)).toEqual([]);

    // 0 lifts the limit.
    const unlimited = await syncJson(m, { ...limited(remote.url), SKILLHUB_MAX_REPO_BYTES: "0" });
    expect(unlimited.code).toBe(0);
    expect(existsSync(join(copyOf(m), "skills", "alpha", "assets", "recording.bin"))).toBe(true);
  });

  test("a later fetch over the limit: its pack is removed, and the last commit stays checked out and served", async () => {
    const remote = teamRemote();
    const m = machine();
    const env = limited(remote.url);
    expect((await syncJson(m, env)).code).toBe(0);
    const copy = copyOf(m);
    const reviewed = git(["rev-parse", "HEAD"], copy);
    const objects = filesUnder(join(copy, ".git", "objects"));
    const tracked = git(["rev-parse", "refs/remotes/origin/main"], copy);

    pushLarge(remote, randomBytes(6 * 1024 * 1024));
    const synced = await syncJson(m, env);
    expect(synced.code).toBe(1);
    expect(synced.repo.error).toEqual({ code: "GIT_TOO_LARGE", message: sentTooMuch(remote.url) });
    expect(synced.repo.commit_hash).toBe(reviewed);
    // Nothing of the fetch is left: not its pack, not a ref to what it brought.
    expect(filesUnder(join(copy, ".git", "objects"))).toEqual(objects);
    expect(leftovers(m)).toEqual([]);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(reviewed);
    expect(git(["rev-parse", "refs/remotes/origin/main"], copy)).toBe(tracked);
    git(["fsck", "--no-progress"], copy);

    // doctor, the server and its page say why; the reviewed skills are still served.
    const doctor = JSON.parse((await cli(m, ["doctor", "--json"], env)).out);
    expect(doctor.repos[0].state.last_error).toMatchObject({ code: "GIT_TOO_LARGE", message: sentTooMuch(remote.url) });
    const s = await repoServerOn(m, env);
    closers.push(s.close);
    expect(textOf(await s.call("skill", { name: "alpha" }))).toContain("Alpha as first reviewed.");
    expect(gitStatus(s.hub).repos[0]?.lastError?.code).toBe("GIT_TOO_LARGE");
    expect(s.logger.lines.some((l) => l.includes(sentTooMuch(remote.url)))).toBe(true);
  });

  test("a commit whose files take more than the limit once checked out (a pack is compressed) is not checked out", async () => {
    const zeros = new Uint8Array(8 * 1024 * 1024);
    const checkedOut = (commit: string, url: string) =>
      `the files of commit ${commit.slice(0, 12)} of ${url} take 8,404,992 bytes on disk, more than 2,097,152 bytes, so they were not checked out; ${raise}, else take the large files out of the repository.`;
    // A first clone.
    const bomb = teamRemote();
    const bombCommit = pushLarge(bomb, zeros);
    const fresh = machine();
    const cloned = await syncJson(fresh, limited(bomb.url));
    expect(cloned.repo.error).toEqual({ code: "GIT_TOO_LARGE", message: checkedOut(bombCommit, bomb.url) });
    expect(readdirSync(reposOf(fresh)).filter((name) => !name.endsWith(".lock"))).toEqual([]);

    // An existing copy keeps its commit.
    const remote = teamRemote();
    const m = machine();
    expect((await syncJson(m, limited(remote.url))).code).toBe(0);
    const reviewed = git(["rev-parse", "HEAD"], copyOf(m));
    const large = pushLarge(remote, zeros);
    const synced = await syncJson(m, limited(remote.url));
    expect(synced.repo.error).toEqual({ code: "GIT_TOO_LARGE", message: checkedOut(large, remote.url) });
    expect(git(["rev-parse", "HEAD"], copyOf(m))).toBe(reviewed);
    expect(existsSync(join(copyOf(m), "skills", "alpha", "assets"))).toBe(false);
    expect((await cli(m, ["list", "--json"], limited(remote.url))).out).toContain("Alpha as first reviewed.");
  });

  test("git is stopped while it receives, once what it wrote passes the limit: a remote that stalls mid-pack", async () => {
    const remote = teamRemote();
    pushLarge(remote, randomBytes(8 * 1024 * 1024));
    // The remote sends 5 MiB of the pack, then nothing more and no end: without the watch, git would wait
    // for its two-minute time limit, past this test's.
    const server = serveGitHttpStalled(projectRoot(remote.bare), 5 * 1024 * 1024);
    closers.push(server.stop);
    const url = `${server.base}team.git`;
    const m = machine();
    const synced = await within(syncJson(m, limited(url)), "the sync of a stalled remote");
    expect(synced.repo.error).toEqual({ code: "GIT_TOO_LARGE", message: sentTooMuch(url) });
    expect(readdirSync(reposOf(m)).filter((name) => !name.endsWith(".lock"))).toEqual([]);
    expect(leftovers(m)).toEqual([]);
  });

  test("what a checkout takes: each file in whole blocks, at least one; a folder or a submodule, one", () => {
    const id = "a".repeat(40);
    const listing = [
      `100644 blob ${id}       0\tempty`,
      `100644 blob ${id}    4096\tone-block`,
      `100755 blob ${id}    4097\ttwo-blocks`,
      `120000 blob ${id}      11\tlink`,
      `040000 tree ${id}       -\tvendor`,
      `160000 commit ${id}       -\tvendor/lib`,
      "",
    ].join("\0");
    expect(checkoutBytes(listing)).toBe(7 * 4096);
  });

  test("folders count: a tree naming one deep folder a hundred times over is not checked out", async () => {
    const remote = teamRemote();
    const m = machine();
    expect((await syncJson(m, limited(remote.url))).code).toBe(0);
    const reviewed = git(["rev-parse", "HEAD"], copyOf(m));
    // A folder 300 deep, named by 100 entries of the root: a pack of a few KB, 30,000 folders once written.
    const mktree = (entries: string) =>
      Bun.spawnSync(["git", "mktree"], { cwd: remote.work, stdin: Buffer.from(entries) })
        .stdout.toString()
        .trim();
    const blob = Bun.spawnSync(["git", "hash-object", "-w", "--stdin"], { cwd: remote.work, stdin: Buffer.from("x") })
      .stdout.toString()
      .trim();
    let deep = mktree(`100644 blob ${blob}\tf\n`);
    for (let i = 0; i < 300; i++) deep = mktree(`040000 tree ${deep}\ta\n`);
    const skills = git(["rev-parse", "HEAD^{tree}:skills"], remote.work);
    const root = mktree(
      [`040000 tree ${skills}\tskills`, ...Array.from({ length: 100 }, (_, i) => `040000 tree ${deep}\td${i}`)].join(
        "\n",
      ) + "\n",
    );
    const commit = git(["commit-tree", root, "-p", "HEAD", "-m", "folders"], remote.work);
    git(["push", "--quiet", "origin", `${commit}:refs/heads/main`], remote.work);
    const synced = await syncJson(m, limited(remote.url));
    expect(synced.repo.error.code).toBe("GIT_TOO_LARGE");
    expect(synced.repo.error.message).toContain(`the files of commit ${commit.slice(0, 12)} of ${remote.url} take `);
    expect(git(["rev-parse", "HEAD"], copyOf(m))).toBe(reviewed);
    expect(existsSync(join(copyOf(m), "d0"))).toBe(false);
  });

  test("a fetch over the limit removes nothing when a repack moved the copy's objects meanwhile", async () => {
    const remote = teamRemote();
    const m = machine();
    expect((await syncJson(m, limited(remote.url))).code).toBe(0);
    const copy = copyOf(m);
    const reviewed = git(["rev-parse", "HEAD"], copy);
    const runner = new GitRunner({ env: GIT_ENV });
    const limit = await FetchLimit.start(runner, copy, {
      max: LIMIT,
      url: remote.url,
      refs: ["refs/remotes/origin/main"],
    });
    // Another git (a `git gc` by hand) packs what the copy held into a new pack, while the sync fetches.
    git(["repack", "-a", "-d", "-q"], copy);
    pushLarge(remote, randomBytes(4 * 1024 * 1024));
    await expect(limit.fetch(["fetch", "--quiet", "origin", "main"], { cwd: copy })).rejects.toMatchObject({
      code: "GIT_TOO_LARGE",
    });
    // The copy's commit keeps its objects, and its ref is back.
    git(["fsck", "--no-progress", "--connectivity-only"], copy);
    expect(git(["rev-parse", "HEAD"], copy)).toBe(reviewed);
    expect(git(["rev-parse", "refs/remotes/origin/main"], copy)).toBe(reviewed);
  });

  test("a copy holding more than 40 packs is repacked into one after a sync", async () => {
    const remote = teamRemote();
    const m = machine();
    expect((await syncJson(m, limited(remote.url))).code).toBe(0);
    const copy = copyOf(m);
    const packs = () => readdirSync(join(copy, ".git", "objects", "pack")).filter((n) => n.endsWith(".pack"));
    // 41 packs, as 41 syncs that brought changes leave them.
    for (let i = 0; i < 41; i++) {
      write(join(copy, ".git", "scratch.txt"), `pack ${i}\n`);
      const blob = git(["hash-object", "-w", ".git/scratch.txt"], copy);
      Bun.spawnSync(["git", "pack-objects", "-q", ".git/objects/pack/pack"], {
        cwd: copy,
        stdin: Buffer.from(`${blob}\n`),
      });
    }
    git(["prune-packed"], copy);
    expect(packs().length).toBeGreaterThan(40);
    await repackWhenMany(new GitRunner({ env: GIT_ENV }), copy);
    expect(packs()).toHaveLength(1);
    git(["fsck", "--no-progress", "--connectivity-only"], copy);
  });
});

describe("frozen, a huge file pushed to the branch's tip does not matter: only the locked commit is fetched", () => {
  /** A reviewer's lock of `remote`'s first commit, then a large file pushed on top; a fresh machine with that lock. */
  async function lockedThenLarge(remote: Remote) {
    const reviewer = machine();
    const env = limited(remote.url);
    expect((await syncJson(reviewer, env)).code).toBe(0);
    const locked = git(["rev-parse", "HEAD"], copyOf(reviewer));
    pushLarge(remote, randomBytes(6 * 1024 * 1024));
    const fresh = machine();
    write(fresh.lock, readFileSync(reviewer.lock, "utf8"));
    return { reviewer, fresh, env, locked };
  }

  const frozenJson = async (m: Machine, env: Record<string, string>) => {
    const synced = await cli(m, ["sync", "--frozen", "--json"], env);
    return { code: synced.code, repo: JSON.parse(synced.out).repos[0], all: synced.out + synced.err };
  };

  test("a server that sends commits without their files (GitHub, GitLab): a fresh machine and a copy both sync", async () => {
    const remote = teamRemote();
    git(["config", "uploadpack.allowFilter", "true"], remote.bare);
    const { reviewer, fresh, env, locked } = await lockedThenLarge(remote);
    const tip = git(["rev-parse", "HEAD"], remote.work);
    for (const m of [fresh, reviewer]) {
      const synced = await frozenJson(m, env);
      expect(synced.code, synced.all).toBe(0);
      expect(synced.repo).toMatchObject({ success: true, commit_hash: locked, ref_commit: tip });
      expect(git(["rev-parse", "HEAD"], copyOf(m))).toBe(locked);
      expect(leftovers(m)).toEqual([]);
    }
  });

  test("a server that cannot: a copy whose record of the branch reaches the locked commit syncs, with a warning", async () => {
    const remote = teamRemote();
    const { reviewer, fresh, env, locked } = await lockedThenLarge(remote);
    const synced = await frozenJson(reviewer, env);
    expect(synced.code, synced.all).toBe(0);
    expect(synced.repo).toMatchObject({ success: true, commit_hash: locked });
    expect(synced.repo.warnings).toEqual([
      `${remote.url} sent more than git.max_repo_bytes for the history of branch 'main' (it sends commits only with their files): commit ${locked.slice(0, 12)} recorded in skillhub.lock, which branch 'main' reached when SkillHub last fetched it, is still served.`,
    ]);
    expect(leftovers(reviewer)).toEqual([]);
    // A fresh machine has no such record: the branch's history is fetched, files and all, and held to the limit.
    const first = await frozenJson(fresh, env);
    expect(first.code).toBe(1);
    expect(first.repo.error.code).toBe("GIT_TOO_LARGE");
    expect(leftovers(fresh)).toEqual([]);
  });
});
