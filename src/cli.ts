#!/usr/bin/env bun
// First: the allocator reads its setting when it first needs it.
import "./util/allocator-env.ts";
import { z } from "zod";
import type { CommandContext, CommandRun } from "./commands/context.ts";
import { loadSettings } from "./commands/load-settings.ts";
import { type Command, commandOptionNames, namedCommand, type ParsedArgs, parseCommandLine } from "./config/args.ts";
import type { Config } from "./config/schema.ts";
import { SK_DEFAULT_ROOT } from "./tools/support/sk-summary.ts";
import { ConfigError, errnoCode, errorMessage, SkillHubError } from "./util/errors.ts";
import { namedFolderWarnings } from "./util/folder-check.ts";
import { createLogger } from "./util/logger.ts";
import { program } from "./util/program-name.ts";
import { terminalText } from "./util/shown-arg.ts";
import { VERSION } from "./version.ts";

/** Each command's entry: its usage line, then what it does, with its options' defaults and formats. */
const USAGE = `  skillhub [serve [DIR...]] [options] run the MCP server on stdio (what MCP clients start);
                                      DIRs are skills folders, as --skills-dir
  skillhub serve --transport http [--host ADDR] [--port N] [--stateless]
                                      a shared server over Streamable HTTP at /mcp (+ /healthz,
                                      and a read-only web page at /)
  skillhub list [--json] [--all]      skills found: name, source and description (--json: each
                                      one's folder and location too; --all: shadowed ones too)
  skillhub show NAME                  what the skill tool returns for NAME, then its other files;
                                      exit 1 if no skill has that name (stderr lists the skills,
                                      closest first)
  skillhub search QUERY [--limit N] [--json]
                                      what search_skills returns for QUERY; --limit: at most N
                                      results, 1 to 100 (default 10, or SEARCH_LIMIT)
  skillhub doctor [--all] [--json]    project root, sources, counts, shadowing, diagnostics, config
                                      (long lists show their first 10 lines; --all: every line;
                                      with --transport http [--host ADDR] [--port N] [--stateless]:
                                      what a shared server would use)
  skillhub validate [DIR...] [--json] lint Agent Skills (specification) and skill trees
                                      in DIR (default: the working directory); exit 1 on errors
                                      or when no skill is found, 2 for a missing DIR
  skillhub sync [--json] [--update [REPO...]] [--frozen]
                                      pull the skill repositories (skillhub.yaml, SKILLS_REPO)
                                      now and write skillhub.lock; pinned ones (a ref, SKILLS_REF)
                                      stay at their locked commit unless --update (every one, or
                                      the REPOs named); --frozen fetches the locked commits and
                                      changes no pin; progress on stderr, exit 1 if a repository
                                      cannot be synced
  skillhub add SOURCE... [--global] [--ref REF] [--path SUBDIR]
                                      add a skills repository or folder to this project's
                                      skillhub.yaml (--global: ~/.skillhub/config.yaml), fetch it,
                                      write skillhub.lock and list its skills. SOURCE: owner/repo
                                      (GitHub), owner/repo/path, a git URL (URL#REF), owner/repo@REF,
                                      or a folder; REF: a tag, branch or commit
  skillhub remove SOURCE... [--global] [--path SUBDIR]
                                      take a source out again (as add took it, or by its label)
  skillhub sources [--json]           the sources added (project and your own), with their refs,
                                      locked commits, skills, duplicates and shadowed skills
  skillhub lock [--json] [--global]   record what would be served now in skillhub.lock
                                      (--global: your own lock alone; --skills-dir DIR: that
                                      folder's skills alone, the rest kept)
  skillhub verify [--json]            compare what would be served with skillhub.lock; exit 1
                                      naming every added, removed or changed skill and file
  skillhub stats [--json] [--since DATE] [FILE...]
                                      usage summary from the local analytics file (or FILEs):
                                      most/never used skills, failed requests, feedback, scripts;
                                      --since: a date (2026-02-01, 2026-02-01T09:00:00Z) or a time
                                      ago (30m, 12h, 7d, 2w)
  skillhub ui [--open] [--host ADDR] [--port N]
                                      a read-only web page for this project's skills (search, read,
                                      trees, diagnostics, usage) on 127.0.0.1 and a free port
                                      (--port N: that one; --host: any other address, with
                                      SKILLHUB_HTTP_TOKEN); prints its URL
  skillhub print-config CLIENT        config file for claude-desktop, claude-code, cursor, vscode,
                                      windsurf, codex or gemini on stdout, which starts the server
                                      with the options given; where it goes on stderr, with the
                                      client's own "mcp add" command for claude-code, gemini and
                                      codex [--http URL: a shared server's form; with
                                      SKILLHUB_HTTP_TOKEN set, the client sends that token]
  skillhub mcp-server [--root DIR]    the stdio server with skills.list and skills.search only
                                      (the sk profile) over <project>/DIR (default ./skills) and
                                      the --skills-dir folders: no other folder or repository
  skillhub --version | --help
`;

