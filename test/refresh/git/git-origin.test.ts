import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { foreignCopy } from "../../../src/refresh/git/git-origin.ts";
import { closeAfterEach } from "../../helpers/closers.ts";
import { cleanupTemp, tempDir, write } from "../../helpers/fs.ts";
import { GIT_ENV, git, type Remote, remoteRepo, skillText } from "../../helpers/git.ts";
import { connect } from "../../helpers/hub.ts";
import { cli, type Machine, machine } from "../../lock/cli.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/** The team's repository, another one (with a config.yaml of its own), and machine `m` with the team's copy synced and locked. */
async function syncedTeam() {
  const team = remoteRepo("team", { "skills/team-style/SKILL.md": skillText("team-style", "The team's style guide.") });
  const other = remoteRepo("other", {
    "skills/decoy/SKILL.md": skillText("decoy", "A decoy from another repository."),
    "config.yaml": "refresh:\n  interval_minutes: 7\n",
  });
  const m = machine();
  const env = { SKILLS_REPO: team.url };
  expect((await cli(m, ["sync"], env)).code).toBe(0);
  return { team, other, m, env, copy: copyOf(m) };
}

/** The one repository copy of machine `m`. */
function copyOf(m: Machine): string {
  const repos = join(m.home, ".skillhub", "repos");
  return join(repos, readdirSync(repos).filter((n) => !n.startsWith(".") && !n.endsWith(".lock"))[0] as string);
}

/** Another repository's commit checked out in `copy`, its origin that repository: a leftover, or a rewritten .git/config. */
function makeCopyOf(copy: string, other: Remote): void {
  git(["remote", "set-url", "origin", other.url], copy);
  git(["fetch", "--quiet", other.url, "main"], copy);
  git(["reset", "--quiet", "--hard", "FETCH_HEAD"], copy);
}

/** What every reader says of the team's copy when its origin is `other`'s. */
function notServed(copy: string, team: Remote, other: Remote): string {
  return `repo team: the copy in ${copy} is not served: its origin is ${other.url}, another repository than the configured ${team.url}. The next sync (\`skillhub sync\`, refresh_skills) clones ${team.url} again in its place.`;
}

