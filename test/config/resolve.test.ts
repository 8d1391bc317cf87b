import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseCommandLine } from "../../src/config/args.ts";
import { loadConfig } from "../../src/config/load.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { cleanupTemp, tempDir, write } from "../helpers/fs.ts";

afterAll(cleanupTemp);
const resolve = (
  env: Record<string, string> = {},
  flags: Record<string, unknown> = {},
  files: { path: string; data: unknown }[] = [],
) => resolveConfig({ env, flags, files, homeDir: "/home/u", cwd: "/work" });
const failure = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
};

describe("resolveConfig", () => {
  test("defaults are the documented ones", () => {
    const { config } = resolve();
    expect(config.home).toBe("/home/u/.skillhub");
    expect(config.search).toMatchObject({ limit: 10, threshold: 0.2 });
    expect(config.commands).toMatchObject({
      enabled: false,
      allowed: ["python", "uv", "node", "cat", "ls", "grep"],
      timeout_seconds: 60,
      max_output_bytes: 65536,
    });
    expect(config.files.max_file_bytes).toBe(65536);
    expect(config.matching).toEqual({ min_score: 0.2, max_results: 3, ambiguity_threshold: 0.1 });
    expect(config.sources).toMatchObject({ rescan_seconds: 30, watch: true, max_depth: 8, max_dirs: 250_000 });
    expect(config.server).toMatchObject({ transport: "stdio", host: "127.0.0.1", port: 8000, tools: "auto" });
    expect(config.git.branch).toBe("main");
    expect(config.refresh.interval_minutes).toBe(15);
    expect(config.log_level).toBe("INFO");
  });

  test("the documented environment variables are honoured", () => {
    const { config } = resolve({
      SKILLS_DIR: "/a:~/b",
      SEARCH_LIMIT: "5",
      SEARCH_THRESHOLD: "0.5",
      LOG_LEVEL: "debug",
      SKILLHUB_ENABLED_SKILLS: "PDF, git",
      SKILLHUB_ENABLED_CATEGORIES: "Dev",
      MAX_FILE_BYTES: "1000",
      ALLOWED_COMMANDS: "python,ls",
      SKILLHUB_SKIP_AUTO_REINDEX: "1",
      ANALYTICS_ENDPOINT: "http://127.0.0.1:9/x",
      REFRESH_INTERVAL_MINUTES: "5",
      SKILLS_REPO: "file:///r1.git, file:///r2.git",
      DB_PATH: "cache",
    });
    expect(config.sources.dirs).toEqual(["/a", "/home/u/b"]);
    expect(config.search).toMatchObject({ limit: 5, threshold: 0.5, skip_auto_reindex: true });
    expect(config.log_level).toBe("DEBUG");
    expect(config.filters).toEqual({ enabled_skills: ["pdf", "git"], enabled_categories: ["dev"] });
    expect(config.files.max_file_bytes).toBe(1000);
    expect(config.commands.allowed).toEqual(["python", "ls"]);
    expect(config.analytics).toMatchObject({ enabled: true, endpoint: "http://127.0.0.1:9/x" });
    expect(config.refresh).toEqual({ enabled: true, interval_minutes: 5 });
    expect(config.git.repos).toEqual(["file:///r1.git", "file:///r2.git"]);
    expect(config.cache_path).toBe("/work/cache");
  });

  test("flags beat the environment, which beats files; --skills-dir comes before SKILLS_DIR", () => {
    const { config } = resolve(
      { SKILLHUB_TOOLS: "hub", SKILLS_DIR: "/env" },
      { tools: "skill", "skills-dir": ["/flag"], "no-watch": true },
      [{ path: "/c.yaml", data: { server: { tools: "all", port: 9 }, matching: { min_score: 0.5 } } }],
    );
    expect(config.server.tools).toBe("skill");
    expect(config.server.port).toBe(9);
    expect(config.matching.min_score).toBe(0.5);
    expect(config.sources.dirs).toEqual(["/flag", "/env"]);
    expect(config.sources.watch).toBe(false);
  });

  test("--skills-dir and SKILLS_DIR folders come before the config files' sources.dirs, never instead of them", () => {
    const file = [{ path: "/home/u/.skillhub/config.yaml", data: { sources: { dirs: ["/team/skills", "/env/"] } } }];
    expect(resolve({ SKILLS_DIR: "/env" }, { "skills-dir": ["/flag"] }, file).config.sources.dirs).toEqual([
      "/flag",
      "/env",
      "/team/skills",
    ]);
    expect(resolve({}, { "skills-dir": ["/team/skills"] }, file).config.sources.dirs).toEqual(["/team/skills", "/env"]);
    expect(resolve({}, {}, file).config.sources.dirs).toEqual(["/team/skills", "/env"]);
    // A wrong entry of the file is still named by its place in the file, whatever the flags add in front.
    const bad = [{ path: "/c.yaml", data: { sources: { dirs: ["/ok", 7] } } }];
    expect(failure(() => resolve({ SKILLS_DIR: "/env" }, { "skills-dir": ["/flag"] }, bad)).message).toBe(
      "Invalid configuration: sources.dirs in /c.yaml, entry 2 = 7: expected a text.",
    );
  });

  test("a skills folder in SkillHub's repository copies is refused, naming who gave it and what to use instead", () => {
    const advice =
      "a folder in SkillHub's repository copies (/home/u/.skillhub/repos) is served only as its repository, whose copy is checked first (its origin, and its signatures with trust.allowed_signers). Name the repository instead: `skillhub add URL`, SKILLS_REPO or git.repos (an entry's `path` picks a folder of it).";
    expect(failure(() => resolve({}, { "skills-dir": ["~/.skillhub/repos/team-1a2b3c4d/skills"] })).message).toBe(
      `Invalid configuration: --skills-dir = "~/.skillhub/repos/team-1a2b3c4d/skills": ${advice}`,
    );
    expect(failure(() => resolve({ SKILLS_DIR: "/a:/home/u/.skillhub/x/../repos" })).message).toBe(
      `Invalid configuration: SKILLS_DIR (environment variable) = "/home/u/.skillhub/x/../repos": ${advice}`,
    );
    const file = [{ path: "/home/u/.skillhub/config.yaml", data: { sources: { dirs: ["repos/team-1a2b3c4d"] } } }];
    const fromFile = failure(() => resolve({}, {}, file));
    expect(fromFile.message).toBe(
      `Invalid configuration: sources.dirs in /home/u/.skillhub/config.yaml = "/home/u/.skillhub/repos/team-1a2b3c4d": ${advice}`,
    );
    expect(fromFile.details.file).toBe("/home/u/.skillhub/config.yaml");
    // Wherever SkillHub's home is.
    expect(
      failure(() => resolve({ SKILLHUB_HOME: "/srv/hub" }, { "skills-dir": ["/srv/hub/repos/t"] })).message,
    ).toContain("a folder in SkillHub's repository copies (/srv/hub/repos)");
    // Beside the copies, or above them, is another folder.
    expect(failure(() => resolve({}, { "skills-dir": ["/home/u/.skillhub/repos/..team"] })).message).toContain(advice);
    const beside = ["/home/u/.skillhub/repos-old", "/home/u/.skillhub/skills", "/home/u/.skillhub", "/srv/hub/repos/t"];
    expect(resolve({}, { "skills-dir": beside }).config.sources.dirs).toEqual(beside);
  });

  test("analytics.file or analytics.endpoint in a config file turns analytics on", () => {
    const file = (analytics: Record<string, unknown>) => [
      { path: "/home/u/.skillhub/config.yaml", data: { analytics } },
    ];
    expect(resolve({}, {}, file({ file: "~/events.jsonl" })).config.analytics).toMatchObject({
      enabled: true,
      file: "/home/u/events.jsonl",
    });
    expect(resolve({}, {}, file({ endpoint: "https://hooks.example/skills" })).config.analytics).toMatchObject({
      enabled: true,
      endpoint: "https://hooks.example/skills",
    });
    expect(resolve({}, {}, file({ flush_seconds: 5 })).config.analytics.enabled).toBe(false);
    expect(resolve({}, {}, file({ endpoint: "" })).config.analytics.enabled).toBe(false);
    expect(resolve().config.analytics.enabled).toBe(false);
  });

  test("an explicit analytics.enabled: false wins over an endpoint or a file from any layer", () => {
    const off = [
      {
        path: "/c.yaml",
        data: { analytics: { enabled: false, file: "/tmp/events.jsonl", endpoint: "https://hooks.example/skills" } },
      },
    ];
    expect(resolve({}, {}, off).config.analytics.enabled).toBe(false);
    expect(
      resolve({ ANALYTICS_ENDPOINT: "https://hooks.example/env", SKILLHUB_ANALYTICS_FILE: "/tmp/e.jsonl" }, {}, off)
        .config.analytics,
    ).toMatchObject({
      enabled: false,
      endpoint: "https://hooks.example/env",
    });
    const on = [{ path: "/c.yaml", data: { analytics: { enabled: true } } }];
    expect(resolve({}, {}, on).config.analytics.enabled).toBe(true);
  });

  test("every bad value is named at once, each with its key, value and what is allowed", () => {
    const error = failure(() =>
      resolve({ LOG_LEVEL: "loud" }, { port: "many" }, [
        { path: "/c.yaml", data: { search: { limit: 0 }, sources: { rescan_seconds: "soon" } } },
      ]),
    );
    const [head, ...problems] = error.message.split("\n");
    expect(head).toBe("Invalid configuration, 4 problems:");
    expect(problems.sort()).toEqual([
      '  --port = "many": expected a whole number.',
      '  LOG_LEVEL (environment variable) = "loud": expected one of DEBUG, INFO, WARN, ERROR, SILENT.',
      "  search.limit in /c.yaml = 0: expected a number of at least 1.",
      '  sources.rescan_seconds in /c.yaml = "soon": expected a number.',
    ]);
    const many = failure(() =>
      resolve({}, {}, [{ path: "/c.yaml", data: { sources: { dirs: Array.from({ length: 12 }, (_, i) => i) } } }]),
    ).message.split("\n");
    expect(many).toHaveLength(12);
    expect(many.at(-1)).toBe("  … and 2 more.");
  });

  test("a bad value names the key, the value and what is allowed", () => {
    expect(failure(() => resolve({ SEARCH_LIMIT: "ten" })).message).toBe(
      'Invalid configuration: SEARCH_LIMIT (environment variable) = "ten": expected a whole number.',
    );
    const port = failure(() => resolve({ SKILLHUB_PORT: "70000" })).message;
    expect(port).toContain("SKILLHUB_PORT");
    expect(port).toContain("70000");
    expect(port).toContain("65535");
    const transport = failure(() => resolve({}, { transport: "carrier-pigeon" })).message;
    expect(transport).toContain("--transport");
    expect(transport).toContain('"carrier-pigeon"');
    expect(transport).toContain("stdio");
    expect(failure(() => resolve({ SKILLHUB_WATCH: "maybe" })).message).toContain("one of 1, true");
    const file = failure(() =>
      resolve({}, {}, [{ path: "/c.yaml", data: { matching: { min_score: "high" } } }]),
    ).message;
    expect(file).toContain("matching.min_score in /c.yaml");
    expect(file).toContain("expected a number");
    // One value where a list belongs: the list that holds it, in YAML's own brackets.
    expect(
      failure(() => resolve({}, {}, [{ path: "/c.yaml", data: { sources: { dirs: "/srv/skills" } } }])).message,
    ).toBe(
      'Invalid configuration: sources.dirs in /c.yaml = "/srv/skills": expected a list (a list of one is written ["/srv/skills"]).',
    );
    const endpoints = [
      () => resolve({ ANALYTICS_ENDPOINT: "ftp://hooks.example/x" }),
      () => resolve({}, {}, [{ path: "/c.yaml", data: { analytics: { endpoint: "hooks.example/x" } } }]),
      () => resolve({ ANALYTICS_ENDPOINT: "https://hooks.exa mple/x" }),
      () => resolve({ ANALYTICS_ENDPOINT: "http://[::1/x" }),
      () => resolve({ ANALYTICS_ENDPOINT: "nope" }),
    ];
    for (const attempt of endpoints) {
      const endpoint = failure(attempt).message;
      expect(endpoint).toMatch(/ANALYTICS_ENDPOINT|analytics\.endpoint in \/c\.yaml/);
      expect(endpoint).toContain("expected an http:// or https:// URL");
      // A URL the schema checks twice (its form, then its scheme) is still one problem.
      expect(endpoint).toStartWith("Invalid configuration: ");
    }
  });

  test("server.public_url: an http(s) URL, with a path or not, from the environment or a file; nothing else", () => {
    expect(resolve({ SKILLHUB_PUBLIC_URL: "https://skills.example.com/hub" }).config.server.public_url).toBe(
      "https://skills.example.com/hub",
    );
    expect(
      resolve({}, {}, [{ path: "/c.yaml", data: { server: { public_url: "http://hub.internal:8000" } } }]).config.server
        .public_url,
    ).toBe("http://hub.internal:8000");
    expect(resolve({}).config.server.public_url).toBeUndefined();
    for (const value of ["skills.example.com", "https://skills.example.com/?a=1", "https://u:p@skills.example.com"])
      expect(failure(() => resolve({ SKILLHUB_PUBLIC_URL: value })).message).toContain("SKILLHUB_PUBLIC_URL");
  });

  test("a mistyped SKILLHUB_ variable is a warning naming the setting; another program's is not", () => {
    const { warnings } = resolve({
      SKILLHUB_TOOL: "sk",
      SKILLHUB_RUN_ID: "x",
      SKILLHUB_EXTRA_THING: "1",
      SKILLHUB_NPM_TOOLS: "/opt/tools",
      SKILLHUB_CLIENT_TOOLS: "/opt/clients",
      SKILLHUB_PORT: "9",
      SKILLHUB_FORZEN: "1",
    });
    expect(warnings).toEqual([
      "variable SKILLHUB_TOOL is ignored: no setting has that name. Did you mean SKILLHUB_TOOLS?",
      "variable SKILLHUB_FORZEN is ignored: no setting has that name. Did you mean SKILLHUB_FROZEN?",
    ]);
  });

  test("a relative path in a config file is relative to the file's folder; in the environment, to the working folder", () => {
    const { config } = resolve({ SKILLHUB_ANALYTICS_FILE: "events.jsonl" }, {}, [
      {
        path: "/home/u/team/config.yaml",
        data: {
          sources: { dirs: ["skills", "~/more", "/abs", "../shared/skills"] },
          git: { repos: ["../repos/team.git", "git@host:team/skills.git", { url: "./local.git", ref: "v1" }] },
          cache_path: "cache",
          lock: { file: "team.lock" },
        },
      },
    ]);
    expect(config.sources.dirs).toEqual(["/home/u/team/skills", "/home/u/more", "/abs", "/home/u/shared/skills"]);
    expect(config.git.repos).toEqual([
      "/home/u/repos/team.git",
      "git@host:team/skills.git",
      { url: "/home/u/team/local.git", ref: "v1" },
    ]);
    expect(config.cache_path).toBe("/home/u/team/cache");
    expect(config.lock.file).toBe("/home/u/team/team.lock");
    expect(config.analytics.file).toBe("/work/events.jsonl");
  });

  test("every path setting expands `~/` to the home and is made absolute, from a file or the environment", () => {
    const { config } = resolve({ SKILLHUB_LOCK: "~/env.lock", SKILLHUB_ALLOWED_SIGNERS: "keys/allowed" }, {}, [
      {
        path: "/home/u/team/config.yaml",
        data: {
          trust: { allowed_signers: "~/.ssh/allowed_signers" },
          plugins: { dir: "~/claude/plugins" },
          sources: { project_dirs: ["skills"] },
        },
      },
    ]);
    expect(config.lock.file).toBe("/home/u/env.lock");
    // The environment's relative path is the working folder's, as a variable's always is.
    expect(config.trust.allowed_signers).toBe("/work/keys/allowed");
    expect(config.plugins.dir).toBe("/home/u/claude/plugins");
    expect(config.sources.project_dirs).toEqual(["/home/u/team/skills"]);
    const fromFile = resolve({}, {}, [
      { path: "/c/config.yaml", data: { trust: { allowed_signers: "~/.ssh/allowed_signers" } } },
    ]);
    expect(fromFile.config.trust.allowed_signers).toBe("/home/u/.ssh/allowed_signers");
  });

  test("secrets are never echoed", () => {
    const message = failure(() => resolve({ SKILLHUB_HTTP_TOKEN: "s3cret", SKILLHUB_PORT: "x" })).message;
    expect(message).not.toContain("s3cret");
  });

  test("unknown keys in a config file are warnings, not errors; a mistyped one names the closest key", () => {
    const { warnings, config } = resolve({}, {}, [
      {
        path: "/c.yaml",
        data: { matching: { min_score: 0.3, fuzzy: true }, colour: "blue", git: { repo: "x" }, analytic: {} },
      },
    ]);
    expect(config.matching.min_score).toBe(0.3);
    expect(warnings).toEqual([
      '/c.yaml: unknown key "matching.fuzzy" ignored.',
      '/c.yaml: unknown key "colour" ignored.',
      '/c.yaml: unknown key "git.repo" ignored. Did you mean "git.repos"?',
      '/c.yaml: unknown key "analytic" ignored. Did you mean "analytics"?',
    ]);
  });

  test("a key put in the wrong section names the section that has it", () => {
    const { warnings } = resolve({}, {}, [{ path: "/c.yaml", data: { tools: "all", search: { port: 9 } } }]);
    expect(warnings).toEqual([
      '/c.yaml: unknown key "tools" ignored. Did you mean "server.tools"?',
      '/c.yaml: unknown key "search.port" ignored. Did you mean "server.port"?',
    ]);
  });
});

