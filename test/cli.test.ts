import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { isCheckoutBuild } from "../src/commands/print-config.ts";
import { COMMANDS, commandOptionNames } from "../src/config/args.ts";
import { FLAG_SETTINGS } from "../src/config/flag-settings.ts";
import { binary, runBinary } from "./helpers/binary.ts";
import { runCli } from "./helpers/cli.ts";
import { cleanupTemp, labelOfDir, tempDir, write, writeSkill } from "./helpers/fs.ts";

afterAll(cleanupTemp);

const cli = runCli;

function skills() {
  const dir = tempDir();
  writeSkill(dir, "git", { description: "Git workflow" });
  writeSkill(dir, "pdf", { description: "PDF tools" });
  write(join(dir, "broken", "SKILL.md"), "---\nname: broken\n---\n");
  return dir;
}

describe("skillhub CLI", () => {
  test("--help and --version print to stdout and exit 0", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("skillhub doctor");
    expect(help.err).toBe("");
    const version = await cli(["--version"]);
    expect(version.out).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("COMMAND --help shows that command's usage and exactly the options it takes", async () => {
    const settings = new Set([...Object.keys(FLAG_SETTINGS), "config"]);
    for (const command of COMMANDS) {
      const help = await cli([command, "--help"]);
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      const usage = help.out.slice(help.out.indexOf("Usage:"), help.out.indexOf("\nOptions:\n"));
      expect({ command, named: usage.includes(`skillhub ${command}`) || usage.includes(`[${command}`) }).toEqual({
        command,
        named: true,
      });
      // Another command's entry is not there.
      expect(usage.match(/^ {2}skillhub \[?([a-z-]+)/gm)?.every((line) => line.includes(command))).toBe(true);
      // The Options block lists every option the command takes, no other (one table says which: args.ts),
      // its own ones (--global, --http, …) first, then the settings.
      const block = help.out.slice(help.out.indexOf("\nOptions:\n"), help.out.indexOf("\nskillhub --help"));
      const listed = [...block.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1] as string);
      const takes = commandOptionNames(command);
      expect({ command, listed: [...listed].sort() }).toEqual({ command, listed: [...takes].sort() });
      const own = listed.filter((name) => !settings.has(name));
      expect({ command, first: listed.slice(0, own.length) }).toEqual({ command, first: own });
    }
    const options = async (command: string) => {
      const out = (await cli([command, "--help"])).out;
      return out.slice(out.indexOf("\nOptions:\n"));
    };
    expect(await options("add")).toContain(
      "  --global               your own ~/.skillhub/config.yaml instead of the project's skillhub.yaml\n  --ref REF ",
    );
    expect(await options("add")).toContain("  --path SUBDIR          the skills folder inside the repository");
    expect(await options("print-config")).toContain("  --http URL             a shared server's form");
    expect((await cli(["add", "--help"])).out).toContain("skillhub add SOURCE... [--global]");
    expect((await cli(["help"])).out).toContain("skillhub doctor [--all] [--json]");
    // `help COMMAND` is that command's help, as `COMMAND --help`; a mistyped one is suggested.
    expect((await cli(["help", "sync"])).out).toBe((await cli(["sync", "--help"])).out);
    const typo = await cli(["help", "doctr"]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain(`unknown command "doctr". Did you mean 'doctor'?`);
  });

  test("a command's help gives its defaults, formats and exit codes, and no option it ignores", async () => {
    const help = async (command: string) => (await cli([command, "--help"])).out;
    expect(await help("search")).toContain("1 to 100 (default 10, or SEARCH_LIMIT)");
    expect(await help("ui")).toContain("on 127.0.0.1 and a free port");
    expect(await help("show")).toContain("exit 1 if no skill has that name");
    const stats = await help("stats");
    expect(stats).toContain("--since: a date (2026-02-01, 2026-02-01T09:00:00Z) or a time\n");
    expect(stats).toContain("ago (30m, 12h, 7d, 2w)");
    for (const command of ["stats", "validate"]) {
      const text = await help(command);
      expect({ command, tools: text.includes("--tools"), watch: text.includes("--no-watch") }).toEqual({
        command,
        tools: false,
        watch: false,
      });
    }
    // What mcp-server serves, and none of the options it would not honour.
    const sk = await help("mcp-server");
    expect(sk).toContain("skills.list and skills.search only");
    for (const name of ["--tools", "--enable-commands", "--reindex", "--transport", "--port"])
      expect({ name, listed: sk.includes(name) }).toEqual({ name, listed: false });
    // The stats error and its help give the same formats.
    const wrong = await cli(["stats", "--since", "last week"]);
    expect(wrong.code).toBe(2);
    for (const format of ["2026-02-01", "2026-02-01T09:00:00Z", "7d", "12h", "2w"]) expect(wrong.err).toContain(format);
  });

  test("skillhub version suggests --version; serve --port without --transport http serves stdio, saying what to type", async () => {
    const version = await cli(["version"]);
    expect(version.code).toBe(2);
    expect(version.err).toContain(`unknown command "version". Did you mean '--version'?`);
    // Through the binary: the stdio server still starts (an MCP client's configuration may pass such a flag),
    // and its first line says how to serve over HTTP.
    const home = tempDir();
    const stdio = runBinary(["serve", "--port", "8000"], home, home);
    expect(stdio.code).toBe(0);
    expect(stdio.out).toBe("");
    expect(stdio.err).toStartWith(
      "skillhub: warning: option --port is for a server over HTTP, and this one runs on stdio (the default) without it; to serve over HTTP: skillhub serve --transport http --port 8000.\n",
    );
    // --host and --stateless too, with the transport set to stdio in the environment as well.
    const warned = runBinary(["--stateless", "--host", "127.0.0.1"], home, home, { SKILLHUB_TRANSPORT: "stdio" });
    expect(warned.code).toBe(0);
    expect(warned.err).toContain("skillhub serve --transport http --host 127.0.0.1 --stateless.");
  });

  test("usage errors go to stderr with exit 2", async () => {
    const flag = await cli(["--frobnicate"]);
    expect(flag).toMatchObject({ code: 2, out: "" });
    expect(flag.err).toContain("unknown option --frobnicate");
    expect(flag.err).toEndWith("\nRun 'skillhub --help' for usage.\n");
    // A command's wrong option, missing value or stray word points to that command's help, which lists its options.
    for (const command of COMMANDS) {
      const wrong = await cli(["--project", "list", command, "--bogus"]);
      expect({ command, code: wrong.code, tail: wrong.err.split("\n").at(-2) }).toEqual({
        command,
        code: 2,
        tail: `Run 'skillhub ${command} --help' for usage.`,
      });
    }
    expect((await cli(["search", "--limit"])).err).toEndWith("\nRun 'skillhub search --help' for usage.\n");
    expect((await cli(["list", "--limit", "3"])).err).toEndWith("\nRun 'skillhub list --help' for usage.\n");
    expect((await cli(["list", "stray"])).err).toEndWith("\nRun 'skillhub list --help' for usage.\n");
    expect((await cli(["lsit", "--json"])).err).toEndWith("\nRun 'skillhub --help' for usage.\n");
    expect((await cli(["frobnicate"])).code).toBe(2);
    const config = await cli(["list"], { SEARCH_THRESHOLD: "lots" });
    expect(config.code).toBe(2);
    expect(config.err).toContain("SEARCH_THRESHOLD");
    expect((await cli(["doctor", "--tools", "skill,bogus"])).err).toContain("unknown tool 'bogus';");
    const listed = await cli(["list"], { SKILLHUB_TOOLS: "sk,serch_skills" });
    expect(listed.code).toBe(2);
    expect(listed.err).toContain(
      `"sk,serch_skills": 'sk' is a profile, which is given alone, not in a list; unknown tool 'serch_skills' (did you mean 'search_skills'?); expected a profile`,
    );
  });

  test("doctor shows the tools a profile offers; a list naming them is shown as written", async () => {
    const shown = async (tools: string) =>
      (await cli(["doctor", "--tools", tools])).out.match(/\n {2}tools: .*\n/)?.[0];
    expect(await shown("hub")).toBe("\n  tools: hub → search_skills, load_skill, read_skill_file\n");
    expect(await shown("auto")).toStartWith("\n  tools: auto → skill, search_skills, load_skill,");
    expect(await shown("skill, load_skill")).toBe("\n  tools: skill, load_skill\n");
  });

  test("doctor with --transport http says what serve would do, and fails where serve would not start", async () => {
    const open = await cli(["doctor", "--transport", "http", "--host", "0.0.0.0"]);
    expect(open.code).toBe(1);
    expect(open.out).toContain(
      "  http: 0.0.0.0:8000; would not start: refusing to serve HTTP on 0.0.0.0 without a token:",
    );
    const json = JSON.parse((await cli(["doctor", "--json", "--transport", "http", "--host", "0.0.0.0"])).out);
    expect(json.http).toMatchObject({ host: "0.0.0.0", token_required: false });
    expect(json.http.refused).toContain("without a token");
    const token = { SKILLHUB_HTTP_TOKEN: "0123456789abcdef" };
    const guarded = await cli(["doctor", "--transport", "http", "--host", "0.0.0.0"], token);
    expect(guarded.out).toContain("  http: 0.0.0.0:8000; clients send the token (SKILLHUB_HTTP_TOKEN)\n");
    const weak = await cli(["doctor", "--transport", "http", "--host", "0.0.0.0"], { SKILLHUB_HTTP_TOKEN: "abc" });
    expect(weak.out).toContain("clients send the token (SKILLHUB_HTTP_TOKEN) (see Diagnostics)\n");
    expect(weak.out).toMatch(/Diagnostics: 0 errors \(what they name is not served\), 1 warning\n/);
    expect(weak.out).toContain("  warning config SKILLHUB_HTTP_TOKEN is shorter than 16 characters;");
    const weakJson = JSON.parse(
      (await cli(["doctor", "--json", "--transport", "http"], { SKILLHUB_HTTP_TOKEN: "abc" })).out,
    );
    expect(weakJson.config_warnings).toContainEqual(expect.stringContaining("shorter than 16 characters"));
    expect(weakJson.http.warning).toContain("shorter than 16 characters");
    expect((await cli(["doctor", "--transport", "http"])).out).toContain(
      "  http: 127.0.0.1:8000; no token asked (this machine only)\n",
    );
    expect((await cli(["doctor"])).out).not.toContain("  http: ");
  });

  test("list shows skills, sources and problems; --json is machine-readable", async () => {
    const dir = skills();
    const text = await cli(["list", "--skills-dir", dir]);
    expect(text.code).toBe(0);
    expect(text.out).toContain("git");
    expect(text.out).toContain(
      "1 skipped with errors, 0 warnings (`skillhub doctor` with the same options names them)",
    );
    const json = JSON.parse((await cli(["list", "--json", "--skills-dir", dir])).out);
    expect(json.skills.map((s: { name: string }) => s.name)).toEqual(["git", "pdf"]);
    expect(json.diagnostics).toEqual({ errors: 1, warnings: 0 });
  });

  test("a folder limit that stops the scan is a line in list, list --json and doctor (never silent)", async () => {
    const dir = tempDir();
    for (const name of ["alpha", "beta", "gamma", "delta"]) writeSkill(dir, name);
    const config = join(tempDir(), "config.yaml");
    write(config, "sources:\n  max_dirs: 3\n");
    const text = await cli(["list", "--skills-dir", dir, "--config", config]);
    expect(text.out).toContain("dir-limit");
    expect(text.out).toContain("stopped after 3 folders");
    const json = JSON.parse((await cli(["list", "--json", "--skills-dir", dir, "--config", config])).out);
    expect(json.diagnostics.limits.map((d: { code: string }) => d.code)).toEqual(["dir-limit"]);
    const doctor = await cli(["doctor", "--skills-dir", dir, "--config", config]);
    expect(doctor.out + doctor.err).toContain("stopped after 3 folders");
  });

  test("an empty skills folder says what to do", async () => {
    const empty = await cli(["list", "--skills-dir", tempDir()]);
    expect(empty.out).toContain("No skills found");
    expect(empty.out).toContain("skillhub doctor");
  });

  test("a folder whose only SKILL.md is broken names the problem instead of saying it is empty", async () => {
    const dir = tempDir();
    write(join(dir, "bad", "SKILL.md"), "---\nname: bad\ndescription: [unclosed\n---\nx\n");
    const broken = await cli(["list", "--skills-dir", dir]);
    expect(broken.code).toBe(1);
    expect(broken.err).toStartWith("No skills served: 1 SKILL.md file could not be read as a skill:\n");
    expect(broken.err).toContain(`error yaml-error ${join(dir, "bad", "SKILL.md")}: frontmatter is not valid YAML`);
    expect(broken.err).toContain("skillhub validate DIR");
  });

  test("every --json output uses snake_case keys, a shadowed skill's too", async () => {
    const first = skills();
    const second = skills();
    const keys = (value: unknown): string[] =>
      Array.isArray(value)
        ? value.flatMap(keys)
        : value && typeof value === "object"
          ? Object.entries(value).flatMap(([k, v]) => [k, ...keys(v)])
          : [];
    const dirs = ["--skills-dir", first, "--skills-dir", second];
    const home = tempDir();
    for (const argv of [
      ["list", "--all"],
      ["doctor"],
      ["sources"],
      ["search", "git"],
      ["lock"],
      ["verify"],
      ["sync"],
      ["stats"],
    ]) {
      const ran = await cli([...argv, "--json", ...dirs], { HOME: home });
      const camel = keys(JSON.parse(ran.out)).filter((k) => /[a-z][A-Z]/.test(k));
      expect({ argv, camel }).toEqual({ argv, camel: [] });
    }
    const listed = JSON.parse((await cli(["list", "--all", "--json", ...dirs], { HOME: home })).out);
    expect(listed.shadowed.map((s: { shadowed_by: string }) => s.shadowed_by)).toEqual([
      join(first, "git"),
      join(first, "pdf"),
    ]);
    const validated = JSON.parse((await cli(["validate", first, "--json"])).out);
    expect(keys(validated).filter((k) => /[a-z][A-Z]/.test(k))).toEqual([]);
  });

  test("a mistyped config key is said on stderr by every command, once by doctor", async () => {
    const config = join(tempDir(), "config.yaml");
    write(config, "sources:\n  dirz: [./skills]\n");
    const said = `config ${config}: unknown key "sources.dirz" ignored. Did you mean "sources.dirs"?`;
    for (const argv of [["list"], ["search", "pdf"], ["sources"], ["list", "--json"]]) {
      const ran = await cli([...argv, "--config", config]);
      expect({ argv, err: ran.err }).toEqual({ argv, err: `skillhub: warning: ${said}\n` });
    }
    const doctor = await cli(["doctor", "--config", config]);
    expect(doctor.err).toBe("");
    expect(doctor.out).toContain(`warning ${said}`);
  });

  test("list --frozen tells a skill the lock does not vouch for from one a filter disables; search --frozen counts them", async () => {
    const dir = skills();
    const home = tempDir();
    const unlocked = await cli(["list", "--frozen", "--skills-dir", dir], { HOME: home });
    expect(unlocked.out).toMatch(/^git .* \[frozen: the lock does not vouch for it\]$/m);
    expect(unlocked.out).toContain("2 not served in frozen mode, as skillhub.lock does not vouch for them");
    // A search finds none of them, which is no lack of a match.
    const searched = await cli(["search", "pdf", "--frozen", "--skills-dir", dir], { HOME: home });
    expect(searched.out).toContain(
      "2 skills are not served in frozen mode, as skillhub.lock does not vouch for them (`skillhub verify` says why).",
    );
    const json = JSON.parse((await cli(["list", "--json", "--frozen", "--skills-dir", dir], { HOME: home })).out);
    expect(json.skills.map((s: { not_locked?: boolean }) => s.not_locked)).toEqual([true, true]);
    expect((await cli(["lock", "--skills-dir", dir], { HOME: home })).code).toBe(0);
    write(join(dir, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: PDF tools, changed\n---\n");
    const changed = await cli(["list", "--frozen", "--skills-dir", dir], { HOME: home });
    expect(changed.out).toMatch(/^git .*Git workflow$/m);
    expect(changed.out).toMatch(/^pdf .* \[frozen: the lock does not vouch for it\]$/m);
    const filtered = await cli(["list", "--skills-dir", dir], { HOME: home, SKILLHUB_ENABLED_SKILLS: "git" });
    expect(filtered.out).toMatch(/^pdf .* \[disabled\]$/m);
    expect(filtered.out).not.toContain("frozen");
  });

  test("in a clone of a skills repository, list, search and doctor name its unread skills/ folder", () => {
    const project = tempDir();
    writeSkill(join(project, "skills"), "pdf", { description: "PDF tools" });
    const home = tempDir();
    const run = (args: string[], cwd = project) => {
      const proc = Bun.spawnSync([binary(), ...args], {
        argv0: "skillhub",
        cwd,
        env: { HOME: home, PATH: process.env.PATH ?? "" },
      });
      return proc.stdout.toString();
    };
    const hint = `${join(project, "skills")} holds skill folders, but no source reads it: pass --skills-dir ./skills, or run \`skillhub add ./skills\` to add it to this project's skillhub.yaml.`;
    expect(run(["list"])).toBe(`No skills found. ${hint}\n`);
    expect(run(["search", "pdf"])).toBe(`No skills found. ${hint}\n`);
    expect(run(["doctor"])).toContain(`Skills served: 0\n  ${hint}\n`);
    // In the skills folder itself, the folder is the working directory.
    expect(run(["list"], join(project, "skills"))).toContain(
      "holds skill folders, but no source reads it: pass --skills-dir .",
    );
    // Read, it is no hint any more.
    expect(run(["list", "--skills-dir", "./skills"])).toMatch(/^pdf /);
    const named = tempDir();
    expect(run(["list", "--skills-dir", named], tempDir())).toBe(
      `No skills found in ${named} (a skill is a folder holding a SKILL.md) nor in the usual folders. Run \`skillhub doctor\` with the same options to see every folder searched.\n`,
    );
    // An empty folder named where skills lie unread: the folder named first, then where they are.
    expect(run(["list", "--skills-dir", named])).toBe(
      `No skills found in ${named} (a skill is a folder holding a SKILL.md) nor in the usual folders. ${hint}\n`,
    );
    expect(run(["list"], tempDir())).toBe(
      "No skills found. Run `skillhub doctor` to see which folders were searched.\n",
    );
  });

  test("skills found elsewhere do not hide an unread skills/ folder: list, search, show and doctor name it", () => {
    const project = tempDir();
    writeSkill(join(project, "skills"), "hello-world", { description: "Say hello" });
    const home = tempDir();
    writeSkill(join(home, ".claude", "skills"), "csv-summary", { description: "Summarise CSV files" });
    const run = (args: string[]) => {
      const proc = Bun.spawnSync([binary(), ...args], {
        argv0: "skillhub",
        cwd: project,
        env: { HOME: home, PATH: process.env.PATH ?? "" },
      });
      return { out: proc.stdout.toString(), err: proc.stderr.toString() };
    };
    const hint = `${join(project, "skills")} holds skill folders, but no source reads it: pass --skills-dir ./skills, or run \`skillhub add ./skills\` to add it to this project's skillhub.yaml.`;
    const list = run(["list"]).out;
    expect(list).toMatch(/^csv-summary /m);
    expect(list).toEndWith(`note: ${hint}\n`);
    expect(run(["search", "say hello greeting"]).out).toContain(
      `\`skillhub list\` with the same options shows every skill. ${hint}\n`,
    );
    expect(run(["show", "hello-world"]).err).toEndWith(`${hint}\n`);
    expect(run(["doctor"]).out).toContain(`Skills served: 1\n  ${hint}\n`);
    // Once read, nothing is said.
    expect(run(["list", "--skills-dir", "./skills"]).out).not.toContain("no source reads it");
  });

  test("the sk tools' skills/ folder: read by list, show and doctor only as a server with the same tools setting reads it, and said", () => {
    const project = tempDir();
    writeSkill(join(project, "skills"), "pdf", { description: "PDF tools" });
    const home = tempDir();
    const folder = join(project, "skills");
    const because = (setting: string) =>
      `${folder} is read (source project-skills) because ${setting} offers skills.list and skills.search, which read the project's skills/ folder; a server started with that setting serves it too (--root DIR names another folder).`;
    // The default tools: not read (a hint names it).
    const plain = runBinary(["list"], project, home);
    expect(plain.out).toContain("no source reads it");
    expect(plain.err).toBe("");
    // SKILLHUB_TOOLS=sk: read, as `skillhub serve` with that variable serves it, and said on stderr.
    const env = { SKILLHUB_TOOLS: "sk" };
    const listed = runBinary(["list"], project, home, env);
    expect(listed.out).toMatch(/^pdf +project-skills/);
    expect(listed.err).toBe(`skillhub: ${because("SKILLHUB_TOOLS=sk")}\n`);
    expect(runBinary(["show", "pdf"], project, home, env).err).toBe(`skillhub: ${because("SKILLHUB_TOOLS=sk")}\n`);
    // doctor says it under its sources; a config file's setting is named as such.
    expect(runBinary(["doctor"], project, home, env).out).toContain(`\n  note: ${because("SKILLHUB_TOOLS=sk")}\n`);
    write(join(home, ".skillhub", "config.yaml"), "server:\n  tools: sk\n");
    expect(runBinary(["search", "pdf"], project, home).err).toBe(
      `skillhub: ${because("server.tools: sk (config file)")}\n`,
    );
    // --root names the folder: nothing to explain.
    const rooted = runBinary(["list", "--root", "skills"], project, home);
    expect(rooted.out).toMatch(/^pdf +project-skills/);
    expect(rooted.err).toBe("");
  });

  test("a bad config file or variable stops the command with one line naming the key, the value and what is allowed", () => {
    const project = tempDir();
    const home = tempDir();
    const file = join(home, ".skillhub", "config.yaml");
    // The billion laughs: nine levels of ten aliases each.
    const levels = [..."abcdefghi"];
    const bomb = levels.map(
      (l, i) =>
        `${l}: &${l} [${Array(10)
          .fill(i === 0 ? "x" : `*${levels[i - 1]}`)
          .join(", ")}]`,
    );
    const cases: [yaml: string, env: Record<string, string>, expected: string][] = [
      ["search:\n  limit: 0\n", {}, `search.limit in ${file} = 0: expected a number of at least 1.`],
      ["search:\n  limit: 2.5\n", {}, `search.limit in ${file} = 2.5: expected a whole number.`],
      ["search:\n  mode: fuzzy\n", {}, `search.mode in ${file} = "fuzzy": expected one of fts, vector, hybrid.`],
      ["sources:\n  watch: maybe\n", {}, `sources.watch in ${file} = "maybe": expected true or false.`],
      ["server: 5\n", {}, `server in ${file} = 5: expected a mapping of settings.`],
      ["server:\n  port: .nan\n", {}, `server.port in ${file} = NaN: expected a number.`],
      [
        "server:\n  allowed_origins: [https://ok.example.com, tools.example.com]\n",
        {},
        `server.allowed_origins in ${file}, entry 2 = "tools.example.com": expected an origin such as https://tools.example.com (scheme, host and port, no path).`,
      ],
      [
        "",
        { SKILLHUB_ALLOWED_HOSTS: "skills.example.com,https://skills.example.com" },
        'SKILLHUB_ALLOWED_HOSTS (environment variable) (config key server.allowed_hosts), entry 2 = "https://skills.example.com": expected a host name such as skills.example.com or skills.example.com:8000 (no scheme, path or spaces).',
      ],
      [
        "",
        { ALLOWED_COMMANDS: "python,/bin/sh" },
        'ALLOWED_COMMANDS (environment variable) (config key commands.allowed), entry 2 = "/bin/sh": expected a bare command name such as python or ls (no path, no spaces).',
      ],
      [
        "",
        { SKILLHUB_PORT: "70000" },
        "SKILLHUB_PORT (environment variable) (config key server.port) = 70000: expected a number of at most 65535.",
      ],
      [
        "search:\n  limit: 3\n  limit: 4\n",
        {},
        `${file} is not valid YAML: the key "limit" is written twice in the same mapping (again at line 3, column 3); keep one.`,
      ],
      [
        `${bomb.join("\n")}\n`,
        {},
        `${file} is not valid YAML: its aliases (*name) expand to more than 100 copies; write the values out instead.`,
      ],
      ["- search\n", {}, `${file} must hold a YAML mapping of settings, not a list.`],
      ["scripts:\n  runners:\n    .rb: 5\n", {}, `scripts.runners.".rb" in ${file} = 5: expected a text.`],
      [
        "",
        { SKILLS_REF: "-x" },
        'SKILLS_REF (environment variable) (config key git.ref) = "-x": expected a tag name or a full commit hash (40 hex).',
      ],
      ["git:\n  branch: a..b\n", {}, `git.branch in ${file} = "a..b": expected a branch name.`],
    ];
    for (const [yaml, env, expected] of cases) {
      write(file, yaml);
      const run = runBinary(["list"], project, home, env);
      expect({ yaml, env, code: run.code, err: run.err }).toEqual({
        yaml,
        env,
        code: 2,
        err: `skillhub: Invalid configuration: ${expected}\n`,
      });
    }
    // A section whose keys are all commented out sets nothing.
    write(file, "server:\n  # port: 8000\nsearch:\n  limit: 5\n");
    expect(runBinary(["list"], project, home)).toMatchObject({ code: 0, err: "" });
  });

  test("stats with analytics on but no event written yet says so, instead of 'no analytics file is configured'", () => {
    const home = tempDir();
    const file = join(tempDir(), "usage.jsonl");
    const run = runBinary(["stats"], tempDir(), home, { SKILLHUB_ANALYTICS_FILE: file });
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      `No analytics events yet: analytics is on, and ${file} is written once a server records its first events (every 30 s).\n`,
    );
  });

  test("search with no skill served says so, as list does, instead of 'no skill matches'", async () => {
    const folder = tempDir();
    const empty = await cli(["search", "pdf", "--skills-dir", folder]);
    expect(empty.code).toBe(0);
    expect(empty.out).toStartWith(`No skills found in ${folder} (a skill is a folder holding a SKILL.md)`);
    const dir = tempDir();
    write(join(dir, "bad", "SKILL.md"), "no frontmatter\n");
    const broken = await cli(["search", "pdf", "--skills-dir", dir]);
    expect(broken.out).toStartWith("No skills served: 1 SKILL.md file could not be read as a skill:\n");
    expect(broken.out).toContain(`error no-frontmatter ${join(dir, "bad", "SKILL.md")}`);
    expect(broken.out).toEndWith("then run skillhub search again.\n");
    // With skills served, a query that finds none still says so.
    const some = await cli(["search", "zzzqqq", "--skills-dir", skills()]);
    expect(some.out).toBe('No skill matches "zzzqqq". `skillhub list` with the same options shows every skill.\n');
  });

  test("show prints what the skill tool returns; an unknown name exits 1", async () => {
    const dir = skills();
    const shown = await cli(["show", "GIT", "--skills-dir", dir]);
    expect(shown.code).toBe(0);
    expect(shown.out).toStartWith(`Loading: git\nBase directory: ${join(dir, "git")}\n\n---\nname: git`);
    // The skill's text for a person: not the markup the skill tool's description promises a model.
    expect(shown.out).not.toContain("command-message");
    expect(shown.out).toEndWith(
      `${readFileSync(join(dir, "git", "SKILL.md"), "utf8").trimEnd()}\n\nFiles: none besides SKILL.md.\n`,
    );
    // The files its instructions may name, with their sizes.
    write(join(dir, "git", "scripts", "hooks.sh"), "echo hook\n");
    write(join(dir, "git", "references", "flow.md"), "# Flow\n");
    expect((await cli(["show", "git", "--skills-dir", dir])).out).toEndWith(
      "\nFiles besides SKILL.md:\n  references/flow.md  7 bytes\n  scripts/hooks.sh    10 bytes\n",
    );
    const missing = await cli(["show", "gti", "--skills-dir", dir]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("Skill 'gti' not found.\n\nAvailable skills:\n- git");
    expect((await cli(["show"])).code).toBe(2);
  });

  test("doctor shows the project root, every source, shadowing and diagnostics", async () => {
    const dir = skills();
    const home = tempDir();
    writeSkill(join(home, ".claude", "skills"), "git", { description: "global git" });
    const project = tempDir();
    const doctor = await cli(["doctor", "--skills-dir", dir, "--project", project], { HOME: home });
    // A skill that cannot be served (missing description) is a problem: exit 1, as --help says.
    expect(doctor.code).toBe(1);
    expect(doctor.out).toContain(`Project root: ${project}`);
    expect(doctor.out).toContain("--project / SKILLHUB_PROJECT_DIR");
    expect(doctor.out).toMatch(new RegExp(` 1\\. ${labelOfDir(dir)} +explicit  `));
    expect(doctor.out).toContain(`explicit  ${dir}  (2 skills)`);
    expect(doctor.out).toContain("claude-global");
    expect(doctor.out).toContain("not present");
    expect(doctor.out).toContain("claude-global:git");
    expect(doctor.out).toContain("error missing-description");
    const json = JSON.parse((await cli(["doctor", "--json", "--skills-dir", dir])).out);
    expect(json.sources[0]).toMatchObject({ label: labelOfDir(dir), served: 2 });
  });

  test("doctor names a skills folder the user named that is not there, among the warnings, and exits 1", async () => {
    const home = tempDir();
    const missing = join(tempDir(), "does-not-exist");
    const doctor = await cli(["doctor", "--skills-dir", missing], { HOME: home });
    expect(doctor.code).toBe(1);
    expect(doctor.out).toContain("Diagnostics: 0 errors (what they name is not served), 1 warning");
    expect(doctor.out).toContain(`warning config skills folder ${missing} does not exist; it is skipped`);
    const json = JSON.parse((await cli(["doctor", "--json", "--skills-dir", missing], { HOME: home })).out);
    expect(json.config_warnings).toEqual([`skills folder ${missing} does not exist; it is skipped`]);
  });

  test("doctor says when no project root applies", async () => {
    const home = tempDir();
    const { code, out } = await cli(["doctor"], { HOME: home });
    expect(code).toBe(0);
    expect(out).toContain("Project root: (none)");
  });

  test("list and doctor in a project's subfolder name the project above and how to read it, keeping the root", () => {
    const home = tempDir();
    const project = tempDir();
    write(join(project, "skillhub.yaml"), "sources:\n  dirs: []\n");
    writeSkill(join(project, ".agents", "skills"), "house-rules");
    const deep = join(project, "src", "deep");
    write(join(deep, "main.ts"), "");
    const note = `note: ${project} above holds a skillhub.yaml, so this is likely a subfolder of that project, whose skills are not read from here: run the command in ${project}, or pass --project ${project} (or set SKILLHUB_PROJECT_DIR=${project}).\n`;
    const list = runBinary(["list"], deep, home);
    expect(list.code, list.err).toBe(0);
    expect(list.out).toEndWith(note);
    const doctor = runBinary(["doctor"], deep, home);
    expect(doctor.out).toContain(`Project root: ${deep}\n  found by: working directory\n  ${note}`);
    // Each way the note names reads the project's skills, without the note.
    for (const [args, cwd, env] of [
      [["list"], project, {}],
      [["list", "--project", project], deep, {}],
      [["list"], deep, { SKILLHUB_PROJECT_DIR: project }],
    ] as const) {
      const read = runBinary([...args], cwd, home, env);
      expect({ args, out: read.out }).toEqual({ args, out: expect.stringContaining("house-rules") });
      expect({ args, note: read.out.includes("note:") }).toEqual({ args, note: false });
    }
    // The home folder is no project: its skillhub.yaml is never named from a folder below it.
    write(join(home, "skillhub.yaml"), "sources:\n  dirs: []\n");
    const below = join(home, "notes", "today");
    write(join(below, "todo.md"), "");
    expect(runBinary(["list"], below, home).out).not.toContain("note:");
    expect(runBinary(["doctor"], below, home).out).not.toContain("skillhub.yaml");
    // Nor is a folder every user may write (`/tmp`): a skillhub.yaml planted there names no project of yours.
    const shared = tempDir();
    chmodSync(shared, 0o1777);
    write(join(shared, "skillhub.yaml"), "sources:\n  dirs: []\n");
    const mine = join(shared, "work", "here");
    write(join(mine, "main.ts"), "");
    expect(runBinary(["list"], mine, home).out).not.toContain("note:");
    chmodSync(shared, 0o700);
    expect(runBinary(["list"], mine, home).out).toContain(`note: ${shared} above holds a skillhub.yaml`);
  });

  test("print-config gives each client's snippet with an absolute command", async () => {
    for (const client of ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf", "codex", "gemini"]) {
      const { code, out } = await cli(["print-config", client]);
      expect(code).toBe(0);
      expect(out).toContain(process.execPath);
    }
    expect((await cli(["print-config", "vscode"])).out).toContain('"servers"');
    expect((await cli(["print-config", "codex"])).out).toContain("[mcp_servers.skillhub]");
    const http = await cli(["print-config", "claude-code", "--http", "http://127.0.0.1:8000/mcp"]);
    expect(JSON.parse(http.out)).toEqual({
      mcpServers: { skillhub: { type: "http", url: "http://127.0.0.1:8000/mcp" } },
    });
    expect(http.err).toContain("claude mcp add --scope user --transport http skillhub http://127.0.0.1:8000/mcp");
    expect(http.err).not.toContain("bearer token");
    // Another machine's server refuses a client without its token: said before the client meets a 401.
    const remote = await cli(["print-config", "cursor", "--http", "http://10.0.0.5:8000/mcp"]);
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.out)).toEqual({ mcpServers: { skillhub: { url: "http://10.0.0.5:8000/mcp" } } });
    expect(remote.err).toContain("needs its bearer token: set SKILLHUB_HTTP_TOKEN");
    const withToken = await cli(["print-config", "cursor", "--http", "http://10.0.0.5:8000/mcp"], {
      SKILLHUB_HTTP_TOKEN: "t0ken-for-the-test",
    });
    expect(withToken.out).toContain("Bearer ${env:SKILLHUB_HTTP_TOKEN}");
    expect(withToken.out).not.toContain("t0ken-for-the-test");
    expect(withToken.err).not.toContain("needs its bearer token");
    expect((await cli(["print-config", "emacs"])).code).toBe(2);
  });

  test("print-config from a checkout's dist/skillhub says make clean removes it; an installed copy does not", () => {
    const printed = Bun.spawnSync([binary(), "print-config", "cursor"], {
      env: { HOME: tempDir(), PATH: process.env.PATH ?? "" },
    });
    expect(JSON.parse(printed.stdout.toString()).mcpServers.skillhub.command).toBe(binary());
    expect(printed.stderr.toString()).toContain(
      `# ${binary()} is the build in a SkillHub checkout, which \`make clean\` removes: for everyday use, copy it to ~/.local/bin first`,
    );
    const elsewhere = tempDir();
    write(join(elsewhere, "dist", "skillhub"), "");
    expect(isCheckoutBuild(join(elsewhere, "dist", "skillhub"))).toBe(false);
    write(join(elsewhere, "Makefile"), "");
    write(join(elsewhere, "src", "cli.ts"), "");
    expect(isCheckoutBuild(join(elsewhere, "dist", "skillhub"))).toBe(true);
    expect(isCheckoutBuild(join(elsewhere, "bin", "skillhub"))).toBe(false);
  });

  test("print-config starts the server with every server flag it was given, folders made absolute", async () => {
    const cwd = tempDir();
    write(join(cwd, "extra.yaml"), "# more settings\n");
    const { code, out, err } = await runCli(
      [
        "print-config",
        "cursor",
        "--skills-dir",
        "team",
        "--frozen",
        "--no-watch",
        "--root",
        "skills",
        "--home",
        "h",
      ].concat(["--tools", "hub", "--log-level", "WARN", "--config", join(cwd, "extra.yaml"), "--enable-commands"]),
      { HOME: cwd },
    );
    expect(err).not.toContain("error");
    expect(code).toBe(0);
    const args: string[] = JSON.parse(out).mcpServers.skillhub.args;
    expect(args.slice(args.indexOf("--skills-dir"))).toEqual([
      "--skills-dir",
      join(cwd, "team"),
      "--root",
      "skills",
      "--home",
      join(cwd, "h"),
      "--tools",
      "hub",
      "--frozen",
      "--no-watch",
      "--enable-commands",
      "--log-level",
      "WARN",
      "--config",
      join(cwd, "extra.yaml"),
    ]);
  });

  test("print-config takes exactly the settings its config starts the server with", async () => {
    const cwd = tempDir();
    write(join(cwd, "extra.yaml"), "# more settings\n");
    const values: Record<string, string> = { tools: "hub", "log-level": "WARN", config: join(cwd, "extra.yaml") };
    for (const name of commandOptionNames("print-config")) {
      if (name === "http") continue;
      const value = values[name] ?? "x";
      const argv = FLAG_SETTINGS[name]?.kind === "bool" ? [`--${name}`] : [`--${name}`, value];
      const { code, out } = await runCli(["print-config", "cursor", ...argv], { HOME: cwd });
      const args: string[] = code === 0 ? JSON.parse(out).mcpServers.skillhub.args : [];
      expect({ name, carried: args.includes(`--${name}`) }).toEqual({ name, carried: true });
    }
  });

  test("the binary: --version, --help and a wrong flag", async () => {
    const bin = binary();
    const version = Bun.spawnSync([bin, "--version"]);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.toString()).toMatch(/^\d+\.\d+\.\d+\n$/);
    const wrong = Bun.spawnSync([bin, "--wat"]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stdout.toString()).toBe("");
    expect(wrong.stderr.toString()).toContain("unknown option --wat");
    const config = Bun.spawnSync([bin, "print-config", "claude-desktop"]);
    expect(config.stdout.toString()).toContain(`"command": "${bin}"`);
    expect(config.stderr.toString()).toStartWith("# merge into claude_desktop_config.json");
  });

  test("run through a link on PATH (a package manager's bin/skillhub), print-config names the link", () => {
    const bin = binary();
    const links = tempDir("skillhub-bin-");
    const link = join(links, "skillhub");
    symlinkSync(bin, link);
    const env = { ...process.env, PATH: `${links}:${process.env.PATH}` };
    const config = Bun.spawnSync(["skillhub", "print-config", "cursor"], { env });
    expect(JSON.parse(config.stdout.toString()).mcpServers.skillhub.command).toBe(link);
    // A skillhub on PATH that is another binary is not named.
    const other = tempDir("skillhub-other-");
    write(join(other, "skillhub"), "#!/bin/sh\n");
    chmodSync(join(other, "skillhub"), 0o755);
    const elsewhere = Bun.spawnSync([bin, "print-config", "cursor"], { env: { ...env, PATH: other } });
    expect(JSON.parse(elsewhere.stdout.toString()).mcpServers.skillhub.command).toBe(bin);
  });
});