describe("a repository copy whose origin is another repository is not served as the configured one", () => {
  test("list, doctor, sources, lock and verify leave its skills out and say why; sync clones it again", async () => {
    const { team, other, m, env, copy } = await syncedTeam();
    const lock = readFileSync(m.lock, "utf8");
    makeCopyOf(copy, other);
    const why = `its origin is ${other.url}, another repository than the configured ${team.url}`;

    const listed = await cli(m, ["list", "--json"], env);
    expect(listed.out).not.toContain("decoy");
    expect(listed.err).toContain(notServed(copy, team, other));

    const doctor = await cli(m, ["doctor", "--json"], env);
    expect(doctor.code).toBe(1);
    const repo = JSON.parse(doctor.out).repos[0];
    expect(repo).toMatchObject({
      served: false,
      not_served: why,
      foreign_origin: { found: other.url, expected: team.url },
    });
    const report = (await cli(m, ["doctor"], env)).out;
    expect(report).toContain(`    copy ${copy} at `);
    expect(report).toContain(
      `    not served: ${why}. The next sync (\`skillhub sync\`, refresh_skills) clones ${team.url} again in its place.`,
    );
    // Its config.yaml is not the team's: it sets nothing.
    expect(report).not.toContain("synced every 7 min");

    const sources = await cli(m, ["sources"], env);
    expect(sources.out).toContain(`    not served: ${why}; \`skillhub sync\` clones it again in its place`);

    // Nothing of it is recorded: verify could not pass over it afterwards.
    const locked = await cli(m, ["lock"], env);
    expect(locked.code).toBe(1);
    expect(locked.err).toContain(
      `skillhub lock: repository team's copy is not served (${why}), so no lock was written`,
    );
    expect(readFileSync(m.lock, "utf8")).toBe(lock);
    const verified = await cli(m, ["verify"], env);
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(`removed source team: the copy of ${team.url} is not served (${why})`);
    expect(verified.out).toContain(`Repository team is not served here: its copy in ${copy} is another repository's`);

    const synced = await cli(m, ["sync"], env);
    expect(synced.code).toBe(0);
    expect(synced.out).toContain(`the copy in ${copy} was removed and cloned again: ${why}.`);
    const after = await cli(m, ["list", "--json"], env);
    expect(after.out).toContain("The team's style guide.");
    expect(after.err).not.toContain("not served");
    expect((await cli(m, ["verify"], env)).code).toBe(0);
  });

  test("nor as a plain folder: a skills folder holding the copies is walked without them", async () => {
    const { other, m, env, copy } = await syncedTeam();
    makeCopyOf(copy, other);
    for (const dir of [join(m.home, ".skillhub"), m.home]) {
      const listed = await cli(m, ["list", "--json", "--skills-dir", dir], env);
      expect(listed.code).toBe(0);
      expect(listed.out).not.toContain("decoy");
      expect(listed.out).not.toContain("The team's style guide.");
    }
  });

  test("a copy that records no origin is not served either; one whose origin is another spelling of the repository is", async () => {
    const { team, m, env, copy } = await syncedTeam();
    git(["remote", "set-url", "origin", `${team.url}/`], copy);
    const spelt = await cli(m, ["list", "--json"], env);
    expect(spelt.out).toContain("The team's style guide.");
    expect(spelt.err).not.toContain("not served");
    // A second url is where a push goes too; git fetches from the first.
    git(["remote", "set-url", "--add", "origin", "https://example.invalid/mirror.git"], copy);
    const mirrored = await cli(m, ["list", "--json"], env);
    expect(mirrored.out).toContain("The team's style guide.");
    expect(mirrored.err).not.toContain("not served");

    git(["remote", "remove", "origin"], copy);
    const none = await cli(m, ["list", "--json"], env);
    expect(none.out).not.toContain("The team's style guide.");
    expect(none.err).toContain(
      `repo team: the copy in ${copy} is not served: it records no origin, so nothing says it is a copy of ${team.url}.`,
    );
    const synced = await cli(m, ["sync"], env);
    expect(synced.out).toContain(`the copy in ${copy} was removed and cloned again: it records no origin`);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("The team's style guide.");
  });

  test("a server that cannot sync the copy does not serve it, nor a copy changed to another repository's while it runs", async () => {
    const { team, other, m, env, copy } = await syncedTeam();
    // Another SkillHub holds the copy's sync lock for as long as the server runs: no sync of this server touches it.
    const holder = Bun.spawn(["sleep", "300"]);
    closers.push(() => holder.kill("SIGKILL"));
    write(`${copy}.lock`, `${holder.pid}\n`);
    const s = await connect({
      home: m.home,
      cwd: m.project,
      env: { ...env, HOME: m.home },
      hub: { git: { runner: { env: GIT_ENV }, intervalMs: 0, lockWaitMs: 0, home: join(m.home, ".skillhub") } },
    });
    closers.push(s.close);
    expect((await s.call("skill", { name: "team-style" })).isError).toBeFalsy();

    makeCopyOf(copy, other);
    // refresh_skills: the sync is skipped (the lock is held), the rescan reads the copy as it is now.
    await s.call("refresh_skills");
    expect((await s.call("skill", { name: "decoy" })).isError).toBe(true);
    expect((await s.call("skill", { name: "team-style" })).isError).toBe(true);
    expect(s.hub.catalog.skills.map((skill) => skill.name)).not.toContain("decoy");
    expect(s.logger.lines.join("\n")).toContain(notServed(copy, team, other));
  });
});