/** The help of each option a setting (or --config) sets, in the order helps list them. */
const OPTION_HELP: Record<string, string> = {
  "skills-dir": "--skills-dir DIR       extra skills folder, searched first (repeatable; also SKILLS_DIR)",
  project: `--project DIR          project root for .agents/.claude skills (else CLAUDE_PROJECT_DIR,
                         MCP roots, or the working directory)`,
  root: `--root DIR             a skills folder under the project root, read after --skills-dir
                         (the sk profile and mcp-server read ./skills when not given)`,
  frozen: "--frozen               serve and sync only what skillhub.lock records (also SKILLHUB_FROZEN=1)",
  tools: "--tools PROFILE|LIST   auto (default), skill, hub, tree, sk, all, or a comma list of tools",
  "no-watch": "--no-watch             no file watches (the 30 s stat check covers everything)",
  "no-prompts": "--no-prompts           no MCP prompts (the most useful skills otherwise); SKILLHUB_NO_PROMPTS=1 too",
  reindex: "--reindex              rebuild the persisted search index instead of loading it",
  "skip-auto-reindex": "--skip-auto-reindex    use the persisted search index as it is, even if skills changed",
  "enable-commands": "--enable-commands      offer run_skill_command (off by default; ALLOWED_COMMANDS applies)",
  transport: "--transport stdio|http stdio (default) or Streamable HTTP (also SKILLHUB_TRANSPORT)",
  host: `--host ADDR            HTTP address to bind (default 127.0.0.1, this machine only); any
                         other address needs a token in SKILLHUB_HTTP_TOKEN`,
  port: `--port N               HTTP port (serve's default 8000, ui's a free one; 0 picks a free
                         one, logged to stderr)`,
  stateless: "--stateless            HTTP without sessions: every POST is answered in JSON, no GET stream",
  "log-level": "--log-level LEVEL      DEBUG, INFO, WARN, ERROR or SILENT (also LOG_LEVEL); logs go to stderr",
  home: "--home DIR             SkillHub's own folder (default ~/.skillhub; also SKILLHUB_HOME)",
  config: "--config FILE          read settings from FILE after ~/.skillhub/config.yaml",
};

const JSON_HELP = "--json                 print JSON (snake_case keys) instead of text";
const GLOBAL_HELP = "--global               your own ~/.skillhub/config.yaml instead of the project's skillhub.yaml";

/**
 * The help of each command's own options (no setting), listed before the settings in its help; args.ts
 * READS says which it takes, and each must be here.
 */
const OWN_OPTION_HELP: Partial<Record<Command, Record<string, string>>> = {
  list: { json: JSON_HELP, all: "--all                  shadowed skills too" },
  search: {
    json: JSON_HELP,
    limit: "--limit N              at most N results, 1 to 100 (default 10, or SEARCH_LIMIT)",
  },
  validate: { json: JSON_HELP },
  doctor: { json: JSON_HELP, all: "--all                  every line of long lists (else their first 10)" },
  sync: {
    json: JSON_HELP,
    update: `--update               move pinned repositories (every one, or the REPOs named) to their
                         refs' current commits and rewrite skillhub.lock`,
  },
  lock: {
    json: JSON_HELP,
    global: "--global               your own ~/.skillhub/skillhub.lock alone, not the project's",
  },
  verify: { json: JSON_HELP },
  stats: {
    json: JSON_HELP,
    since: `--since DATE|AGO       only events since a date (2026-02-01, 2026-02-01T09:00:00Z) or a
                         time ago (30m, 12h, 7d, 2w)`,
  },
  "print-config": {
    http: `--http URL             a shared server's form: the client connects to URL (with
                         SKILLHUB_HTTP_TOKEN set, it sends that token)`,
  },
  ui: { open: "--open                 open the page in the default browser" },
  add: {
    global: GLOBAL_HELP,
    ref: "--ref REF              pin the repository to a tag, branch or commit (one source only)",
    path: "--path SUBDIR          the skills folder inside the repository (default skills/, else its root)",
  },
  remove: { global: GLOBAL_HELP, path: "--path SUBDIR          the entry for that folder of the repository" },
  sources: { json: JSON_HELP },
};

