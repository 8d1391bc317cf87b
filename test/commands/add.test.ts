import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { initializeAndList } from "../../scripts/smoke.ts";
import { run } from "../../src/cli.ts";
import { readLockfile } from "../../src/lock/lockfile.ts";
import { binary, binaryClient } from "../helpers/binary.ts";
import { cleanupTemp, labelOfDir, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { closedPort, GIT_ENV, git, remoteRepo, skillText } from "../helpers/git.ts";

afterAll(cleanupTemp);

/** A developer's machine: a home, and a project (a git checkout) that is the working folder. */
function machine() {
  const home = tempDir("skillhub-add-home-");
  const project = tempDir("skillhub-add-project-");
  git(["init", "--quiet"], project);
  return { home, project };
}
type Machine = ReturnType<typeof machine>;

/** The CLI as a person runs it in the project folder: no --project, the working folder is the project. */
async function cli(m: Machine, argv: string[], env: Record<string, string> = {}, cwd = m.project) {
  let out = "";
  let err = "";
  const code = await run(
    argv,
    { ...GIT_ENV, HOME: m.home, ...env },
    {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      cwd,
    },
  );
  return { code, out, err };
}

/** A team's skills repository: skills/pdf and skills/docx on main, tagged v1. */
function teamRepo(name = "team-skills") {
  const remote = remoteRepo(name, {
    "skills/pdf/SKILL.md": skillText("pdf", "Extract text and tables from PDF files."),
    "skills/docx/SKILL.md": skillText("docx", "Create and edit Word documents with tracked changes."),
  });
  git(["tag", "v1"], remote.work);
  git(["push", "--quiet", "origin", "v1"], remote.work);
  return remote;
}

const projectFile = (m: Machine) => join(m.project, "skillhub.yaml");
const copies = (m: Machine) =>
  existsSync(join(m.home, ".skillhub", "repos")) ? readdirSync(join(m.home, ".skillhub", "repos")) : [];

describe("skillhub add", () => {
  test("records a repository in the project's skillhub.yaml, fetches it, writes the lock and lists its skills", async () => {
    const m = machine();
    const team = teamRepo();
    const added = await cli(m, ["add", team.url]);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain(`Added ${team.url} in ${projectFile(m)}.`);
    expect(added.out).toMatch(/team-skills: 2 skills available/);
    expect(added.out).toMatch(/ {2}pdf +Extract text and tables from PDF files\./);
    expect(added.out).toMatch(/ {2}docx +Create and edit Word documents with tracked changes\./);
    const file = readFileSync(projectFile(m), "utf8");
    expect(file).toContain("Commit this file with skillhub.lock");
    expect(file).toContain(`repos:\n    - ${team.url}\n`);
    const lock = readLockfile(join(m.project, "skillhub.lock"));
    expect(lock.sources["team-skills"]).toEqual({
      url: team.url,
      ref: "main",
      commit: git(["rev-parse", "HEAD"], team.work),
    });
    expect(Object.keys(lock.skills).sort()).toEqual(["team-skills:docx", "team-skills:pdf"]);
    // Any later command in the project, and the server, read the project's file.
    const listed = await cli(m, ["list", "--json"]);
    expect(
      JSON.parse(listed.out)
        .skills.map((s: { name: string }) => s.name)
        .sort(),
    ).toEqual(["docx", "pdf"]);
  });

  test("a source added again changes nothing: the lock is neither rewritten nor said to be", async () => {
    const m = machine();
    const team = teamRepo();
    writeSkill(join(m.project, "vendor", "skills"), "vendored");
    expect((await cli(m, ["add", team.url, "./vendor/skills"])).code).toBe(0);
    const lock = join(m.project, "skillhub.lock");
    const text = readFileSync(lock, "utf8");
    // Left as it was: a later write, or the same bytes written again, would move it.
    utimesSync(lock, new Date(1_000_000), new Date(1_000_000));
    for (const source of [team.url, "./vendor/skills"]) {
      const again = await cli(m, ["add", source]);
      expect(again.code, again.err).toBe(0);
      expect(again.out).toContain(`${source} is already a source in ${projectFile(m)}; nothing changed.\n`);
      expect(again.out).not.toContain("Wrote");
      expect(statSync(lock).mtimeMs).toBe(1_000_000);
    }
    expect(readFileSync(lock, "utf8")).toBe(text);
    // With no lock yet, adding nothing records nothing: `skillhub lock` records what is served.
    rmSync(lock);
    const first = await cli(m, ["add", team.url]);
    expect(first.out).not.toContain("Wrote");
    expect(existsSync(lock)).toBe(false);
    expect((await cli(m, ["lock"])).out).toContain(`Wrote ${lock}: 3 skills, 1 git source.`);
  });

  test("a lock that cannot be read stops add and remove before they fetch or change a file; --global writes only the user's", async () => {
    const m = machine();
    const team = teamRepo();
    const lock = join(m.project, "skillhub.lock");
    write(lock, "{broken");
    const added = await cli(m, ["add", team.url]);
    expect(added.code).toBe(2);
    expect(added.err).toStartWith(`skillhub add: ${lock} is not valid JSON (`);
    expect(added.err).toEndWith("; nothing was added.\n");
    expect(existsSync(projectFile(m))).toBe(false);
    expect(copies(m)).toEqual([]);
    // Your own sources go to your own lock, which can be read.
    const global = await cli(m, ["add", "--global", team.url]);
    expect(global.code, global.err).toBe(0);
    expect(readLockfile(join(m.home, ".skillhub", "skillhub.lock")).sources["team-skills"]).toBeDefined();
    // A source recorded while the lock could be read is not taken out without its entry either.
    rmSync(lock);
    const other = teamRepo("other-skills");
    expect((await cli(m, ["add", other.url])).code).toBe(0);
    const yaml = readFileSync(projectFile(m), "utf8");
    write(lock, "{broken");
    const removed = await cli(m, ["remove", other.url]);
    expect(removed.code).toBe(2);
    expect(removed.err).toEndWith("; nothing was removed.\n");
    expect(readFileSync(projectFile(m), "utf8")).toBe(yaml);
    // A fresh clone: no copy, so `lock` could not write it again; a sync can, once it is removed.
    rmSync(join(m.home, ".skillhub", "repos"), { recursive: true });
    const fresh = await cli(m, ["remove", other.url]);
    expect(fresh.code).toBe(2);
    expect(fresh.err).toContain(
      "or remove it and run `skillhub sync` to fetch the configured refs and write a new lock, for review before it is committed; nothing was removed.\n",
    );
    expect(readFileSync(projectFile(m), "utf8")).toBe(yaml);
  });

  test("the server started in the project serves the added repository's skills", async () => {
    const m = machine();
    const team = teamRepo();
    expect((await cli(m, ["add", team.url])).code).toBe(0);
    const { client, transport } = await binaryClient(join(m.project, "no-such-folder"), m.home, {
      ...(GIT_ENV as Record<string, string>),
      HOME: m.home,
      SKILLHUB_PROJECT_DIR: m.project,
    });
    try {
      const loaded = await client.callTool({ name: "skill", arguments: { name: "pdf" } });
      expect(JSON.stringify(loaded.content)).toContain("Loading: pdf");
    } finally {
      await transport.close();
    }
  });

  test("--ref: a tag is pinned, a branch followed, an unknown one changes nothing", async () => {
    const m = machine();
    const team = teamRepo();
    const tagged = await cli(m, ["add", team.url, "--ref", "v1"]);
    expect(tagged.code, tagged.err).toBe(0);
    expect(tagged.out).toContain("pinned to v1");
    expect(readFileSync(projectFile(m), "utf8")).toContain(`- url: ${team.url}\n      ref: v1\n`);
    expect(readLockfile(join(m.project, "skillhub.lock")).sources["team-skills"]?.ref).toBe("v1");

    const other = machine();
    git(["checkout", "--quiet", "-b", "develop"], team.work);
    team.write("skills/beta/SKILL.md", skillText("beta"));
    git(["add", "-A"], team.work);
    git(["commit", "--quiet", "-m", "beta"], team.work);
    git(["push", "--quiet", "origin", "develop"], team.work);
    const branch = await cli(other, ["add", `${team.url}#develop`]);
    expect(branch.code, branch.err).toBe(0);
    expect(readFileSync(projectFile(other), "utf8")).toContain("branch: develop");
    expect(branch.out).toMatch(/ {2}beta /);

    const third = machine();
    const unknown = await cli(third, ["add", team.url, "--ref", "v9"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err.trim().split("\n")).toEqual([
      `skillhub add: ${team.url} has no tag or branch 'v9' (a commit must be given as its full 40-character hash). Nothing was added.`,
    ]);
    expect(existsSync(projectFile(third))).toBe(false);
    expect(copies(third)).toEqual([]);
  });

  test("a repository added again at another tag says what its new commit changes and how to read it, as a sync does", async () => {
    const m = machine();
    const team = teamRepo();
    const v1 = git(["rev-parse", "HEAD"], team.work);
    team.write("skills/pdf/SKILL.md", skillText("pdf", "Second version."));
    const v2 = team.push("two");
    git(["tag", "v2"], team.work);
    git(["push", "--quiet", "origin", "v2"], team.work);
    expect((await cli(m, ["add", `${team.url}#v1`])).code).toBe(0);
    const moved = await cli(m, ["add", `${team.url}#v2`]);
    expect(moved.code, moved.err).toBe(0);
    expect(moved.out).toContain(
      `  changed source team-skills: ref v1 → v2, commit ${v1.slice(0, 12)} → ${v2.slice(0, 12)}\n  changed skill team-skills:pdf file SKILL.md: `,
    );
    const review = moved.out.match(/^ {2}review team-skills's files: (git -C \S+ diff [0-9a-f]{12} [0-9a-f]{12})$/m);
    const diff = Bun.spawnSync((review?.[1] ?? "git").split(" "));
    expect(diff.stdout.toString()).toContain("+description: Second version.");

    // A teammate's fresh clone of the project, locked at v1, never fetched it: no diff command that fails.
    const mate = machine();
    for (const file of ["skillhub.yaml", "skillhub.lock"])
      write(join(mate.project, file), readFileSync(join(m.project, file), "utf8").replace("ref: v2", "ref: v1"));
    write(
      join(mate.project, "skillhub.lock"),
      readFileSync(join(m.project, "skillhub.lock"), "utf8").replace(v2, v1).replace('"v2"', '"v1"'),
    );
    const fresh = await cli(mate, ["add", `${team.url}#v2`]);
    expect(fresh.code, fresh.err).toBe(0);
    expect(fresh.out).toContain(
      `  review team-skills's files: this copy never held commit ${v1.slice(0, 12)}, so compare ${v1.slice(0, 12)} with ${v2.slice(0, 12)} in the repository itself\n`,
    );
  });

  test("a repository whose default branch is not main follows its own, written in the entry", async () => {
    const m = machine();
    const remote = remoteRepo("legacy", { "skills/old/SKILL.md": skillText("old") }, "master");
    const added = await cli(m, ["add", remote.url]);
    expect(added.code, added.err).toBe(0);
    expect(readFileSync(projectFile(m), "utf8")).toContain("branch: master");
    expect(added.out).toMatch(/ {2}old /);
  });

  test("--path (or owner/repo/path) serves one folder of the repository", async () => {
    const m = machine();
    const team = teamRepo();
    const added = await cli(m, ["add", team.url, "--path", "skills/pdf/"]);
    expect(added.code, added.err).toBe(0);
    expect(readFileSync(projectFile(m), "utf8")).toContain("path: skills/pdf\n");
    expect(added.out).toMatch(/team-skills-pdf: 1 skill available/);
    const listed = await cli(m, ["list", "--json"]);
    expect(JSON.parse(listed.out).skills.map((s: { name: string }) => s.name)).toEqual(["pdf"]);
    const escape = await cli(m, ["add", team.url, "--path", "../outside"]);
    expect(escape.code).toBe(2);
    expect(escape.err).toContain("expected a folder inside the repository");
  });

  test("several repositories at once, each with its own ref; one that fails adds none", async () => {
    const m = machine();
    const a = teamRepo("alpha");
    const b = remoteRepo("beta", { "skills/beta/SKILL.md": skillText("beta") });
    const both = await cli(m, ["add", `${a.url}#v1`, b.url]);
    expect(both.code, both.err).toBe(0);
    const file = readFileSync(projectFile(m), "utf8");
    expect(file).toContain(`- url: ${a.url}\n      ref: v1\n`);
    expect(file).toContain(`- ${b.url}\n`);
    expect(Object.keys(readLockfile(join(m.project, "skillhub.lock")).sources).sort()).toEqual(["alpha", "beta"]);

    const n = machine();
    const offline = `http://127.0.0.1:${closedPort()}/gone.git`;
    const failed = await cli(n, ["add", b.url, offline]);
    expect(failed.code).toBe(1);
    expect(failed.err.split("\n").filter((l) => l.startsWith("skillhub add:"))).toHaveLength(1);
    expect(failed.err).toMatch(
      /skillhub add: cannot reach .*gone\.git .*check the network or the URL, then try again\. Nothing was added\./,
    );
    expect(existsSync(projectFile(n))).toBe(false);
  });

  test("a bad source is one sentence and exit 2: not a URL, a missing folder, --ref on several, frozen mode", async () => {
    const m = machine();
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [["add", "ht!tp://x"], /is not a git URL, an owner\/repo GitHub shorthand or a folder/],
      [["add", "./missing"], /the folder .*missing does not exist\./],
      [["add", "a/b", "c/d", "--ref", "v1"], /--ref and --path apply to one source/],
      [["add", "a/b"], /--frozen serves only what skillhub\.lock records/, { SKILLHUB_FROZEN: "1" }],
      [["add"], /name a source/],
    ];
    for (const [argv, message, env] of cases) {
      const result = await cli(m, argv, env);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.err.trim().split("\n")).toHaveLength(1);
      expect(result.err).toMatch(message);
    }
    // The option itself is not add's, nor remove's or lock's: their help does not offer it.
    for (const command of ["add", "remove", "lock"]) {
      const flag = await cli(m, [command, ...(command === "lock" ? [] : ["a/b"]), "--frozen"]);
      expect(flag.code).toBe(2);
      expect(flag.err).toContain(`option --frozen does not apply to ${command}: `);
      expect((await cli(m, [command, "--help"])).out).not.toContain("--frozen");
    }
    expect(existsSync(projectFile(m))).toBe(false);
    expect(existsSync(join(m.project, "skillhub.lock"))).toBe(false);
  });

  test("a URL holding a password or token is refused before anything is fetched, and the secret is never printed", async () => {
    const m = machine();
    const team = teamRepo();
    const withToken = team.url.replace("file://", "https://alice:s3cr3tTOKEN@127.0.0.1:1");
    const without = team.url.replace("file://", "https://127.0.0.1:1");
    const cases: [string[], string, RegExp][] = [
      [["add", withToken], without, /an SSH key or a git credential helper for its host/],
      [["add", "--global", withToken], without, /set GITHUB_TOKEN where skillhub starts/],
      [["add", "https://s3cr3tTOKEN@github.com/team/skills"], "https://github.com/team/skills", /plain text/],
      [["add", "alice:s3cr3tTOKEN@127.0.0.1:/srv/skills.git"], "alice@127.0.0.1:/srv/skills.git", /plain text/],
      [["add", "ssh://git:s3cr3tTOKEN'x@127.0.0.1/skills.git#v1"], "ssh://git@127.0.0.1/skills.git#v1", /plain text/],
      [["add", "git+https://s3cr3tTOKEN'x@127.0.0.1/skills.git"], "git+https://127.0.0.1/skills.git", /plain text/],
    ];
    for (const [argv, shown, advice] of cases) {
      const result = await cli(m, argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.err).toContain(`would keep in plain text: add ${shown} instead`);
      expect(result.err).toMatch(advice);
      expect(result.out + result.err).not.toContain("s3cr3tTOKEN");
    }
    expect(existsSync(projectFile(m))).toBe(false);
    expect(existsSync(join(m.home, ".skillhub", "config.yaml"))).toBe(false);
    expect(copies(m)).toEqual([]);
  });

  test("a config file that is a link is changed where it leads, keeping its permissions; a project's only inside the project", async () => {
    const m = machine();
    const team = teamRepo();
    const dotfiles = tempDir("skillhub-add-dotfiles-");
    const real = write(join(dotfiles, "skillhub.yaml"), "# my dotfiles\ngit:\n  token_note: kept\n");
    chmodSync(real, 0o600);
    const link = join(m.home, ".skillhub", "config.yaml");
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(real, link);
    const added = await cli(m, ["add", "--global", team.url]);
    expect(added.code, added.err).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toBe(`# my dotfiles\ngit:\n  token_note: kept\n  repos:\n    - ${team.url}\n`);
    expect(statSync(real).mode & 0o777).toBe(0o600);

    // A project's file linked out of the project (a cloned repository's trap) is neither read nor rewritten.
    const elsewhere = write(join(dotfiles, "other-tool.yaml"), "setting: 1\n");
    symlinkSync(elsewhere, projectFile(m));
    const refused = await cli(m, ["add", team.url]);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(`'${projectFile(m)}' links outside ${m.project} (to ${realpathSync(elsewhere)})`);
    expect(readFileSync(elsewhere, "utf8")).toBe("setting: 1\n");
    expect(copies(m)).toHaveLength(1);

    // Nor one linked to a repository's own file (`.git/HEAD` reads as a YAML mapping).
    rmSync(projectFile(m));
    symlinkSync(join(m.project, ".git", "HEAD"), projectFile(m));
    const head = readFileSync(join(m.project, ".git", "HEAD"), "utf8");
    expect((await cli(m, ["add", team.url])).err).toContain("is a link into a .git folder");
    expect(readFileSync(join(m.project, ".git", "HEAD"), "utf8")).toBe(head);

    // Linked inside the project, it is changed where it leads.
    rmSync(projectFile(m));
    const inside = write(join(m.project, "config", "skillhub.yaml"), "# shared\n");
    symlinkSync(inside, projectFile(m));
    expect((await cli(m, ["add", team.url])).code).toBe(0);
    expect(readFileSync(inside, "utf8")).toContain(`repos:\n    - ${team.url}\n`);
    expect(lstatSync(projectFile(m)).isSymbolicLink()).toBe(true);
  });

  test("adds run at once both land, and a lock left by a crashed command is taken over", async () => {
    const m = machine();
    const team = teamRepo();
    const mine = remoteRepo("mine", { "skills/notes/SKILL.md": skillText("notes") });
    const [first, second] = await Promise.all([cli(m, ["add", team.url]), cli(m, ["add", mine.url])]);
    expect(first.code, first.err).toBe(0);
    expect(second.code, second.err).toBe(0);
    const file = readFileSync(projectFile(m), "utf8");
    expect(file).toContain(`- ${team.url}\n`);
    expect(file).toContain(`- ${mine.url}\n`);

    const stale = write(`${projectFile(m)}.lock`, "");
    utimesSync(stale, new Date(0), new Date(0));
    const removed = await cli(m, ["remove", "mine", "mine"]);
    expect(removed.code, removed.err).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(readFileSync(projectFile(m), "utf8")).toContain(`- ${team.url}\n`);
    expect(readFileSync(projectFile(m), "utf8")).not.toContain(mine.url);
  });

  test("run in a subfolder of a checkout: the file goes there, and a note says a client at the top reads its own", async () => {
    const m = machine();
    const team = teamRepo();
    const sub = join(m.project, "services", "api");
    write(join(sub, "README.md"), "x\n");
    const added = await cli(m, ["add", team.url], {}, sub);
    expect(added.code, added.err).toBe(0);
    expect(added.err).toContain(`the project root here is the working folder ${sub}, inside the checkout ${m.project}`);
    expect(existsSync(join(sub, "skillhub.yaml"))).toBe(true);
    const atTop = await cli(m, ["add", team.url]);
    expect(atTop.err).not.toContain("note:");
  });

  test("a first skillhub.yaml in a folder that is no checkout comes with a note naming --global", async () => {
    const m = machine();
    const team = teamRepo();
    const downloads = tempDir("skillhub-add-downloads-");
    const added = await cli(m, ["add", team.url], {}, downloads);
    expect(added.code, added.err).toBe(0);
    expect(added.err).toContain(
      `skillhub add: note: ${downloads} is no git checkout; its skillhub.yaml is read by servers whose project is this folder (a client started here, or --project ${downloads}). For every project, run skillhub add --global.`,
    );
    expect(existsSync(join(downloads, "skillhub.yaml"))).toBe(true);
    // Once the file is there, it was chosen: no note again; nor in a checkout, nor with --global.
    expect((await cli(m, ["add", teamRepo().url], {}, downloads)).err).not.toContain("note:");
    expect((await cli(m, ["add", teamRepo().url])).err).not.toContain("note:");
    expect((await cli(m, ["add", "--global", teamRepo().url], {}, tempDir())).err).not.toContain("note:");
  });

  test("--global writes ~/.skillhub/config.yaml, keeping its comments and other settings", async () => {
    const m = machine();
    const team = teamRepo();
    const config = write(join(m.home, ".skillhub", "config.yaml"), "# mine\nlog_level: WARN # quiet\n");
    const added = await cli(m, ["add", "--global", team.url, "--ref", "v1"]);
    expect(added.code, added.err).toBe(0);
    expect(readFileSync(config, "utf8")).toBe(
      `# mine\nlog_level: WARN # quiet\ngit:\n  repos:\n    - url: ${team.url}\n      ref: v1\n`,
    );
    expect(existsSync(projectFile(m))).toBe(false);
  });

  test("a folder: inside the project it is written relative and served as the project's; outside only with --global", async () => {
    const m = machine();
    writeSkill(join(m.project, "vendor", "skills"), "house-style", { description: "How we write." });
    const added = await cli(m, ["add", "./vendor/skills"]);
    expect(added.code, added.err).toBe(0);
    expect(readFileSync(projectFile(m), "utf8")).toContain("sources:\n  dirs:\n    - vendor/skills\n");
    expect(added.out).toMatch(/skills: 1 skill available/);
    const listed = await cli(m, ["list", "--json"]);
    expect(JSON.parse(listed.out).skills[0]).toMatchObject({ name: "house-style", location: "project" });

    const outside = tempDir("skillhub-add-outside-");
    writeSkill(outside, "mine");
    const refused = await cli(m, ["add", outside]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("is outside the project");
    const global = await cli(m, ["add", "--global", outside]);
    expect(global.code, global.err).toBe(0);
    expect(readFileSync(join(m.home, ".skillhub", "config.yaml"), "utf8")).toContain(`dirs:\n    - ${outside}\n`);
  });

  test("a bare repository's path is added as the git repository file://PATH, in a project and with --global; a checkout stays a folder", async () => {
    const m = machine();
    const team = teamRepo();
    const added = await cli(m, ["add", team.bare]);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain(`Added ${team.bare} (the git repository ${team.url}) in ${projectFile(m)}.`);
    expect(readFileSync(projectFile(m), "utf8")).toContain(`repos:\n    - ${team.url}\n`);
    expect(added.out).toMatch(/team-skills: 2 skills available/);
    expect(readLockfile(join(m.project, "skillhub.lock")).sources["team-skills"]?.url).toBe(team.url);

    const other = machine();
    const relativePath = relative(other.project, team.bare);
    const global = await cli(other, ["add", "--global", relativePath]);
    expect(global.code, global.err).toBe(0);
    expect(global.out).toContain(`Added ${relativePath} (the git repository ${team.url}) in`);
    const config = readFileSync(join(other.home, ".skillhub", "config.yaml"), "utf8");
    expect(config).toContain(`git:\n  repos:\n    - ${team.url}\n`);
    expect(config).not.toContain("dirs:");
    // The working clone beside it is a checkout of skill folders: a folder source, as before.
    const checkout = await cli(other, ["add", "--global", team.work]);
    expect(checkout.code, checkout.err).toBe(0);
    expect(readFileSync(join(other.home, ".skillhub", "config.yaml"), "utf8")).toContain(`dirs:\n    - ${team.work}\n`);
  });

  test("a bare repository's path with #REF is that repository at REF; with @REF the answer gives the forms that work", async () => {
    const m = machine();
    const team = teamRepo();
    const added = await cli(m, ["add", `${team.bare}#v1`]);
    expect(added.code, added.err).toBe(0);
    expect(readFileSync(projectFile(m), "utf8")).toContain(`url: ${team.url}\n      ref: v1\n`);
    expect(readLockfile(join(m.project, "skillhub.lock")).sources["team-skills"]?.commit).toBe(
      git(["rev-parse", "v1"], team.work),
    );
    const at = await cli(machine(), ["add", `${team.bare}@v1`]);
    expect(at.code).toBe(2);
    expect(at.err).toContain(`${team.bare} is a bare repository; to add it at v1, write ${team.bare}#v1 or --ref v1.`);
    // A missing folder is still said to be missing.
    expect((await cli(machine(), ["add", `${team.bare}-gone#v1`])).err).toContain("does not exist.");
  });

  test("a URL ending in @REF that cannot be reached suggests URL#REF, which adds the pinned repository", async () => {
    const m = machine();
    const team = teamRepo();
    const at = await cli(m, ["add", `${team.url}@v1`]);
    expect(at.code).toBe(1);
    expect(at.err).toContain(
      `skillhub add: the folder ${team.bare}@v1 (${team.url}@v1) does not exist. If 'v1' is a ref, a URL gives it after '#': ${team.url}#v1. Nothing was added.\n`,
    );
    expect(existsSync(projectFile(m))).toBe(false);
    const hashed = await cli(m, ["add", `${team.url}#v1`]);
    expect(hashed.code, hashed.err).toBe(0);
    expect(hashed.out).toContain("pinned to v1");
    // A URL without one is not told about refs.
    const missing = await cli(m, ["add", `${team.url.replace("team-skills.git", "nothing.git")}`]);
    expect(missing.code).toBe(1);
    expect(missing.err).not.toContain("after '#'");
  });

  test("a file:// URL that names no repository says so, not to check the network; a refused transport says it is refused", async () => {
    const m = machine();
    const gone = join(tempDir(), "nope.git");
    const missing = await cli(m, ["add", pathToFileURL(gone).href]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(
      `skillhub add: the folder ${gone} (${pathToFileURL(gone).href}) does not exist. Nothing was added.\n`,
    );
    const empty = tempDir();
    const plain = await cli(m, ["add", pathToFileURL(empty).href]);
    expect(plain.code).toBe(1);
    expect(plain.err).toContain(`skillhub add: git cannot read a repository in ${empty} (`);
    // A project's repository may not use a transport that runs a command, whatever the user's git config says.
    const marker = join(tempDir(), "ran");
    const gitconfig = write(
      join(m.home, ".gitconfig"),
      `[protocol]\n\tallow = always\n[url "ext::sh -c touch% ${marker} "]\n\tinsteadOf = https://git.example.com/\n`,
    );
    const refused = await cli(m, ["add", "https://git.example.com/team/skills.git"], { GIT_CONFIG_GLOBAL: gitconfig });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      "transport 'ext' is not allowed for https://git.example.com/team/skills.git, so git refused it",
    );
    for (const said of [missing.err, plain.err, refused.err]) expect(said).not.toContain("check the network");
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(projectFile(m))).toBe(false);
  });

  test("shadowing is reported as doctor does: a skill hidden by the project's own, and load it by qualified name", async () => {
    const m = machine();
    writeSkill(join(m.project, ".agents", "skills"), "pdf", { description: "The project's PDF rules." });
    const team = teamRepo();
    const added = await cli(m, ["add", team.url]);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toMatch(/team-skills: 1 skill available, 1 shadowed/);
    expect(added.out).toContain("shadowed: pdf is hidden by");
    expect(added.out).toContain("load it as 'team-skills:pdf'");
  });
});

describe("skillhub remove and skillhub sources", () => {
  test("sources lists the project's and the user's sources with their pins; remove takes one out and rewrites the lock", async () => {
    const m = machine();
    const team = teamRepo();
    const mine = remoteRepo("mine", { "skills/notes/SKILL.md": skillText("notes") });
    expect((await cli(m, ["add", team.url, "--ref", "v1"])).code).toBe(0);
    expect((await cli(m, ["add", "--global", mine.url])).code).toBe(0);
    const listed = await cli(m, ["sources"]);
    expect(listed.code, listed.err).toBe(0);
    const head = git(["rev-parse", "v1"], team.work).slice(0, 12);
    expect(listed.out).toContain(
      `${projectFile(m)}:\n  team-skills  ${team.url}\n    pinned to v1; locked at ${head}; copy at ${head}  (2 skills)`,
    );
    // Your own repository's pin is your own lock's.
    const mineHead = git(["rev-parse", "HEAD"], mine.work).slice(0, 12);
    expect(listed.out).toContain(
      `${join(m.home, ".skillhub", "config.yaml")}:\n  mine  ${mine.url}\n    branch main; locked at ${mineHead};`,
    );
    const json = JSON.parse((await cli(m, ["sources", "--json"])).out);
    expect(json.sources.map((s: { label: string; origin: string }) => [s.label, s.origin])).toEqual([
      ["team-skills", projectFile(m)],
      ["mine", join(m.home, ".skillhub", "config.yaml")],
    ]);

    const removed = await cli(m, ["remove", "team-skills"]);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.out).toContain(
      `Removed team-skills from ${projectFile(m)}; no longer served from team-skills: docx, pdf.`,
    );
    expect(readFileSync(projectFile(m), "utf8")).not.toContain(team.url);
    // Each lock pins the repositories of the file that names them: the project's, and the user's own.
    expect(Object.keys(readLockfile(join(m.project, "skillhub.lock")).sources)).toEqual([]);
    expect(Object.keys(readLockfile(join(m.home, ".skillhub", "skillhub.lock")).sources)).toEqual(["mine"]);

    const wrongFile = await cli(m, ["remove", mine.url]);
    expect(wrongFile.code).toBe(1);
    expect(wrongFile.err).toBe(
      `skillhub remove: ${mine.url} is a source in ${join(m.home, ".skillhub", "config.yaml")}, not in ${projectFile(m)}: run remove with --global.\n`,
    );
    expect((await cli(m, ["remove", "--global", mine.url])).code).toBe(0);
    expect((await cli(m, ["sources"])).out).toContain("No sources added");
  });

  test("adding after the last source was removed writes a block list, as the first add did", async () => {
    const m = machine();
    const team = teamRepo();
    expect((await cli(m, ["add", team.url])).code).toBe(0);
    const removed = await cli(m, ["remove", "team-skills"]);
    expect(removed.code, removed.err).toBe(0);
    const added = await cli(m, ["add", `${team.url}#main`, "--path", "skills"]);
    expect(added.code, added.err).toBe(0);
    const text = readFileSync(projectFile(m), "utf8");
    expect(text).toContain(`git:\n  repos:\n    - url: ${team.url}\n      path: skills\n`);
    expect(text).not.toContain("[");
  });

  test("a repository listed in both files is used once; sources says which entry is the duplicate", async () => {
    const m = machine();
    const team = teamRepo();
    expect((await cli(m, ["add", team.url])).code).toBe(0);
    expect((await cli(m, ["add", "--global", team.url])).code).toBe(0);
    const listed = await cli(m, ["sources"]);
    expect(listed.out).toContain(`duplicate: ${team.url} is listed again; team-skills is used.`);
  });

  test("sources names each lock that pins, and says which is not written yet", async () => {
    const m = machine();
    expect((await cli(m, ["add", teamRepo().url])).code).toBe(0);
    const personal = join(m.home, ".skillhub", "skillhub.lock");
    expect(existsSync(personal)).toBe(false);
    expect((await cli(m, ["sources"])).out).toContain(
      `Pins: ${join(m.project, "skillhub.lock")}, ${personal} (not written yet).`,
    );
  });

  test("removing the last personal folder empties the personal lock, so verify passes and no project lock appears", async () => {
    const m = machine();
    const mine = tempDir("skillhub-add-mine-");
    writeSkill(mine, "mine-skill");
    const personal = join(m.home, ".skillhub", "skillhub.lock");
    expect((await cli(m, ["add", "--global", mine])).code).toBe(0);
    expect(Object.keys(readLockfile(personal).skills)).toEqual([expect.stringMatching(/:mine-skill$/)]);
    const removed = await cli(m, ["remove", "--global", mine]);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.out).toContain(`Wrote ${personal}: 0 skills, 0 git sources.`);
    expect(readLockfile(personal).skills).toEqual({});
    expect(existsSync(join(m.project, "skillhub.lock"))).toBe(false);
    const verified = await cli(m, ["verify"]);
    expect(verified.code, verified.out + verified.err).toBe(0);
  });

  test("a personal folder stays served beside --skills-dir and SKILLS_DIR folders, and its lock keeps its pins", async () => {
    const m = machine();
    const mine = tempDir("skillhub-add-mine-");
    writeSkill(mine, "mine-skill");
    const other = tempDir("skillhub-add-other-");
    writeSkill(other, "other-skill");
    const personal = join(m.home, ".skillhub", "skillhub.lock");
    expect((await cli(m, ["add", "--global", mine])).code).toBe(0);
    const names = async (argv: string[], env: Record<string, string> = {}) => {
      const listed = await cli(m, ["list", "--json", "--all", ...argv], env);
      expect(listed.code, listed.err).toBe(0);
      return JSON.parse(listed.out).skills.map((s: { name: string; source: string }) => `${s.source}:${s.name}`);
    };
    const [otherSkill, mineSkill] = [`${labelOfDir(other)}:other-skill`, `${labelOfDir(mine)}:mine-skill`];
    expect(await names(["--skills-dir", other])).toEqual([otherSkill, mineSkill]);
    expect(await names([], { SKILLS_DIR: other })).toEqual([otherSkill, mineSkill]);
    // The folder named again is one source, at its first place: not a second one shadowing the first.
    expect(await names(["--skills-dir", mine, "--skills-dir", other])).toEqual([mineSkill, otherSkill]);
    expect((await cli(m, ["doctor", "--skills-dir", other])).out).toContain(mine);
    const locked = await cli(m, ["lock", "--skills-dir", other]);
    expect(locked.code, locked.err).toBe(0);
    expect(Object.keys(readLockfile(personal).skills).sort()).toEqual([
      expect.stringMatching(/:mine-skill$/),
      expect.stringMatching(/:other-skill$/),
    ]);
  });

  test("sources shows a folder added with --global under the file that lists it, and flag and environment folders under their own", async () => {
    const m = machine();
    const mine = tempDir("skillhub-add-mine-");
    writeSkill(mine, "mine-skill");
    const flagged = tempDir("skillhub-add-flagged-");
    const fromEnv = tempDir("skillhub-add-env-");
    const userFile = join(m.home, ".skillhub", "config.yaml");
    expect((await cli(m, ["add", "--global", mine])).code).toBe(0);
    const listed = await cli(m, ["sources"]);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toStartWith(`${userFile}:\n  ${labelOfDir(mine)}  ${mine}  (1 skill)\n`);
    const json = await cli(m, ["sources", "--json", "--skills-dir", flagged], { SKILLS_DIR: fromEnv });
    expect(json.code, json.err).toBe(0);
    expect(JSON.parse(json.out).sources.map((s: { where: string; origin: string }) => [s.where, s.origin])).toEqual([
      [flagged, "--skills-dir"],
      [fromEnv, "SKILLS_DIR (environment)"],
      [mine, userFile],
    ]);
  });

  test("remove of a folder, and of something that is not a source", async () => {
    const m = machine();
    writeSkill(join(m.project, "kit"), "kit-skill");
    expect((await cli(m, ["add", "kit"])).code).toBe(0);
    const removed = await cli(m, ["remove", "./kit"]);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.out).toContain("no longer served from kit: kit-skill");
    const none = await cli(m, ["remove", "nothing/here"]);
    expect(none.code).toBe(1);
    expect(none.err).toBe(
      `skillhub remove: nothing/here is not a source in ${projectFile(m)}; \`skillhub sources\` lists them.\n`,
    );
  });
});