describe("a copy is served only when the origin git reads is the configured repository", () => {
  test("an origin ending in a blank git keeps (a no-break or ideographic space, a vertical tab, a form feed) is another path", async () => {
    const { team, m, env, copy } = await syncedTeam();
    for (const blank of ["\u3000", "\u00a0", "\v", "\f"]) {
      git(["config", "remote.origin.url", `${team.url}${blank}`], copy);
      // git's own reading: the blank is part of the URL.
      expect(git(["config", "-z", "--get", "remote.origin.url"], copy)).toBe(`${team.url}${blank}\0`);
      const escaped = `\\u${blank.charCodeAt(0).toString(16).padStart(4, "0")}`;
      expect(foreignCopy(copy, team.url)).toEqual({
        found: `${team.url}${escaped}`,
        why: `its origin ${team.url}${escaped} holds a control or format character or a blank other than an inner space, so it is not taken for the configured ${team.url}`,
      });
    }
    const listed = await cli(m, ["list", "--json"], env);
    expect(listed.out).not.toContain("The team's style guide.");
    expect(listed.err).toContain(`its origin ${team.url}\\u000c holds a control`);
    expect((await cli(m, ["sync"], env)).out).toContain(`the copy in ${copy} was removed and cloned again`);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("The team's style guide.");
  });

  test("so is one ending in a space (kept when quoted) or holding an invisible character, each shown escaped", async () => {
    const { team, copy } = await syncedTeam();
    const refused: [string, string][] = [
      [`${team.url}  `, `${team.url}\\u0020\\u0020`],
      [` ${team.url}`, `\\u0020${team.url}`],
      [`${team.url}\u200b`, `${team.url}\\u200b`],
      [`${team.url}\u2028`, `${team.url}\\u2028`],
      [`${team.url.replace("team", "te\u202eam")}`, `${team.url.replace("team", "te\\u202eam")}`],
    ];
    for (const [origin, shown] of refused) {
      git(["config", "remote.origin.url", origin], copy);
      // git keeps every character of it: a space at either end is written quoted.
      const written = origin.startsWith(" ") || origin.endsWith(" ") ? `"${origin}"` : origin;
      expect(readFileSync(join(copy, ".git", "config"), "utf8")).toContain(`url = ${written}\n`);
      expect(foreignCopy(copy, team.url)?.found).toBe(shown);
    }
  });

  test("another spelling of a path holding a space or letters of any script is the repository: served, never cloned again", async () => {
    const team = remoteRepo("team", {
      "skills/team-style/SKILL.md": skillText("team-style", "The team's style guide."),
    });
    const path = join(tempDir(), "équipe dir 団隊", "team.git");
    mkdirSync(join(path, ".."));
    git(["clone", "--quiet", "--bare", team.bare, path]);
    const m = machine();
    for (const [configured, recorded] of [
      [path, `${path}/`],
      [`${path}/`, path],
    ]) {
      const env = { SKILLS_REPO: configured as string };
      expect((await cli(m, ["sync"], env)).code).toBe(0);
      const copy = copyOf(m);
      git(["remote", "set-url", "origin", recorded as string], copy);
      expect(foreignCopy(copy, configured as string)).toBeUndefined();
      const listed = await cli(m, ["list", "--json"], env);
      expect(listed.out).toContain("The team's style guide.");
      expect(listed.err).not.toContain("not served");
      const synced = await cli(m, ["sync"], env);
      expect(synced.out).not.toContain("cloned again");
      expect(git(["config", "--get", "remote.origin.url"], copy)).toBe(recorded as string);
    }
  });

  /** Ways to make git fetch `other` for a copy whose .git/config's first origin is still `team`'s. */
  const indirections: [string, (copy: string, team: Remote, other: Remote) => void, string][] = [
    [
      "an include before the origin",
      (copy, _, other) => {
        const included = write(join(copy, "..", "included.config"), `[remote "origin"]\n\turl = ${other.url}\n`);
        const config = join(copy, ".git", "config");
        writeFileSync(config, `[include]\n\tpath = ${included}\n${readFileSync(config, "utf8")}`);
      },
      "its .git/config holds settings SkillHub does not write (include.path)",
    ],
    [
      "a conditional include",
      (copy, _, other) => {
        const included = write(join(copy, "..", "included.config"), `[remote "origin"]\n\turl = ${other.url}\n`);
        const config = join(copy, ".git", "config");
        writeFileSync(config, `[includeIf "gitdir:/"]\n\tpath = ${included}\n${readFileSync(config, "utf8")}`);
      },
      "its .git/config holds settings SkillHub does not write (includeif.gitdir:/.path)",
    ],
    [
      "a url.insteadOf of the configured URL",
      (copy, team, other) => git(["config", `url.${other.url}.insteadOf`, team.url], copy),
      "its .git/config holds settings SkillHub does not write (url.",
    ],
    [
      "a .git/commondir naming another repository's",
      (copy, _, other) => write(join(copy, ".git", "commondir"), `${join(other.work, ".git")}\n`),
      "its .git/commondir makes git read another repository's config",
    ],
  ];

  test.each(indirections)("%s: not served, and sync clones it again", async (_, indirect, why) => {
    const { team, other, m, env, copy } = await syncedTeam();
    indirect(copy, team, other);
    // git itself now fetches from the other repository.
    expect(git(["ls-remote", "--get-url", "origin"], copy)).toEndWith("/other.git");
    expect(foreignCopy(copy, team.url)?.why).toStartWith(why);
    const listed = await cli(m, ["list", "--json"], env);
    expect(listed.out).not.toContain("The team's style guide.");
    expect(listed.err).toContain(`repo team: the copy in ${copy} is not served: ${why}`);
    const synced = await cli(m, ["sync"], env);
    expect(synced.out).toContain(`the copy in ${copy} was removed and cloned again: ${why}`);
    expect(git(["ls-remote", "--get-url", "origin"], copy)).toBe(team.url);
    expect((await cli(m, ["list", "--json"], env)).out).toContain("The team's style guide.");
  });

  test("a line break in an origin adds no line to the log", async () => {
    const { m, env, copy } = await syncedTeam();
    const forged = "2026-12-01T04:44:00.000Z skillhub INFO  repo team: the copy is verified.";
    git(["config", "remote.origin.url", `file:///x\n${forged}\r${forged}`], copy);
    const listed = await cli(m, ["list", "--json"], env);
    expect(listed.err).toContain(`is not served: its origin file:///x\\u000a${forged}\\u000d${forged} holds a control`);
    const lines = listed.err.split(/\r|\n/);
    expect(lines.filter((line) => line.startsWith(forged))).toEqual([]);
  });
});