/** The help lines of `names`' options: `command`'s own first, then the settings in OPTION_HELP's order. */
function optionLines(names: readonly string[], command?: Command): string {
  const own = Object.entries((command && OWN_OPTION_HELP[command]) ?? {});
  return [...own, ...Object.entries(OPTION_HELP)]
    .filter(([name]) => names.includes(name))
    .map(([, text]) => `  ${text}\n`)
    .join("");
}

export const HELP = `SkillHub ${VERSION}: one MCP server for every Agent Skill you have.

Usage:
${USAGE}
Options (each command takes those its own help lists: skillhub COMMAND --help):
${optionLines(Object.keys(OPTION_HELP))}
Skills are read from, in order: --skills-dir/SKILLS_DIR, sources.dirs of your config file
(skillhub add --global DIR), folders the project's skillhub.yaml adds, <project>/.agents/skills,
<project>/.agent/skills, ~/.agents/skills, ~/.agent/skills, <project>/.claude/skills,
~/.claude/skills, ~/.skillhub/skills, synced repositories (the
project's skillhub.yaml, then SKILLS_REPO or repos: in ~/.skillhub/config.yaml), then the
skills of installed Claude Code plugins. The first folder holding a name wins.

Exit codes: 0 ok, 1 the command found a problem, 2 bad usage or configuration.
`;

/** `skillhub COMMAND --help`: the command's entry in the usage, then the options it takes. */
export function commandHelp(command: Command): string {
  const own: string[] = [];
  let inEntry = false;
  for (const line of USAGE.split("\n")) {
    if (line.startsWith("  skillhub ")) {
      const words = line
        .slice("  skillhub ".length)
        .replace(/^\[/, "")
        .split(/[\s\]]/);
      inEntry = words[0] === command;
    } else if (!line.startsWith("      ")) inEntry = false;
    if (inEntry) own.push(line);
  }
  return [
    `SkillHub ${VERSION}`,
    "",
    "Usage:",
    ...own,
    "",
    "Options:",
    optionLines(commandOptionNames(command), command).trimEnd(),
    "",
    program() === "skillhub"
      ? "skillhub --help lists every command."
      : `Here skillhub is ${program()}; ${program()} --help lists every command.`,
    "",
  ].join("\n");
}

/** The line after a usage error: the help of the command given, which lists the options it takes. */
function helpPointer(command: Command | undefined): string {
  return `Run '${program()} ${command === undefined ? "" : `${command} `}--help' for usage.\n`;
}

/** Commands that report configuration warnings themselves (doctor's diagnostics, a server's log). */
const SAYS_CONFIG_WARNINGS = new Set<Command>(["doctor", "serve", "mcp-server", "ui"]);

/**
 * Commands that start without a project's skillhub.yaml that cannot be used (the whole file left out), and
 * show its error among their diagnostics: the servers, whose client would otherwise get no skill at all in
 * that project (a cloned repository may hold any such file), and doctor. The others stop on it (exit 2):
 * sync, add, remove, lock, verify and sources act on the file, and list, show and search say what it holds.
 */
const SKIPS_PROJECT_FILE = new Set<Command>(["serve", "mcp-server", "ui", "doctor"]);

/** Commands that take no positional arguments: a stray word is a mistake, not something to ignore. */
const NO_POSITIONALS = new Set<Command>(["list", "doctor", "ui", "lock", "verify", "sources", "mcp-server"]);

/**
 * Each command's module is loaded when it runs: the server does not pay for validate's linter or
 * stats' readers at start-up, nor a CLI command for the server's transports.
 */
const COMMANDS: Partial<Record<Command, CommandRun>> = {
  serve: async (ctx) => (await import("./commands/serve.ts")).runServe(ctx),
  // The sk command line: `sk mcp-server [--root ./skills]` (see mcpServerSettings).
  "mcp-server": async (ctx) => (await import("./commands/serve.ts")).runServe(ctx),
  list: async (ctx) => (await import("./commands/list.ts")).runList(ctx),
  show: async (ctx) => (await import("./commands/show.ts")).runShow(ctx),
  doctor: async (ctx) => (await import("./commands/doctor.ts")).runDoctor(ctx),
  "print-config": async (ctx) => (await import("./commands/print-config.ts")).runPrintConfig(ctx),
  search: async (ctx) => (await import("./commands/search.ts")).runSearch(ctx),
  sync: async (ctx) => (await import("./commands/sync.ts")).runSync(ctx),
  lock: async (ctx) => (await import("./commands/lock.ts")).runLock(ctx),
  verify: async (ctx) => (await import("./commands/verify.ts")).runVerify(ctx),
  stats: async (ctx) => (await import("./commands/stats.ts")).runStats(ctx),
  validate: async (ctx) => (await import("./commands/validate.ts")).runValidate(ctx),
  ui: async (ctx) => (await import("./commands/ui.ts")).runUi(ctx),
  add: async (ctx) => (await import("./commands/add.ts")).runAdd(ctx),
  remove: async (ctx) => (await import("./commands/remove.ts")).runRemove(ctx),
  sources: async (ctx) => (await import("./commands/sources.ts")).runSources(ctx),
};