describe("loadConfig", () => {
  test("reads ~/.skillhub/config.yaml (under SKILLHUB_HOME) and --config", () => {
    const home = tempDir();
    write(join(home, "hub", "config.yaml"), "search:\n  limit: 7\nscripts:\n  runners:\n    '.rb': ruby\n");
    const extra = write(join(home, "extra.yaml"), "search:\n  threshold: 0.4\n");
    const { config } = loadConfig({
      env: { SKILLHUB_HOME: join(home, "hub") },
      homeDir: home,
      cwd: home,
      configFile: extra,
    });
    expect(config.search).toMatchObject({ limit: 7, threshold: 0.4 });
    expect(config.scripts.runners).toMatchObject({ ".rb": "ruby", ".sh": "bash" });
  });

  test("a wrong value in the environment and one in the config file are named together", () => {
    const home = tempDir();
    write(join(home, "hub", "config.yaml"), "log_level: nope\n");
    const message = failure(() =>
      loadConfig({ env: { SKILLHUB_HOME: join(home, "hub"), SEARCH_LIMIT: "0" }, homeDir: home, cwd: home }),
    ).message;
    expect(message).toStartWith("Invalid configuration, 2 problems:\n");
    expect(message).toContain("SEARCH_LIMIT (environment variable)");
    expect(message).toContain(`log_level in ${join(home, "hub", "config.yaml")} = "nope"`);
  });

  test("a skills folder's file with a wrong value is set aside, and only the user's own stop the start", () => {
    const home = tempDir();
    write(join(home, "hub", "config.yaml"), "search:\n  limit: 0\n");
    const theirs = write(join(home, "skills", "config.yaml"), "matching:\n  max_results: many\n");
    const load = () =>
      loadConfig({ env: { SKILLHUB_HOME: join(home, "hub") }, homeDir: home, cwd: home, sourceFiles: [theirs] });
    const message = failure(load).message;
    expect(message).toBe(
      `Invalid configuration: search.limit in ${join(home, "hub", "config.yaml")} = 0: expected a number of at least 1.`,
    );
    write(join(home, "hub", "config.yaml"), "search:\n  limit: 3\n");
    const { config, warnings } = load();
    expect(config.search.limit).toBe(3);
    expect(warnings.join("\n")).toContain(`${theirs}'s settings are ignored.`);
  });

  test("invalid YAML and a missing --config file are configuration errors", () => {
    const home = tempDir();
    const bad = write(join(home, "bad.yaml"), "search: [unclosed\n");
    expect(failure(() => loadConfig({ env: {}, homeDir: home, cwd: home, configFile: bad })).message).toContain(
      "is not valid YAML",
    );
    expect(
      failure(() => loadConfig({ env: {}, homeDir: home, cwd: home, configFile: join(home, "none.yaml") })).message,
    ).toContain("no such file");
  });
});