describe("a repository copy named as a plain skills folder", () => {
  test("--skills-dir, SKILLS_DIR or a link to the copy is refused, naming the repository as the way to serve it", async () => {
    const { m, env, copy } = await syncedTeam();
    const skills = join(copy, "skills");
    const linked = join(tempDir("skillhub-link-"), "team-skills");
    symlinkSync(copy, linked);
    for (const [args, extra, origin, shown] of [
      [["--skills-dir", skills], {}, "--skills-dir", skills],
      [[], { SKILLS_DIR: skills }, "SKILLS_DIR (environment variable)", skills],
      [["--skills-dir", join(linked, "skills")], {}, "--skills-dir", join(linked, "skills")],
    ] as const) {
      const listed = await cli(m, ["list", "--json", ...args], { ...env, ...extra });
      expect(listed.code).toBe(2);
      expect(listed.out).toBe("");
      expect(listed.err).toContain(
        `${origin} = ${JSON.stringify(shown)}: a folder in SkillHub's repository copies (${join(m.home, ".skillhub", "repos")}) is served only as its repository`,
      );
      expect(listed.err).toContain("Name the repository instead: `skillhub add URL`, SKILLS_REPO or git.repos");
    }
    // add --global does not write what every later start would refuse.
    const config = join(m.home, ".skillhub", "config.yaml");
    const added = await cli(m, ["add", "--global", skills], env);
    expect(added.code).toBe(2);
    expect(added.err).toContain(`${skills}: a folder in SkillHub's repository copies`);
    expect(existsSync(config) ? readFileSync(config, "utf8") : "").not.toContain(skills);
  });
});

