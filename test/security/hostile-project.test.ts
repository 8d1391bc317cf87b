import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { run } from "../../src/cli.ts";
import { loadSettings } from "../../src/commands/load-settings.ts";
import { parseCommandLine } from "../../src/config/args.ts";
import { MAX_PROJECT_DIRS, MAX_PROJECT_REPOS, readProjectFile } from "../../src/config/project-file.ts";
import { Hub } from "../../src/server/hub.ts";
import { createMemoryLogger } from "../../src/util/logger.ts";
import { binaryClientWith, runBinary } from "../helpers/binary.ts";
import { closeAfterEach } from "../helpers/closers.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { eventually } from "../helpers/wait.ts";

afterAll(cleanupTemp);
const closers = closeAfterEach();

/**
 * The threat: the user opens a project they did not write (a repository they cloned), and their MCP client
 * starts skillhub in it. Nothing in the project may turn the server loose on the machine, fill the disk, or
 * take the user's own skills away.
 */

/** A decoy of the rest of the machine: folders outside the project, each with a SKILL.md. */
function decoy(prefix: string, count: number): string {
  const dir = tempDir(`skillhub-decoy-${prefix}-`);
  for (let i = 0; i < count; i++) writeSkill(dir, `${prefix}-${i}`);
  return dir;
}

/** The user's own skills folder (--skills-dir), with one skill and a collection linked in from elsewhere. */
function usersFolder(): string {
  const mine = tempDir("skillhub-mine-");
  writeSkill(mine, "mine");
  symlinkSync(decoy("installed", 2), join(mine, "installed"));
  return mine;
}

/** A stdio server of the compiled binary in `project`, serving the user's folder too; its served skills' names. */
async function served(project: string, mine: string, home = tempDir("skillhub-home-")) {
  const { client, log } = await binaryClientWith(["--project", project, "--skills-dir", mine], home, {
    SKILLHUB_WATCH: "0",
    SKILLHUB_RESCAN_SECONDS: "0",
  });
  closers.push(() => client.close());
  const result = (await client.callTool({ name: "list_skills", arguments: { flat: true, limit: 200 } })) as {
    structuredContent: { skills: { name: string }[]; diagnostics: { errors: number; warnings: number } };
  };
  const { skills, diagnostics } = result.structuredContent;
  return { names: skills.map((s) => s.name).sort(), diagnostics, log, home };
}

describe("links in a project's folders do not leave the project", () => {
  test("`.agents/skills -> elsewhere` and ten skillhub.yaml folders linking out serve nothing from there, each named", async () => {
    const machine = decoy("machine", 30);
    const project = tempDir("skillhub-cloned-");
    writeSkill(project, ".claude/skills/own");
    mkdirSync(join(project, ".agents"));
    symlinkSync(machine, join(project, ".agents", "skills"));
    const dirs = Array.from({ length: 10 }, (_, i) => `d${i + 1}`);
    for (const dir of dirs) {
      mkdirSync(join(project, dir));
      symlinkSync(machine, join(project, dir, "root"));
    }
    write(join(project, "skillhub.yaml"), `sources:\n  dirs: [${dirs.join(", ")}]\n`);
    const mine = usersFolder();
    const { names, diagnostics } = await served(project, mine);
    // The project's own skill and the user's (a link of the user's own folder is followed): none of the decoy's.
    expect(names).toEqual(["installed-0", "installed-1", "mine", "own"]);
    expect(diagnostics.warnings).toBeGreaterThanOrEqual(11);
    const doctor = runBinary(["doctor", "--json", "--project", project, "--skills-dir", mine], project, tempDir());
    const refused = (JSON.parse(doctor.out).diagnostics as { code: string; file: string; message: string }[]).filter(
      (d) => d.code === "symlink-outside",
    );
    expect(refused.map((d) => d.file).sort()).toEqual(
      [join(project, ".agents", "skills"), ...dirs.map((dir) => join(project, dir, "root"))].sort(),
    );
    expect(refused.every((d) => d.message.includes("outside the project"))).toBe(true);
  });
});

