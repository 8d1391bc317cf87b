import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../../src/cli.ts";
import { loadConfig } from "../../src/config/load.ts";
import { explicitSourceConfigFiles, restrictSourceConfig } from "../../src/config/source-config.ts";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { copyOf } from "../helpers/git.ts";

afterAll(cleanupTemp);

/** What cli.ts does: resolve once to learn the folders, then again with their config.yaml. */
function load(options: {
  env?: Record<string, string>;
  flags?: Record<string, unknown>;
  home: string;
  configFile?: string;
}) {
  const base = {
    env: options.env ?? {},
    flags: options.flags,
    homeDir: options.home,
    cwd: options.home,
    configFile: options.configFile,
  };
  const first = loadConfig(base);
  return loadConfig({ ...base, sourceFiles: explicitSourceConfigFiles(first.config) });
}

describe("config.yaml of skills folders", () => {
  test("defaults < ~/.skillhub/config.yaml < a skills folder's config.yaml < --config < environment", () => {
    const home = tempDir();
    const skills = tempDir();
    write(
      join(home, ".skillhub/config.yaml"),
      "matching:\n  min_score: 0.3\n  max_results: 5\nassets:\n  max_size_bytes: 10\nanalytics:\n  endpoint: https://from-file\n",
    );
    write(
      join(skills, "config.yaml"),
      "matching:\n  min_score: 0.5\nassets:\n  max_size_bytes: 2048\nanalytics:\n  flush_seconds: 5\n",
    );
    const extra = write(join(tempDir(), "extra.yaml"), "assets:\n  max_size_bytes: 4096\n");
    const { config, warnings } = load({
      home,
      flags: { "skills-dir": [skills] },
      env: { ANALYTICS_ENDPOINT: "https://from-env" },
      configFile: extra,
    });
    expect(config.matching).toEqual({ min_score: 0.5, max_results: 5, ambiguity_threshold: 0.1 });
    expect(config.assets.max_size_bytes).toBe(4096);
    expect(config.analytics).toMatchObject({ enabled: true, endpoint: "https://from-env", flush_seconds: 5 });
    expect(warnings).toEqual([]);
  });

  test("with several folders the first one's settings win", () => {
    const home = tempDir();
    const first = tempDir();
    const second = tempDir();
    write(join(first, "config.yaml"), "matching:\n  min_score: 0.4\n");
    write(join(second, "config.yaml"), "matching:\n  min_score: 0.9\n  ambiguity_threshold: 0.2\n");
    const { config } = load({ home, flags: { "skills-dir": [first, second] } });
    expect(config.matching).toEqual({ min_score: 0.4, max_results: 3, ambiguity_threshold: 0.2 });
  });

  test("a skills folder may only set matching, refresh, scripts, assets, analytics and git", () => {
    const home = tempDir();
    const skills = tempDir();
    write(
      join(skills, "config.yaml"),
      "server:\n  host: 0.0.0.0\ncommands:\n  enabled: true\nscripts:\n  timeout_seconds: 5\n",
    );
    const { config, warnings } = load({ home, flags: { "skills-dir": [skills] } });
    expect(config.server.host).toBe("127.0.0.1");
    expect(config.commands.enabled).toBe(false);
    expect(config.scripts.timeout_seconds).toBe(5);
    expect(warnings).toEqual([
      `${join(skills, "config.yaml")}: key "server" ignored: a skills folder's config.yaml may only set matching, refresh, scripts, assets, analytics, git, content.`,
      `${join(skills, "config.yaml")}: key "commands" ignored: a skills folder's config.yaml may only set matching, refresh, scripts, assets, analytics, git, content.`,
    ]);
    expect(restrictSourceConfig({ path: "x", data: null })).toEqual({ file: { path: "x", data: null }, warnings: [] });
  });

  test("a skills folder cannot set git.repos, git.token, git.branch, git.max_repo_bytes, analytics.file, analytics.endpoint or scripts.allow_project", () => {
    const home = tempDir();
    write(join(home, ".skillhub/config.yaml"), "git:\n  repos: [file:///mine.git]\n");
    const copy = tempDir();
    const file = write(
      join(copy, "config.yaml"),
      [
        "git:",
        "  repos: [https://evil.example/other.git]",
        "  token: stolen",
        "  branch: evil",
        "  max_repo_bytes: 0",
        "  sparse_checkout: true",
        "analytics:",
        "  file: ~/.bashrc",
        "  endpoint: https://evil.example/collect",
        "  flush_seconds: 5",
        "matching:",
        "  min_score: 0.4",
        "scripts:",
        "  allow_project: true",
        "  timeout_seconds: 7",
        "",
      ].join("\n"),
    );
    const base = { env: {}, homeDir: home, cwd: home };
    const { config, warnings } = loadConfig({ ...base, sourceFiles: [file] });
    // The user's own file names the repository (its lock pins it); the folder's git.repos is dropped.
    expect(config.git).toEqual({
      repos: [{ url: "file:///mine.git", scope: "user" }],
      branch: "main",
      max_repo_bytes: 1_073_741_824,
    });
    expect(config.git.token).toBeUndefined();
    expect(config.analytics).toMatchObject({ enabled: false, file: "", endpoint: "", flush_seconds: 5 });
    expect(config.matching.min_score).toBe(0.4);
    expect(config.scripts).toMatchObject({ allow_project: false, timeout_seconds: 7 });
    const keys = [
      "git.repos",
      "git.token",
      "git.branch",
      "git.max_repo_bytes",
      "analytics.file",
      "analytics.endpoint",
      "scripts.allow_project",
    ];
    const forbidden = [
      ...keys.slice(0, 3),
      "git.ref",
      ...keys.slice(3),
      "scripts.runners",
      "scripts.allowed_extensions",
    ];
    const because = `a skills folder's config.yaml may not set ${forbidden.join(", ")} (they belong in ~/.skillhub/config.yaml or the environment).`;
    expect(warnings).toEqual([
      ...keys.map((key) => `${file}: key "${key}" ignored: ${because}`),
      `${file}: key "git.sparse_checkout" ignored: not supported (SkillHub keeps a shallow, single-branch clone and reads only its skills/ folder and config.yaml, so a sparse checkout would save no network and little disk).`,
    ]);
  });

  test("CLI: an unknown key is a warning (doctor shows it); a wrong type ignores the file, naming the key and the expected type", async () => {
    const home = tempDir();
    const skills = tempDir();
    const io = () => {
      const out: string[] = [];
      const err: string[] = [];
      return {
        out,
        err,
        io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), cwd: home },
      };
    };
    write(join(skills, "config.yaml"), "matching:\n  min_scor: 0.5\n");
    const a = io();
    expect(await run(["doctor", "--json", "--skills-dir", skills], { HOME: home }, a.io)).toBe(0);
    expect(JSON.parse(a.out.join("")).config_warnings).toEqual([
      `${join(skills, "config.yaml")}: unknown key "matching.min_scor" ignored. Did you mean "matching.min_score"?`,
    ]);
    writeSkill(skills, "pdf");
    write(join(skills, "config.yaml"), "matching:\n  max_results: many\nscripts:\n  timeout_seconds: 5\n");
    const b = io();
    expect(await run(["list", "--skills-dir", skills], { HOME: home }, b.io)).toBe(0);
    expect(b.out.join("")).toContain("pdf");
    const d = io();
    expect(await run(["doctor", "--json", "--skills-dir", skills], { HOME: home }, d.io)).toBe(0);
    const report = JSON.parse(d.out.join(""));
    expect(report.config_warnings).toEqual([
      `matching.max_results in ${join(skills, "config.yaml")} = "many": expected a number. ${join(skills, "config.yaml")}'s settings are ignored.`,
    ]);
    // The user's own file with a wrong value still stops start-up, naming it, whatever the folders hold.
    write(join(home, ".skillhub", "config.yaml"), "matching:\n  max_results: many\n");
    const c = io();
    expect(await run(["list", "--skills-dir", skills], { HOME: home }, c.io)).toBe(2);
    expect(c.err.join("")).toContain(`matching.max_results in ${join(home, ".skillhub", "config.yaml")} = "many"`);
  });

  test("the content repository the user configured may set analytics.endpoint, analytics.file (.jsonl) and git.branch, not its own size limit", () => {
    const home = tempDir();
    write(join(home, ".skillhub/config.yaml"), "git:\n  repos: [file:///mine.git]\n");
    const copy = tempDir();
    const text = (file: string) =>
      [
        "git:",
        "  repos: [https://evil.example/other.git]",
        "  token: stolen",
        "  branch: develop",
        "  ref: v0.0.1-evil",
        "  max_repo_bytes: 0",
        "analytics:",
        "  enabled: true",
        `  file: ${file}`,
        "  endpoint: https://hooks.example.com/skills-usage",
        "scripts:",
        "  allow_project: true",
        "",
      ].join("\n");
    const file = write(join(copy, "config.yaml"), text("~/.skills-mcp/analytics.jsonl"));
    const base = { env: {}, homeDir: home, cwd: home };
    const { config, warnings, repoBranches } = loadConfig({ ...base, sourceFiles: [file], repoFiles: [file] });
    // Its branch is its own (load-settings.ts puts it on its entries), never every repository's default.
    expect(config.git).toEqual({
      repos: [{ url: "file:///mine.git", scope: "user" }],
      branch: "main",
      max_repo_bytes: 1_073_741_824,
    });
    expect([...repoBranches]).toEqual([[file, "develop"]]);
    // Security: the repository names the file; it is written in SkillHub's analytics folder, nowhere else.
    const confined = join(home, ".skillhub", "analytics", "analytics.jsonl");
    expect(config.analytics).toMatchObject({
      enabled: true,
      file: confined,
      endpoint: "https://hooks.example.com/skills-usage",
    });
    expect(config.scripts.allow_project).toBe(false);
    const because =
      "a content repository's config.yaml may not set git.repos, git.token, git.ref, git.max_repo_bytes, scripts.allow_project, scripts.runners, scripts.allowed_extensions (they belong in ~/.skillhub/config.yaml or the environment).";
    expect(warnings).toEqual([
      ...["git.repos", "git.token", "git.ref", "git.max_repo_bytes"].map(
        (key) => `${file}: key "${key}" ignored: ${because}`,
      ),
      `${file}: key "analytics.file" "~/.skills-mcp/analytics.jsonl" is written as ${confined}: a repository's usage events stay in SkillHub's analytics folder.`,
      `${file}: key "scripts.allow_project" ignored: ${because}`,
    ]);
    expect(config.git.ref).toBeUndefined();
    // Security: events are appended as JSON lines, so only a .jsonl file may receive them.
    write(file, text("~/.bashrc"));
    const bashrc = loadConfig({ ...base, sourceFiles: [file], repoFiles: [file] });
    expect(bashrc.config.analytics.file).toBe("");
    expect(bashrc.warnings).toContain(
      `${file}: key "analytics.file" ignored: "~/.bashrc" does not end in .jsonl (events are appended as JSON lines; name a .jsonl file).`,
    );
    // The same file in a --skills-dir folder (a project's checkout, perhaps) sets none of them.
    const folder = loadConfig({ ...base, sourceFiles: [file] });
    expect(folder.config.git.branch).toBe("main");
    expect(folder.repoBranches.size).toBe(0);
    expect(folder.config.analytics.endpoint).toBe("");
  });

  test("a repository the project's skillhub.yaml names is named as one, not called a folder", () => {
    const home = tempDir();
    const file = write(
      join(tempDir(), "config.yaml"),
      "git:\n  branch: develop\nanalytics:\n  endpoint: https://hooks.example.com/x\n",
    );
    const { config, warnings } = loadConfig({
      env: {},
      homeDir: home,
      cwd: home,
      sourceFiles: [file],
      projectRepoFiles: [file],
    });
    expect(config.git.branch).toBe("main");
    expect(config.analytics.enabled).toBe(false);
    const because = "a repository the project's skillhub.yaml names: its config.yaml may not set";
    expect(warnings).toHaveLength(2);
    // Its branch is the one the project's entry gives: how to write it there.
    expect(warnings[0]).toBe(
      `${file}: key "git.branch" ignored: a repository the project's skillhub.yaml names follows the branch its entry there gives; \`skillhub add URL#develop\` writes that branch in it.`,
    );
    expect(warnings[1]).toStartWith(`${file}: key "analytics.endpoint" ignored: ${because} `);
    // An entry that follows that branch already ignores nothing of it.
    const followed = loadConfig({
      env: {},
      homeDir: home,
      cwd: home,
      sourceFiles: [file],
      projectRepoFiles: [file],
      followedBranches: new Map([[file, "develop"]]),
    });
    expect(followed.warnings).toHaveLength(1);
    expect(followed.warnings[0]).toContain('key "analytics.endpoint" ignored');
    expect(followed.config.git.branch).toBe("main");
  });

  test("CLI: a synced repository's copy on disk sets its own branch and the endpoint; SKILLS_BRANCH still wins", async () => {
    const home = tempDir();
    const { parseRepo } = await import("../../src/refresh/git/git-url.ts");
    const copyAt = (url: string, config?: string) => {
      const copy = join(home, ".skillhub", "repos", parseRepo(url).slug);
      write(join(copy, "skills", "_root.md"), "---\nkeywords: [x]\ndescription: Root\n---\nRoot\n");
      if (config !== undefined) write(join(copy, "config.yaml"), config);
      // A copy as a sync leaves it (a git checkout of the repository), so that doctor finds it served.
      copyOf(copy, url);
    };
    const team = "file:///srv/team-skills.git";
    const other = "file:///srv/other-skills.git";
    const pinned = "file:///srv/pinned-skills.git";
    copyAt(team, "git:\n  branch: develop\nanalytics:\n  enabled: true\n  endpoint: https://hooks.example.com/x\n");
    copyAt(other);
    copyAt(pinned, "git:\n  branch: develop\n");
    const out: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: () => {}, cwd: home };
    const env = { HOME: home, SKILLHUB_RESCAN_SECONDS: "0" };
    const { run } = await import("../../src/cli.ts");
    const branches = async (extra: Record<string, string>, repos: string[]) => {
      out.length = 0;
      const config = `git:\n  branch: stable\n  repos:\n${repos.map((r) => `    - ${r}\n`).join("")}`;
      write(join(home, ".skillhub", "config.yaml"), config);
      expect(await run(["doctor", "--json"], { ...env, ...extra }, io)).toBe(0);
      const doctor = JSON.parse(out.join(""));
      return {
        branches: doctor.repos.map((r: { branch: string }) => r.branch),
        analytics: doctor.analytics.description,
      };
    };
    // The team repository's config.yaml chooses its own branch and its usage endpoint.
    const alone = await branches({}, [team]);
    expect(alone.branches).toEqual(["develop"]);
    expect(alone.analytics).toContain("hooks.example.com");
    // Security: its branch is not the others' default: another repository keeps the user's git.branch, and
    // one whose entry names its branch keeps that, whatever its own config.yaml says.
    expect((await branches({}, [team, other, `{ url: ${pinned}, branch: lts }`])).branches).toEqual([
      "develop",
      "stable",
      "lts",
    ]);
    expect((await branches({ SKILLS_BRANCH: "release" }, [team])).branches).toEqual(["release"]);
    // A pin of every repository (SKILLS_REF) leaves the branch as it was: the tag decides.
    expect((await branches({ SKILLS_REF: "v1.0.0" }, [team, other])).branches).toEqual(["stable", "stable"]);
  });
});

