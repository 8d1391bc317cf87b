import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { join } from "node:path";
import {
  foreignSettings,
  gitFilesProblem,
  RAW_ATTRIBUTES,
  skippedEntries,
} from "../../../src/refresh/git/git-copy-guard.ts";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { GIT_ENV, git, type Remote, remoteRepo, signedCommit, skillText, sshKey } from "../../helpers/git.ts";
import { cli, type Machine, machine } from "../../lock/cli.ts";

afterAll(cleanupTemp);

/** An executable script at `path` that appends a line to `marker` whenever it runs. */
function tripwire(path: string, marker: string): string {
  write(path, `#!/bin/sh\necho "$0 $*" >> '${marker}'\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The one repository copy of machine `m`. */
function copyOf(m: Machine): string {
  const repos = join(m.home, ".skillhub", "repos");
  return join(repos, readdirSync(repos).filter((n) => !n.startsWith("."))[0] as string);
}

/** A remote whose tip is signed by a fresh SSH key, and an allowed-signers file listing that key. */
function signedRemote(): { remote: Remote; signers: string; key: string } {
  const keys = tempDir("skillhub-keys-");
  const { key, pub } = sshKey(keys, "trusted");
  const signers = write(join(keys, "allowed_signers"), `trusted@example.com ${pub}\n`);
  const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
  remote.write("skills/alpha/SKILL.md", skillText("alpha", "Signed by the team."));
  signedCommit(remote, "signed", key);
  return { remote, signers, key };
}

describe("git runs no program named by a repository copy's own .git", () => {
  test("a copy whose config names a program is not served, and sync clones it again without running it", async () => {
    const { remote, signers } = signedRemote();
    const m = machine();
    const trust = { SKILLS_REPO: remote.url, SKILLHUB_ALLOWED_SIGNERS: signers };
    expect((await cli(m, ["sync"], trust)).code).toBe(0);
    const copy = copyOf(m);
    const marker = join(tempDir("skillhub-marker-"), "ran");
    git(["config", "core.fsmonitor", tripwire(join(copy, "..", "fsmonitor.sh"), marker)], copy);

    const listed = await cli(m, ["list", "--json"], trust);
    expect(listed.out).not.toContain("Signed by the team.");
    const doctor = JSON.parse((await cli(m, ["doctor", "--json"], trust)).out);
    expect(doctor.repos[0].not_served).toContain(
      "its .git/config holds settings SkillHub does not write (core.fsmonitor)",
    );
    expect((await cli(m, ["verify"], trust)).code).toBe(1);
    const synced = await cli(m, ["sync"], trust);
    expect(synced.code).toBe(0);
    expect(synced.out).toContain(
      `the copy in ${copy} was removed and cloned again: its .git/config holds settings SkillHub does not write (core.fsmonitor)`,
    );
    expect(git(["config", "--local", "--list"], copy)).not.toContain("fsmonitor");
    expect((await cli(m, ["list", "--json"], trust)).out).toContain("Signed by the team.");

    // A filter driver, which the copy's own attributes apply to every file (run by status and checkout).
    git(["config", "filter.own.clean", tripwire(join(copy, "..", "clean.sh"), marker)], copy);
    write(join(copy, ".git", "info", "attributes"), "* filter=own\n");
    // An older modification time: status hashes the file again, through the filter.
    utimesSync(join(copy, "skills", "alpha", "SKILL.md"), new Date(), new Date(1_000_000));
    const plain = await cli(m, ["sync"], { SKILLS_REPO: remote.url });
    expect(plain.code).toBe(0);
    expect(plain.out).toContain("(filter.own.clean)");
    expect(readFileSync(join(copy, ".git", "info", "attributes"), "utf8")).toBe(RAW_ATTRIBUTES);
    expect(existsSync(marker)).toBe(false);
  });

  test("a project's ext:: URL runs no command, even where the user's git config allows every transport", async () => {
    const m = machine();
    const gitconfig = write(join(m.home, ".gitconfig"), "[protocol]\n\tallow = always\n");
    const marker = join(tempDir("skillhub-marker-"), "ran");
    write(join(m.project, "skillhub.yaml"), `git:\n  repos:\n    - "ext::sh -c touch% ${marker}"\n`);
    const synced = await cli(m, ["sync"], { GIT_CONFIG_GLOBAL: gitconfig, GIT_ALLOW_PROTOCOL: "ext:file" });
    expect(synced.out).toContain(
      `FAILED: transport 'ext' is not allowed for ext::sh -c touch% ${marker}, so git refused it`,
    );
    expect(synced.out).not.toContain("check the network");
    expect(existsSync(marker)).toBe(false);
  });

  test("a copy whose origin is another repository's is cloned again, not fetched into", async () => {
    const team = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "The team's.") });
    const other = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "Another repository's.") });
    const m = machine();
    const env = { SKILLS_REPO: team.url };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const copy = copyOf(m);
    // As an earlier version left it when another repository's folder name was the same.
    git(["remote", "set-url", "origin", other.url], copy);
    git(["fetch", other.url, "main"], copy);
    git(["reset", "--hard", "FETCH_HEAD"], copy);
    const synced = await cli(m, ["sync"], env);
    expect(synced.code).toBe(0);
    expect(synced.out).toContain(
      `the copy in ${copy} was removed and cloned again: its origin is ${other.url}, another repository than the configured ${team.url}.`,
    );
    expect(git(["config", "--get", "remote.origin.url"], copy).trim()).toBe(team.url);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("The team's.");
    // Another spelling of the same repository is its own.
    git(["remote", "set-url", "origin", `${team.url}/`], copy);
    expect((await cli(m, ["sync"], env)).out).not.toContain("cloned again");
  });

  test("the copy's hooks do not run on fetch, merge or checkout", async () => {
    const { remote, key } = signedRemote();
    const m = machine();
    const env = { SKILLS_REPO: remote.url };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const copy = copyOf(m);
    const marker = join(tempDir("skillhub-marker-"), "ran");
    for (const hook of ["reference-transaction", "post-merge", "post-checkout", "post-index-change"])
      tripwire(join(copy, ".git", "hooks", hook), marker);

    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Second commit."));
    signedCommit(remote, "signed", key);
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    // A local change: the sync checks the commit out again.
    write(join(copy, "skills", "alpha", "SKILL.md"), skillText("alpha", "Changed on disk."));
    const restored = await cli(m, ["sync"], env);
    expect(restored.out).toContain("local changes");
    expect((await cli(m, ["list", "--json"], env)).out).toContain("Second commit.");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("git runs no program a repository's own files name", () => {
  test("its .gitattributes naming a filter or diff driver of the user's git config, its .githooks under a relative core.hooksPath: nothing runs on clone or update", async () => {
    const m = machine();
    const marker = join(tempDir("skillhub-marker-"), "ran");
    const driver = tripwire(join(tempDir("skillhub-driver-"), "driver.sh"), marker);
    const gitconfig = write(
      join(m.home, ".gitconfig"),
      `[filter "team"]\n\tsmudge = ${driver}\n\tclean = ${driver}\n\trequired = true\n[diff "team"]\n\ttextconv = ${driver}\n[core]\n\thooksPath = .githooks\n`,
    );
    const remote = remoteRepo("team", {
      "skills/alpha/SKILL.md": skillText("alpha"),
      ".gitattributes": "* filter=team diff=team\n",
    });
    for (const hook of ["post-checkout", "reference-transaction", "post-index-change"])
      tripwire(join(remote.work, ".githooks", hook), marker);
    remote.push("a filter and hooks");
    const env = { SKILLS_REPO: remote.url, GIT_CONFIG_GLOBAL: gitconfig };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    remote.write("skills/alpha/SKILL.md", skillText("alpha", "Second commit."));
    remote.push("second");
    const updated = await cli(m, ["sync"], env);
    expect(updated.out).toContain("1 file changed");
    expect((await cli(m, ["list", "--json"], env)).out).toContain("Second commit.");
    expect(existsSync(marker)).toBe(false);
  });
});

/** A FIFO at `path`, in place of the file there. */
function fifoAt(path: string): void {
  rmSync(path, { force: true });
  const made = Bun.spawnSync(["mkfifo", path]);
  if (made.exitCode !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
}

describe("a copy's .git holding a FIFO git would wait on", () => {
  // Without the check, each git command on the copy would wait for its two-minute timeout: past this test's limit.
  for (const name of ["config", "objects/info/alternates"])
    test(`.git/${name}: sync clones it again at once, lock and (with allowed signers) list do not wait on it`, async () => {
      const { remote, signers } = signedRemote();
      const m = machine();
      const env = { SKILLS_REPO: remote.url };
      expect((await cli(m, ["sync"], env)).code).toBe(0);
      const copy = copyOf(m);
      fifoAt(join(copy, ".git", name));

      const locked = await cli(m, ["lock"], env);
      expect(locked.code).toBe(1);
      const trust = { ...env, SKILLHUB_ALLOWED_SIGNERS: signers };
      expect((await cli(m, ["list", "--json"], trust)).out).not.toContain("Signed by the team.");
      const doctor = JSON.parse((await cli(m, ["doctor", "--json"], trust)).out);
      expect(doctor.repos[0].not_served).toBe(`its .git/${name} is not a regular file, which git would wait on`);

      const synced = await cli(m, ["sync"], env);
      expect(synced.code).toBe(0);
      expect(synced.out).toContain(
        `the copy in ${copy} was removed and cloned again: its .git/${name} is not a regular file, which git would wait on.`,
      );
      expect(lstatSync(join(copy, ".git", "config")).isFile()).toBe(true);
      expect(existsSync(join(copy, ".git", "objects", "info", "alternates"))).toBe(false);
      expect((await cli(m, ["list", "--json"], trust)).out).toContain("Signed by the team.");
    });
});

describe("a FIFO anywhere else in a copy's .git", () => {
  // Each git command that opens it would wait for the runner's two-minute timeout: past this test's limit.
  const places: [string, (copy: string) => string][] = [
    ["the checked-out commit's loose object", (copy) => objectPath(git(["rev-parse", "HEAD"], copy).trim())],
    ["the branch's ref", () => "refs/heads/main"],
    ["the remote branch's ref", () => "refs/remotes/origin/main"],
    ["a reflog git appends to", () => "logs/HEAD"],
  ];
  for (const [what, place] of places)
    test(`${what}: sync clones the copy again at once, lock does not wait on it`, async () => {
      const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
      const m = machine();
      const env = { SKILLS_REPO: remote.url };
      expect((await cli(m, ["sync"], env)).code).toBe(0);
      remote.write("skills/alpha/SKILL.md", skillText("alpha", "Second commit."));
      remote.push("second");
      expect((await cli(m, ["sync"], env)).code).toBe(0);
      const copy = copyOf(m);
      // Its objects loose, as git writes a small fetch's by default (SkillHub's own fetches keep a pack).
      loosen(copy);
      const name = place(copy);
      expect(lstatSync(join(copy, ".git", name)).isFile()).toBe(true);
      fifoAt(join(copy, ".git", name));
      const why = `its .git/${name} is not a regular file, which git would wait on`;

      expect((await cli(m, ["lock"], env)).code).toBe(1);
      const synced = await cli(m, ["sync"], env);
      expect(synced.code).toBe(0);
      expect(synced.out).toContain(`the copy in ${copy} was removed and cloned again: ${why}.`);
      expect((await cli(m, ["list", "--json"], env)).out).toContain("Second commit.");
    });

  test("a .git with more entries than are looked through is refused, not passed over", () => {
    const copy = tempDir("skillhub-copy-");
    git(["init", "--quiet"], copy);
    const entries = readdirSync(join(copy, ".git"), { recursive: true }).length;
    expect(gitFilesProblem(copy, entries)).toBeUndefined();
    write(join(copy, ".git", "objects", "ab", "cdef"), "x");
    expect(gitFilesProblem(copy, entries)).toBe(
      `its .git holds more than ${entries} files and folders, more than SkillHub looks through`,
    );
  });

  test("a link in .git, which could lead git to a FIFO, is refused the same way", async () => {
    const remote = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha") });
    const m = machine();
    const env = { SKILLS_REPO: remote.url };
    expect((await cli(m, ["sync"], env)).code).toBe(0);
    const copy = copyOf(m);
    const fifo = join(tempDir("skillhub-fifo-"), "pipe");
    fifoAt(fifo);
    rmSync(join(copy, ".git", "refs", "heads", "main"), { force: true });
    symlinkSync(fifo, join(copy, ".git", "refs", "heads", "main"));
    const synced = await cli(m, ["sync"], env);
    expect(synced.code).toBe(0);
    expect(synced.out).toContain("its .git/refs/heads/main is not a regular file, which git would wait on.");
  });
});

/** Where a loose object lies in a `.git`. */
/** Turn every pack of `copy` into loose objects. */
function loosen(copy: string): void {
  const packs = join(copy, ".git", "objects", "pack");
  const aside = tempDir("skillhub-packs-");
  for (const name of readdirSync(packs)) renameSync(join(packs, name), join(aside, name));
  for (const name of readdirSync(aside).filter((n) => n.endsWith(".pack"))) {
    const unpacked = Bun.spawnSync(["git", "unpack-objects", "-q"], {
      cwd: copy,
      env: GIT_ENV,
      stdin: Bun.file(join(aside, name)),
    });
    if (unpacked.exitCode !== 0) throw new Error(`git unpack-objects failed: ${unpacked.stderr.toString()}`);
  }
}

function objectPath(hash: string): string {
  return `objects/${hash.slice(0, 2)}/${hash.slice(2)}`;
}

describe("what a copy's .git may hold", () => {
  test("only the settings SkillHub's clone writes are its own", () => {
    const listing = [
      "core.repositoryformatversion\n0",
      "core.filemode\ntrue",
      "core.bare\nfalse",
      "core.logallrefupdates\ntrue",
      "remote.origin.url\nfile:///srv/team.git",
      "remote.origin.fetch\n+refs/heads/*:refs/remotes/origin/*",
      "branch.main.remote\norigin",
      "branch.main.merge\nrefs/heads/main",
      "remote.origin.tagopt\n--no-tags",
      "core.fsmonitor\n/tmp/x.sh",
      "filter.lfs.process\ngit-lfs filter-process",
      "include.path\n../other",
      "remote.origin.uploadpack\n/tmp/x.sh",
      "core.symlinks\ntrue",
      "core.symlinks\nfalse",
      "url.file:///srv/other.git.insteadof\nfile:///srv/team.git",
      "",
    ].join("\0");
    expect(foreignSettings(listing)).toEqual([
      "core.fsmonitor",
      "filter.lfs.process",
      "include.path",
      "remote.origin.uploadpack",
      // Where links can be made, git init writes no core.symlinks: false is another's.
      ...(process.platform === "win32" ? [] : ["core.symlinks"]),
      "url.file:///srv/other.git.insteadof",
    ]);
  });

  test.skipIf(process.platform === "win32")(
    "a copy whose core.symlinks is false, which checks a committed link out as a file of its text, is cloned again",
    async () => {
      const team = remoteRepo("team", { "skills/alpha/SKILL.md": skillText("alpha", "The team's.") });
      symlinkSync("alpha", join(team.work, "skills", "beta"));
      team.push("a link");
      const m = machine();
      const env = { SKILLS_REPO: team.url };
      expect((await cli(m, ["sync"], env)).code).toBe(0);
      const copy = copyOf(m);
      expect(lstatSync(join(copy, "skills", "beta")).isSymbolicLink()).toBe(true);
      git(["config", "core.symlinks", "false"], copy);
      // What git does with it: the link becomes a file holding "alpha".
      rmSync(join(copy, "skills", "beta"));
      git(["checkout", "--", "skills/beta"], copy);
      expect(readFileSync(join(copy, "skills", "beta"), "utf8")).toBe("alpha");
      const why = "its .git/config holds settings SkillHub does not write (core.symlinks)";
      expect((await cli(m, ["list", "--json"], env)).err).toContain(`is not served: ${why}`);
      const synced = await cli(m, ["sync"], env);
      expect(synced.out).toContain(`the copy in ${copy} was removed and cloned again: ${why}`);
      expect(lstatSync(join(copy, "skills", "beta")).isSymbolicLink()).toBe(true);
      expect(git(["config", "--local", "--list"], copy)).not.toContain("symlinks");
    },
  );

  test("index entries git would not compare with the work tree are named", () => {
    const listing = ["H skills/a/SKILL.md", "S skills/b/SKILL.md", "h skills/c/SKILL.md", "H a b.md", ""].join("\0");
    expect(skippedEntries(listing)).toEqual(["skills/b/SKILL.md", "skills/c/SKILL.md"]);
  });
});