describe("command line", () => {
  test("a first add says it clones the repository, once; a later add of it says it fetches", async () => {
    const m = machine();
    const team = teamRepo();
    const first = await cli(m, ["add", team.url]);
    expect(first.code, first.err).toBe(0);
    const progress = (err: string) => err.split("\n").filter((line) => line.startsWith("add: "));
    expect(progress(first.err)).toEqual([
      `add: cloning ${team.url} (main) into ${join(m.home, ".skillhub", "repos", copies(m)[0] ?? "")}…`,
    ]);
    const again = await cli(m, ["add", team.url]);
    expect(again.code, again.err).toBe(0);
    expect(progress(again.err)).toEqual([`add: fetching ${team.url} (main)…`]);
  });

  test("add and remove take no --skills-dir: their help leaves it out, and given, it says to name the folder after them", async () => {
    const m = machine();
    for (const command of ["add", "remove"]) {
      const help = await cli(m, [command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.out).toContain("--project DIR");
      expect(help.out).not.toContain("--skills-dir DIR");
      const given = await cli(m, [command, "--skills-dir", "./vendor/skills"]);
      expect(given.code).toBe(2);
      expect(given.err).toBe(
        `skillhub: option --skills-dir does not apply to ${command}: name the folder after ${command} (skillhub ${command} DIR).\nRun 'skillhub ${command} --help' for usage.\n`,
      );
    }
    expect(existsSync(projectFile(m))).toBe(false);
  });

  test("--help lists add, remove and sources; a mistyped command suggests them", async () => {
    const m = machine();
    const help = await cli(m, ["--help"]);
    for (const line of ["skillhub add SOURCE...", "skillhub remove SOURCE...", "skillhub sources [--json]"])
      expect(help.out).toContain(line);
    expect((await cli(m, ["sourcs"])).err).toContain("Did you mean 'sources'?");
    expect((await cli(m, ["remov", "x"])).err).toContain("Did you mean 'remove'?");
  });

  test("serve DIR... serves those folders, after the --skills-dir ones", async () => {
    const m = machine();
    const a = tempDir("skillhub-serve-a-");
    const b = tempDir("skillhub-serve-b-");
    writeSkill(a, "from-a");
    writeSkill(b, "from-b");
    const { tools } = await initializeAndList([binary(), "serve", a, b, "--no-watch"], {
      cwd: m.home,
      env: { PATH: process.env.PATH ?? "", HOME: m.home },
    });
    const listing = tools.find((t) => t.name === "skill")?.description ?? "";
    expect(listing).toContain("from-a");
    expect(listing).toContain("from-b");
  });
});