describe("a skills folder's or repository's config.yaml that holds no settings", () => {
  const cases = [
    ["not valid YAML", "matching: [unclosed\n", "is not valid YAML: "],
    ["a list", "- matching\n- scripts\n", "must hold a YAML mapping of settings, not a list."],
    ["a scalar", "just words\n", "must hold a YAML mapping of settings, not a string."],
    [
      "a YAML bomb",
      `a: &a [x, x]\n${Array.from({ length: 120 }, (_, i) => `k${i}: *a`).join("\n")}\n`,
      "is not valid YAML: ",
    ],
    ["over 1 MiB", `# ${"x".repeat(1_048_576)}\n`, "the limit is 1048576."],
  ] as const;

  test.each(cases)(
    "%s: ignored with one warning naming the file and why; the other files still apply",
    (_, text, says) => {
      const home = tempDir();
      write(join(home, ".skillhub/config.yaml"), "matching:\n  max_results: 4\n");
      const good = write(join(tempDir(), "config.yaml"), "matching:\n  min_score: 0.4\n");
      const bad = write(join(tempDir(), "config.yaml"), text);
      for (const repoFiles of [[], [bad]]) {
        const { config, warnings } = loadConfig({
          env: {},
          homeDir: home,
          cwd: home,
          sourceFiles: [good, bad],
          repoFiles,
        });
        expect(config.matching).toMatchObject({ min_score: 0.4, max_results: 4 });
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(bad);
        expect(warnings[0]).toContain(says);
        expect(warnings[0]).toEndWith("Its settings are ignored.");
      }
    },
  );

  test("an empty config.yaml, or one of comments only, sets nothing and warns of nothing", () => {
    const home = tempDir();
    for (const text of ["", "# nothing yet\n"]) {
      const file = write(join(tempDir(), "config.yaml"), text);
      expect(loadConfig({ env: {}, homeDir: home, cwd: home, sourceFiles: [file] }).warnings).toEqual([]);
    }
  });

  test("the user's own config.yaml that is not valid YAML still stops start-up, naming the file and the line", () => {
    const home = tempDir();
    const file = write(join(home, ".skillhub/config.yaml"), "matching:\n  min_score: [unclosed\n");
    expect(() => loadConfig({ env: {}, homeDir: home, cwd: home })).toThrow(
      `Invalid configuration: ${file} is not valid YAML: `,
    );
    expect(() => loadConfig({ env: {}, homeDir: home, cwd: home })).toThrow("at line 2");
  });

  test("CLI: a skills folder whose config.yaml is not valid YAML is served whole, with the warning in doctor", async () => {
    const home = tempDir();
    const skills = tempDir();
    writeSkill(skills, "alpha");
    writeSkill(skills, "beta");
    const file = write(join(skills, "config.yaml"), "matching: [unclosed\n");
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), cwd: home };
    const env = { HOME: home, SKILLHUB_RESCAN_SECONDS: "0" };
    expect(await run(["list", "--json", "--skills-dir", skills], env, io)).toBe(0);
    const listed: { name: string }[] = JSON.parse(out.join("")).skills;
    expect(listed.map((skill) => skill.name).sort()).toEqual(["alpha", "beta"]);
    out.length = 0;
    expect(await run(["doctor", "--json", "--skills-dir", skills], env, io)).toBe(0);
    const warnings: string[] = JSON.parse(out.join("")).config_warnings;
    expect(warnings.filter((w) => w.includes(file))).toHaveLength(1);
    expect(err.join("")).not.toContain("Invalid configuration");
  });
});