describe("a project's skillhub.yaml names a bounded number of sources", () => {
  test(`at most ${MAX_PROJECT_DIRS} folders and ${MAX_PROJECT_REPOS} repositories: the rest ignored, with a warning each`, () => {
    const project = tempDir("skillhub-cloned-");
    const dirs = Array.from({ length: 40 }, (_, i) => `d${i}`);
    const repos = Array.from({ length: 60 }, (_, i) => `    - {url: ./big, path: d${i}}`);
    const file = write(
      join(project, "skillhub.yaml"),
      `sources:\n  dirs: [${dirs.join(", ")}]\ngit:\n  repos:\n${repos.join("\n")}\n`,
    );
    const sources = readProjectFile(file, project);
    expect(sources.dirs).toEqual(dirs.slice(0, MAX_PROJECT_DIRS).map((dir) => join(project, dir)));
    expect(sources.repos.map((r) => r.path)).toEqual(repos.slice(0, MAX_PROJECT_REPOS).map((_, i) => `d${i}`));
    expect(sources.warnings).toEqual([
      `${file}: sources.dirs names 40 folders; only the first ${MAX_PROJECT_DIRS} are used, the other 8 ignored (a project's skillhub.yaml may name at most ${MAX_PROJECT_DIRS}).`,
      `${file}: git.repos names 60 repositories; only the first ${MAX_PROJECT_REPOS} are used, the other 44 ignored (a project's skillhub.yaml may name at most ${MAX_PROJECT_REPOS}).`,
    ]);
  });

  test("a server started in such a project syncs no more than the cap, and logs why", async () => {
    const project = tempDir("skillhub-cloned-");
    const big = pathToFileURL(join(project, "big")).href;
    const repos = Array.from({ length: 60 }, (_, i) => `    - {url: "${big}", path: d${i}}`);
    write(join(project, "skillhub.yaml"), `git:\n  repos:\n${repos.join("\n")}\n`);
    const home = tempDir("skillhub-home-");
    const args = parseCommandLine(["serve", "--project", project]);
    const env = { SKILLHUB_WATCH: "0", SKILLHUB_RESCAN_SECONDS: "0" };
    const { config, warnings } = await loadSettings({ args, env, homeDir: home, cwd: project, projectFile: "skip" });
    const hub = new Hub({ config, logger: createMemoryLogger(), env, homeDir: home, cwd: project });
    closers.push(() => hub.close());
    expect(hub.git?.targets).toHaveLength(MAX_PROJECT_REPOS);
    expect(warnings.some((w) => w.includes("git.repos names 60 repositories"))).toBe(true);
  });

  test("`skillhub add` refuses a source past the cap, before fetching anything", async () => {
    const project = tempDir("skillhub-cloned-");
    const url = (i: number) => pathToFileURL(join(project, `missing-${i}.git`)).href;
    const repos = Array.from({ length: MAX_PROJECT_REPOS }, (_, i) => `    - ${url(i)}`);
    const file = write(join(project, "skillhub.yaml"), `git:\n  repos:\n${repos.join("\n")}\n`);
    const before = readFileSync(file, "utf8");
    let err = "";
    const code = await run(
      ["add", url(99)],
      { HOME: tempDir("skillhub-home-") },
      { out: () => undefined, err: (t) => void (err += t), cwd: project },
    );
    expect(code).toBe(2);
    expect(err).toContain(`names at most ${MAX_PROJECT_REPOS} repositories`);
    expect(readFileSync(file, "utf8")).toBe(before);
  });
});

describe("a project's skillhub.yaml that cannot be used does not stop the server", () => {
  const cases: [string, (file: string) => void, string][] = [
    ["a wrong value", (file) => write(file, "git:\n  repos: 5\n"), "git.repos: expected a list of git URLs"],
    ["invalid YAML", (file) => write(file, "git: [unclosed\n  repos:\n"), "Invalid configuration"],
    [
      "a link to a file that is not YAML",
      (file) => {
        const bytes = write(
          join(dirname(file), "docs", "image.png"),
          new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
        );
        symlinkSync(bytes, file);
      },
      "Invalid configuration",
    ],
    [
      "a link out of the project, to a file of credentials",
      (file) => {
        const secrets = write(
          join(tempDir("skillhub-secrets-"), "creds.yml"),
          "prod:\n  SECRETKEY_decoy_abc123: hunter2\n",
        );
        symlinkSync(secrets, file);
      },
      "skillhub.yaml' links outside",
    ],
    [
      "a repository folder that leaves the repository",
      (file) => write(file, "git:\n  repos:\n    - {url: https://example.com/a.git, path: ../out}\n"),
      "expected a folder inside the repository",
    ],
  ];
  for (const [what, make, sentence] of cases)
    test(`${what}: the server serves the user's skills and the project's folders, and says why the file is ignored`, async () => {
      const project = tempDir("skillhub-cloned-");
      writeSkill(project, ".claude/skills/own");
      const file = join(project, "skillhub.yaml");
      make(file);
      const mine = usersFolder();
      const { names, diagnostics, log } = await served(project, mine);
      expect(names).toEqual(["installed-0", "installed-1", "mine", "own"]);
      expect(diagnostics.errors).toBe(1);
      // Said in the log (stderr, read as it comes: awaited, not assumed there when the call returns).
      const logged = await eventually(() =>
        log()
          .split("\n")
          .find((line) => line.includes("ERROR error project-file")),
      );
      expect(logged).toContain(`${file}`);
      expect(logged).toContain(sentence);
      const home = tempDir("skillhub-home-");
      const doctor = runBinary(["doctor", "--project", project], project, home);
      expect(doctor.code).toBe(1);
      expect(doctor.out).toContain(`error project-file ${file}`);
      expect(doctor.out).toContain(sentence);
      // Nothing of a file outside the project is read: no key of it is quoted.
      expect(log() + doctor.out + doctor.err).not.toContain("SECRETKEY");
      // The commands that act on the file stop on it, as before.
      for (const command of [["sync"], ["lock"], ["verify"], ["sources"], ["remove", "x"], ["add", "./kit"]]) {
        const ran = runBinary([...command, "--project", project], project, home);
        expect([command[0], ran.code]).toEqual([command[0], 2]);
        expect(ran.err).toContain(sentence);
        expect(ran.out + ran.err).not.toContain("SECRETKEY");
      }
    });
});

describe("temporary files a stopped write left behind", () => {
  test("are removed when a server starts, once old; a fresh one (a write under way) and other files stay", async () => {
    const home = tempDir("skillhub-home-");
    const index = join(home, ".skillhub", "index");
    const old = write(join(index, "catalog-5f3a.json.4242-k3j2h1-1.tmp"), "x".repeat(4096));
    const oldIndex = write(join(index, "search-index-9c1.bin.4243-a1b2c3-7.tmp"), "x");
    const fresh = write(join(index, "catalog-5f3a.json.4244-zz9y8x-2.tmp"), "x");
    const other = write(join(index, "notes.tmp"), "x");
    const hourAgo = Date.now() / 1000 - 3600;
    for (const file of [old, oldIndex, other]) utimesSync(file, hourAgo, hourAgo);
    const project = tempDir("skillhub-cloned-");
    await served(project, usersFolder(), home);
    expect([old, oldIndex, fresh, other].map(existsSync)).toEqual([false, false, true, true]);
  });
});