describe("parseCommandLine", () => {
  test("no command means serve; flags are split into config flags and options", () => {
    const parsed = parseCommandLine(["--skills-dir", "/a", "--skills-dir", "/b", "--config", "c.yaml"]);
    expect(parsed.command).toBe("serve");
    expect(parsed.flags["skills-dir"]).toEqual(["/a", "/b"]);
    expect(parsed.options.config).toBe("c.yaml");
    expect(parseCommandLine(["list", "--json", "--all"]).options).toMatchObject({ json: true, all: true });
  });

  test("a command option given to a command that does not read it is refused, naming what the command takes", () => {
    expect(failure(() => parseCommandLine(["list", "--limit", "3"])).message).toBe(
      "option --limit does not apply to list: list takes --json, --all, --skills-dir, --project, --root, --frozen, --config, --home, --log-level.",
    );
    expect(failure(() => parseCommandLine(["show", "pdf", "--json"])).message).toBe(
      "option --json does not apply to show: show takes --skills-dir, --project, --root, --frozen, --config, --home, --log-level.",
    );
    expect(failure(() => parseCommandLine(["--json"])).message).toContain("does not apply to serve");
    // doctor shows the settings a server would use: it takes a server's options.
    expect(parseCommandLine(["doctor", "--port", "5", "--json"]).flags.port).toBe("5");
  });

  test("a setting given to a command that does not read it is refused, naming what the command takes", () => {
    // Where a one-shot command reads no server setting, and validate no configured folder.
    expect(failure(() => parseCommandLine(["stats", "--tools", "all"])).message).toBe(
      "option --tools does not apply to stats: stats takes --json, --since, --skills-dir, --project, --root, --frozen, --config, --home, --log-level.",
    );
    expect(failure(() => parseCommandLine(["stats", "--no-watch"])).message).toContain("does not apply to stats");
    expect(failure(() => parseCommandLine(["validate", "--skills-dir", "x"])).message).toBe(
      "option --skills-dir does not apply to validate: name the folders to lint after it (skillhub validate DIR...).",
    );
    // The printed config does not rebuild the index on every start.
    expect(failure(() => parseCommandLine(["print-config", "cursor", "--reindex"])).message).toContain(
      "does not apply to print-config",
    );
    // What each takes, it takes.
    expect(parseCommandLine(["print-config", "cursor", "--tools", "hub", "--no-watch"]).flags).toMatchObject({
      tools: "hub",
      "no-watch": true,
    });
    expect(parseCommandLine(["search", "pdf", "--reindex", "--skills-dir", "x"]).flags.reindex).toBe(true);
    expect(parseCommandLine(["validate", "--config", "c.yaml", "--log-level", "WARN"]).options.config).toBe("c.yaml");
  });

  test("serve --http is answered with what to type to serve over HTTP", () => {
    const hint = "to serve over HTTP: skillhub serve --transport http [--port N]";
    const given = failure(() => parseCommandLine(["serve", "--http", "http://127.0.0.1:8000"])).message;
    expect(given).toBe(
      `option --http does not apply to serve: --http URL is print-config's (a client's config for a shared server); ${hint}.`,
    );
    for (const argv of [["serve", "--http"], ["--http"], ["serve", "--http", "--port", "8000"]])
      expect({ argv, message: failure(() => parseCommandLine(argv)).message }).toEqual({
        argv,
        message: `option --http needs a URL, and only print-config takes it (skillhub print-config CLIENT --http URL: a client's config for a shared server); ${hint}.`,
      });
    // print-config's own --http still just needs its value.
    expect(failure(() => parseCommandLine(["print-config", "cursor", "--http"])).message).toBe(
      "option --http needs a value.",
    );
    expect(failure(() => parseCommandLine(["serve", "--stdio"])).message).toBe(
      "unknown option --stdio: stdio is the default (skillhub serve, or --transport stdio).",
    );
  });

  test("mcp-server ignores what it does not honour, saying what it serves (a client's configuration keeps working)", () => {
    const serves =
      "mcp-server serves skills.list and skills.search (the sk profile) over <project>/DIR (--root, default ./skills) and the --skills-dir folders; skillhub serve --tools PROFILE|LIST serves other tools; ignored";
    for (const argv of [["--tools", "all"], ["--enable-commands"], ["--reindex"], ["--skip-auto-reindex"]]) {
      const parsed = parseCommandLine(["mcp-server", ...argv]);
      expect({ argv, ignored: parsed.ignored }).toEqual({
        argv,
        ignored: [`option ${argv[0]} does not apply to mcp-server: ${serves}`],
      });
      expect(parsed.flags).toEqual({});
    }
    // Saying what it does anyway is no mistake.
    expect(parseCommandLine(["mcp-server", "--tools", "sk"]).flags.tools).toBe("sk");
    expect(
      parseCommandLine(["mcp-server", "--root", "tools/skills", "--skills-dir", "x", "--no-watch", "--no-prompts"])
        .flags,
    ).toMatchObject({ root: "tools/skills", "no-watch": true, "no-prompts": true });
  });

  test("where a server listens is refused by commands that open none, and ignored by the stdio-only mcp-server", () => {
    expect(parseCommandLine(["mcp-server", "--transport", "http"]).ignored).toEqual([
      "option --transport does not apply to mcp-server: mcp-server runs on stdio only (skillhub serve --transport http serves over HTTP); ignored",
    ]);
    expect(failure(() => parseCommandLine(["list", "--stateless"])).message).toBe(
      "option --stateless does not apply to list: only serve (and ui, with --host and --port) opens a server.",
    );
    expect(parseCommandLine(["mcp-server", "--transport", "stdio"]).flags.transport).toBe("stdio");
    expect(failure(() => parseCommandLine(["ui", "--transport", "http"])).message).toContain("does not apply to ui");
    expect(parseCommandLine(["ui", "--host", "127.0.0.1", "--port", "0"]).flags.port).toBe("0");
    expect(parseCommandLine(["--transport", "http", "--port", "0", "--stateless"]).flags.stateless).toBe(true);
  });

  test("help is a command too, after options as well; --help wins over an option the command does not take", () => {
    expect(parseCommandLine(["help"]).options.help).toBe(true);
    expect(parseCommandLine(["help", "show"]).options.help).toBe(true);
    expect(parseCommandLine(["--project", "/p", "help"]).options.help).toBe(true);
    expect(parseCommandLine(["show", "--json", "--help"]).options.help).toBe(true);
  });

  test("unknown options and commands are usage errors", () => {
    expect(failure(() => parseCommandLine(["--frobnicate"])).message).toBe("unknown option --frobnicate.");
    expect(failure(() => parseCommandLine(["frobnicate"])).message).toContain('unknown command "frobnicate"');
    // As many tools take it: the option is meant.
    expect(failure(() => parseCommandLine(["version"])).message).toStartWith(
      `unknown command "version". Did you mean '--version'?`,
    );
    expect(failure(() => parseCommandLine(["--port"])).message).toContain("needs a value");
  });
});