describe("whose copy a folder is, from its .git/config alone", () => {
  const url = "https://github.com/acme/team-skills.git";
  /** A copy folder whose .git/config holds `config`. */
  const copyWith = (config: string) => {
    const dir = tempDir("skillhub-copy-");
    write(join(dir, ".git", "config"), config);
    return dir;
  };

  test("an origin that is the repository however spelt is its copy; no folder at all is no copy to refuse", () => {
    expect(foreignCopy(copyWith(`[remote "origin"]\n\turl = ${url}\n`), url)).toBeUndefined();
    expect(foreignCopy(copyWith('[remote "origin"]\n\turl = git@github.com:Acme/team-skills\n'), url)).toBeUndefined();
    expect(foreignCopy(join(tempDir("skillhub-copy-"), "none"), url)).toBeUndefined();
  });

  test("another origin is named, without its credentials; of two urls, the first (git fetches from it) decides", () => {
    const other = "https://bot:s3cret-token@github.com/acme/other.git";
    expect(foreignCopy(copyWith(`[remote "origin"]\n\turl = ${other}\n`), url)).toEqual({
      found: "https://***@github.com/acme/other.git",
      why: `its origin is https://***@github.com/acme/other.git, another repository than the configured ${url}`,
    });
    const two = copyWith(`[remote "origin"]\n\turl = ${url}\n\turl = https://github.com/acme/other.git\n`);
    expect(foreignCopy(two, url)).toBeUndefined();
    const otherFirst = copyWith(`[remote "origin"]\n\turl = https://github.com/acme/other.git\n\turl = ${url}\n`);
    expect(foreignCopy(otherFirst, url)?.found).toBe("https://github.com/acme/other.git");
  });

  test("a folder without a readable .git/config, or whose config git would refuse, is no copy of it", () => {
    const plain = tempDir("skillhub-copy-");
    writeFileIn(plain, "skills/alpha/SKILL.md");
    expect(foreignCopy(plain, url)?.why).toBe("it is no git copy (it has no .git/config)");
    expect(foreignCopy(copyWith('[remote "origin"\n\turl = x\n'), url)?.why).toBe(
      "its .git/config is not one git can read",
    );
    expect(foreignCopy(copyWith("[core]\n\tbare = false\n"), url)?.why).toStartWith("it records no origin");
    // Security: a .git that leads to another repository's is not read as this copy's.
    const elsewhere = copyWith(`[remote "origin"]\n\turl = ${url}\n`);
    const linked = tempDir("skillhub-copy-");
    symlinkSync(join(elsewhere, ".git"), join(linked, ".git"));
    expect(foreignCopy(linked, url)?.why).toStartWith("its .git/config cannot be read");
    const fifo = tempDir("skillhub-copy-");
    mkdirSync(join(fifo, ".git"));
    expect(Bun.spawnSync(["mkfifo", join(fifo, ".git", "config")]).exitCode).toBe(0);
    expect(foreignCopy(fifo, url)?.why).toContain("is a FIFO (named pipe), not a regular file");
  });
});

describe("a copy's .git/config is read again once it changes", () => {
  const url = "https://github.com/acme/team-skills.git";
  const other = "https://github.com/acme/evil-skills.git";

  test("an edit of the same size made at once after a read is seen", () => {
    const dir = tempDir("skillhub-copy-");
    const config = write(join(dir, ".git", "config"), `[remote "origin"]\n\turl = ${url}\n`);
    expect(foreignCopy(dir, url)).toBeUndefined();
    // The same inode and size, and maybe the same tick of the file system's clock.
    writeFileSync(config, `[remote "origin"]\n\turl = ${other}\n`);
    expect(foreignCopy(dir, url)?.found).toBe(other);
  });

  test("a verdict kept for a settled file is not kept past an edit", () => {
    const dir = tempDir("skillhub-copy-");
    const config = write(join(dir, ".git", "config"), `[remote "origin"]\n\turl = ${url}\n`);
    const later = () => Date.now() + 60_000;
    expect(foreignCopy(dir, url, later)).toBeUndefined();
    // Another file in its place (its inode number may be the same), of another size.
    rmSync(config);
    write(config, `[remote "origin"]\n\turl = https://github.com/acme/evil.git\n`);
    expect(foreignCopy(dir, url, later)?.found).toBe("https://github.com/acme/evil.git");
    write(config, `[remote "origin"]\n\turl = ${url}\n\n`);
    expect(foreignCopy(dir, url, later)).toBeUndefined();
  });
});

function writeFileIn(dir: string, path: string): void {
  write(join(dir, path), "x\n");
}