/** argv → config → command. Returns the exit code; `main` is the only caller of process.exit. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Working directory. Default process.cwd(). */
  cwd?: string;
}

export async function run(
  argv: string[],
  env: Record<string, string | undefined>,
  given: CliIo = { out: stdout, err: stderr },
): Promise<number> {
  // Security: what a command prints holds text from files anyone may have written (a SKILL.md, a cloned
  // project's skillhub.yaml, an analytics file): no control character in it reaches the terminal as it is.
  const io: CliIo = {
    ...given,
    out: (text) => given.out(terminalText(text)),
    err: (text) => given.err(terminalText(text)),
  };
  let args: ParsedArgs;
  try {
    args = parseCommandLine(argv);
  } catch (error) {
    io.err(`skillhub: ${errorMessage(error)}\n${helpPointer(namedCommand(argv))}`);
    return 2;
  }
  if (args.options.help) {
    io.out(args.named ? commandHelp(args.command) : HELP);
    return 0;
  }
  if (args.options.version) {
    io.out(`${VERSION}\n`);
    return 0;
  }
  const stray = NO_POSITIONALS.has(args.command) ? args.positionals[0] : undefined;
  if (stray !== undefined) {
    const hint = args.command === "list" || args.command === "doctor" ? ` (did you mean --skills-dir ${stray}?)` : "";
    io.err(`skillhub: unexpected argument '${stray}' for ${args.command}${hint}\n${helpPointer(args.command)}`);
    return 2;
  }
  const command = COMMANDS[args.command];
  if (!command) {
    io.err(`skillhub: the ${args.command} command is not part of this build.\n`);
    return 2;
  }
  // node:os only when HOME is unset: loading it cost every start about 0.4 ms.
  const homeDir = env.HOME || env.USERPROFILE || (require("node:os") as typeof import("node:os")).homedir();
  const cwd = io.cwd ?? process.cwd();
  let ctx: CommandContext;
  try {
    const settings = async (verifiedCopy?: (copy: string) => boolean) => {
      const projectFile = SKIPS_PROJECT_FILE.has(args.command) ? "skip" : "stop";
      const loaded = await loadSettings({ args, env, homeDir, cwd, verifiedCopy, projectFile });
      if (args.command !== "mcp-server") return loaded;
      const repos = loaded.config.git.repos.map((repo) => (typeof repo === "string" ? repo : repo.url));
      const skipped = repos.length
        ? [`mcp-server serves no git repository, so ${repos.join(", ")} is left out (${program()} serve serves it)`]
        : [];
      return { config: mcpServerSettings(loaded.config), warnings: [...loaded.warnings, ...skipped] };
    };
    const { config, warnings, projectError } = await settings();
    const stdioOnly = listeningOnStdio(args, config);
    for (const warning of [...args.ignored, ...(stdioOnly ? [stdioOnly] : [])])
      io.err(`skillhub: warning: ${warning}.\n`);
    for (const warning of namedFolderWarnings(config.sources)) io.err(`skillhub: warning: ${warning}.\n`);
    // A mistyped key is ignored: said by every command, not only by doctor and the server's log, since the
    // setting it meant (a skills folder, say) silently does not apply.
    if (!SAYS_CONFIG_WARNINGS.has(args.command))
      for (const warning of warnings) io.err(`skillhub: warning: config ${warning}\n`);
    const logger = createLogger({ level: config.log_level, write: io.err });
    // A server reads it all again once a repository is cloned, and after each sync (hub.ts reconfigure).
    const reloadConfig = config.git.repos.length > 0 ? settings : undefined;
    ctx = {
      args,
      config,
      configWarnings: warnings,
      projectError,
      env,
      homeDir,
      cwd,
      logger,
      out: io.out,
      err: io.err,
      reloadConfig,
    };
    return await command(ctx);
  } catch (error) {
    // A configuration or lock that stops a command: its message says which file and what to do.
    if (error instanceof ConfigError || (error instanceof SkillHubError && error.code.startsWith("LOCK_"))) {
      io.err(`skillhub: ${error.message}\n`);
      return 2;
    }
    // Any other failure is the command's, said and counted: a script (CI) must not take it for a success.
    io.err(`skillhub: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

/**
 * `mcp-server` is the `sk mcp-server [--root ./skills]` command line: skills.list and skills.search (the sk
 * profile, whatever SKILLHUB_TOOLS or a config file says) over stdio, reading `<project-root>/<root>`
 * (default `./skills`) and the explicit folders (--skills-dir, SKILLS_DIR, sources.dirs), nothing else: no other project
 * or personal folder, no plugin, no git repository (a project's skillhub.yaml or your own), so it never
 * fetches at start either.
 */
function mcpServerSettings(config: Config): Config {
  return {
    ...config,
    sources: { ...config.sources, only_dirs: true, project_skills: config.sources.project_skills ?? SK_DEFAULT_ROOT },
    server: { ...config.server, transport: "stdio", tools: "sk" },
    git: { ...config.git, repos: [] },
  };
}

/**
 * `skillhub serve --port 8000` without `--transport http` serves on stdio and drops where to listen: say what
 * to type instead. A warning, not a refusal: an MCP client's configuration that passes such a flag to its
 * stdio server kept working before, and must not lose its skills on an upgrade. The transport may come from
 * SKILLHUB_TRANSPORT or a config file, so this is judged on the settings, not on the command line alone.
 */
function listeningOnStdio(args: ParsedArgs, config: Config): string | undefined {
  if (args.command !== "serve" || config.server.transport !== "stdio") return undefined;
  const given = ["host", "port", "stateless"].filter((name) => args.flags[name] !== undefined);
  if (given.length === 0) return undefined;
  const typed = given.map((name) => (args.flags[name] === true ? `--${name}` : `--${name} ${args.flags[name]}`));
  return `option --${given[0]} is for a server over HTTP, and this one runs on stdio (the default) without it; to serve over HTTP: ${program()} serve --transport http ${typed.join(" ")}`;
}

/** Resolves once stdout has taken everything written so far (set when a write is buffered). */
let stdoutDrained: Promise<unknown> = Promise.resolve();

function stdout(text: string): void {
  if (!stdoutWatched) {
    stdoutWatched = true;
    // `skillhub list | head`: once the reader is gone the rest of the output has nowhere to go, and a
    // pending drain would wait for ever. Stop quietly, as a command killed by SIGPIPE would.
    process.stdout.on("error", (error) => {
      if (errnoCode(error) === "EPIPE") process.exit(0);
    });
  }
  if (!process.stdout.write(text)) stdoutDrained = new Promise((resolve) => process.stdout.once("drain", resolve));
}

/** Whether stdout's error listener is set (only CLI output goes through `stdout`; the server has its own). */
let stdoutWatched = false;

function stderr(text: string): void {
  process.stderr.write(text);
}

async function main(): Promise<void> {
  // zod compiles a parser (new Function) per object schema on its first parse: it pays off over
  // thousands of parses of one schema, but a server's first requests each parse another schema
  // (initialize, tools/list, each tool's arguments), so the compiling only delays them.
  z.config({ jitless: true });
  // A client that closed our stderr (or died) makes the next log line fail with EPIPE. Unhandled, that
  // error was an uncaught exception whose handler below wrote to stderr again: a loop at 100% CPU that
  // never let a signal handler or stdin's end run. With stderr gone, logs have nowhere to go: drop them.
  process.stderr.on("error", () => undefined);
  // Last line of defence: log to stderr and keep serving; stdout stays the protocol's.
  process.on("uncaughtException", (error) =>
    createLogger({ write: stderr }).error(`unexpected error: ${error?.stack ?? errorMessage(error)}`),
  );
  process.on("unhandledRejection", (reason) =>
    createLogger({ write: stderr }).error(`unexpected rejection: ${errorMessage(reason)}`),
  );
  // A client may stop us before the server is up (a slow disk, a big catalog): exit 0 then too.
  // Once a transport listens for the signal it does the graceful shutdown instead.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(0);
    });
  }
  const code = await run(process.argv.slice(2), process.env);
  // A pipe takes 64 KiB at a time: let pending output (validate --json, list --json) drain before exiting.
  await stdoutDrained;
  process.exit(code);
}

if (import.meta.main) await main();
