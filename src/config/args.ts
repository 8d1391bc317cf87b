import { closestWord } from "../util/close-names.ts";
import { ConfigError } from "../util/errors.ts";
import { program } from "../util/program-name.ts";
import { shellWords } from "../util/shell-words.ts";
import { type OptionSpec, type ParsedArgv, parseArgv } from "./argv.ts";

export const COMMANDS = [
  "serve",
  "list",
  "search",
  "show",
  "validate",
  "doctor",
  "sync",
  "lock",
  "verify",
  "stats",
  "print-config",
  "ui",
  "add",
  "remove",
  "sources",
  "mcp-server",
] as const;
export type Command = (typeof COMMANDS)[number];

const OPTIONS = {
  // Settings, mapped onto config keys (flag-settings.ts FLAG_SETTINGS); READS says which commands take each.
  "skills-dir": { type: "string", multiple: true },
  project: { type: "string" },
  root: { type: "string" },
  "no-watch": { type: "boolean" },
  "no-prompts": { type: "boolean" },
  transport: { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  stateless: { type: "boolean" },
  tools: { type: "string" },
  reindex: { type: "boolean" },
  "skip-auto-reindex": { type: "boolean" },
  "enable-commands": { type: "boolean" },
  "log-level": { type: "string" },
  home: { type: "string" },
  frozen: { type: "boolean" },
  // Command options.
  config: { type: "string" },
  json: { type: "boolean" },
  all: { type: "boolean" },
  limit: { type: "string" },
  http: { type: "string" },
  since: { type: "string" },
  open: { type: "boolean" },
  update: { type: "boolean" },
  global: { type: "boolean" },
  ref: { type: "string" },
  path: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const satisfies Record<string, OptionSpec>;

/** Which skills are read: every command that reads the catalog takes them. */
const SKILLS = ["skills-dir", "project", "root", "frozen"] as const;
/** The same, for the commands that write skillhub.lock: --frozen keeps the lock as it is. */
const LOCK_WRITERS = SKILLS.filter((o) => o !== "frozen");
/** The same, for add and remove: a folder they add or remove is named after them (`skillhub add DIR`). */
const SOURCE_WRITERS = LOCK_WRITERS.filter((o) => o !== "skills-dir");
/** The saved search index: read where search_skills answers. */
const INDEX = ["reindex", "skip-auto-reindex"] as const;
/** How a server serves the skills: read by the commands that run one, shown by doctor, kept by print-config. */
const SERVING = ["tools", "no-watch", "no-prompts", ...INDEX, "enable-commands"] as const;
/** Where an HTTP server listens. */
const LISTENING = ["transport", "host", "port", "stateless"] as const;

type OptionName = keyof typeof OPTIONS;

/**
 * Every option each command reads, beside those every command takes (EVERY_COMMAND): its `--help` lists
 * them, and any other is refused. The one table of who reads what.
 */
const READS: Record<Command, readonly OptionName[]> = {
  serve: [...SKILLS, ...SERVING, ...LISTENING],
  // The sk profile over stdio (cli.ts mcpServerSettings): no other tool, no search index, no HTTP.
  "mcp-server": [...SKILLS, "no-watch", "no-prompts"],
  list: ["json", "all", ...SKILLS],
  search: ["json", "limit", ...SKILLS, ...INDEX],
  show: [...SKILLS],
  // The folders named, as they are: no project, no configured folder.
  validate: ["json"],
  doctor: ["json", "all", ...SKILLS, ...SERVING, ...LISTENING],
  sync: ["json", "update", ...SKILLS],
  lock: ["json", "global", ...LOCK_WRITERS],
  verify: ["json", ...SKILLS],
  stats: ["json", "since", ...SKILLS],
  // The flags the printed config starts the server with (print-config.ts CARRIED); --reindex on every start is not one.
  "print-config": ["http", ...SKILLS, ...SERVING.filter((o) => o !== "reindex")],
  // The same HTTP server as serve's, on a free port by default; never stateless.
  ui: ["open", ...SKILLS, ...SERVING, "host", "port"],
  add: ["global", "ref", "path", ...SOURCE_WRITERS],
  remove: ["global", "path", ...SOURCE_WRITERS],
  sources: ["json", ...SKILLS],
};

/** Options every command takes and lists: where SkillHub's settings are, and its logs. */
const EVERY_COMMAND: readonly OptionName[] = ["config", "home", "log-level"];

/** A value that says what the command does anyway is no mistake (`mcp-server --transport stdio`). */
const FIXED: Partial<Record<Command, Partial<Record<OptionName, string>>>> = {
  "mcp-server": { transport: "stdio", tools: "sk" },
};

/** Every option `command` takes (beside --help and --version): what its `--help` must name. */
export function commandOptionNames(command: Command): OptionName[] {
  return [...READS[command], ...EVERY_COMMAND];
}

const toServeHttp = () => `to serve over HTTP: ${program()} serve --transport http [--port N]`;

const ADD_CHANGES_LOCK =
  "adding or removing a source changes skillhub.yaml and skillhub.lock, which --frozen keeps as they are: run it without --frozen";

/**
 * What to do instead of an option a command does not take, where a likely intent is known. Built when a
 * usage error needs it, as the commands it names are spelled as this program was run (program-name.ts).
 */
function insteadHints(): Partial<Record<Command, Partial<Record<OptionName, string>>>> {
  const skServes = `mcp-server serves skills.list and skills.search (the sk profile) over <project>/DIR (--root, default ./skills) and the --skills-dir folders; ${program()} serve --tools PROFILE|LIST serves other tools`;
  const stdioOnly = `mcp-server runs on stdio only (${program()} serve --transport http serves over HTTP)`;
  const sourceAfter = (command: string) => `name the folder after ${command} (${program()} ${command} DIR)`;
  return {
    serve: { http: `--http URL is print-config's (a client's config for a shared server); ${toServeHttp()}` },
    "mcp-server": {
      transport: stdioOnly,
      host: stdioOnly,
      port: stdioOnly,
      stateless: stdioOnly,
      tools: skServes,
      "enable-commands": skServes,
      reindex: skServes,
      "skip-auto-reindex": skServes,
    },
    validate: { "skills-dir": `name the folders to lint after it (${program()} validate DIR...)` },
    lock: {
      frozen: `lock records what would be served now, and --frozen keeps skillhub.lock as it is; ${program()} verify compares the two`,
    },
    add: { frozen: ADD_CHANGES_LOCK, "skills-dir": sourceAfter("add") },
    remove: { frozen: ADD_CHANGES_LOCK, "skills-dir": sourceAfter("remove") },
  };
}

/** The options a value follows. */
const OPTIONS_TAKING_VALUES = new Set(
  Object.entries(OPTIONS)
    .filter(([, spec]) => spec.type === "string")
    .map(([name]) => name),
);

export interface ParsedArgs {
  command: Command;
  /** The command was named on the command line (`skillhub list`), not taken as the default (serve). */
  named: boolean;
  positionals: string[];
  /** Flags that map to configuration keys. */
  flags: Record<string, unknown>;
  /** Why options were ignored rather than refused (a server a client starts: warnings, not errors). */
  ignored: string[];
  /** Everything else. */
  options: {
    config?: string;
    json: boolean;
    all: boolean;
    limit?: string;
    http?: string;
    since?: string;
    /** `ui --open`: open the page in the default browser. */
    open: boolean;
    /** sync: move pinned sources to their refs' current commits and rewrite the lock. */
    update: boolean;
    /** add, remove: the user's ~/.skillhub/config.yaml instead of the project's skillhub.yaml. */
    global: boolean;
    /** add: the tag, branch or commit to pin the repository to. */
    ref?: string;
    /** add: the skills folder inside the repository. */
    path?: string;
    help: boolean;
    version: boolean;
  };
}

const CONFIG_FLAGS = new Set([
  "skills-dir",
  "project",
  "root",
  "no-watch",
  "no-prompts",
  "transport",
  "host",
  "port",
  "stateless",
  "tools",
  "reindex",
  "skip-auto-reindex",
  "enable-commands",
  "log-level",
  "home",
  "frozen",
]);

/** argv (without node and script) → command, positionals and flags. Throws ConfigError on a usage error. */
export function parseCommandLine(argv: string[]): ParsedArgs {
  let parsed: ParsedArgv;
  try {
    parsed = parseArgv(argv, OPTIONS);
  } catch (error) {
    throw new ConfigError(dashHint(argv, error) ?? usageMessage(error, argv));
  }
  const [first, ...rest] = parsed.positionals;
  // `skillhub help [COMMAND]`, as many command lines take it, after options too (`--project X help`).
  if (first === "help") return parseCommandLine(rest[0] === undefined ? ["--help"] : [rest[0], "--help"]);
  let command: Command = "serve";
  let positionals = parsed.positionals;
  if (first !== undefined) {
    if (!(COMMANDS as readonly string[]).includes(first)) {
      const folder = /[/\\.~]/.test(first) ? ` To serve a skills folder: ${program()} --skills-dir ${first}` : "";
      // `skillhub version`, as other tools take it, is an option here.
      const close = first === "version" ? "--version" : closestCommand(first);
      // A client is connected with what `print-config CLIENT` prints: SkillHub writes no client's config.
      const connect = ["install", "setup", "connect", "add-client"].includes(first)
        ? ` To connect a client, run \`${program()} print-config CLIENT\` (claude-code, cursor, vscode, codex, gemini…): it prints the client's config and where it goes.`
        : "";
      const guess = close && !folder && !connect ? ` Did you mean '${close}'?` : connect;
      throw new ConfigError(`unknown command "${first}".${guess} Commands: ${COMMANDS.join(", ")}.${folder}`, {
        key: "command",
        value: first,
      });
    }
    command = first as Command;
    positionals = rest;
  }
  const values = parsed.values;
  // --help wins over an option the command does not take: the help says which it takes.
  const ignored = values.help === true ? [] : refuseOthersOptions(command, values);
  const flags: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) if (CONFIG_FLAGS.has(name)) flags[name] = value;
  if (command === "serve" && positionals.length > 0) {
    // `skillhub serve DIR...`: folders after serve are skills folders, after the --skills-dir ones. An
    // MCP Bundle's multiple-folder setting can only expand to one argument per folder, without a flag.
    flags["skills-dir"] = [...((flags["skills-dir"] as string[] | undefined) ?? []), ...positionals];
    positionals = [];
  }
  return {
    command,
    named: first !== undefined,
    positionals,
    flags,
    ignored,
    options: {
      config: values.config as string | undefined,
      json: values.json === true,
      all: values.all === true,
      limit: values.limit as string | undefined,
      http: values.http as string | undefined,
      since: values.since as string | undefined,
      open: values.open === true,
      update: values.update === true,
      global: values.global === true,
      ref: values.ref as string | undefined,
      path: values.path as string | undefined,
      help: values.help === true,
      version: values.version === true,
    },
  };
}

/**
 * An option given to a command that does not read it is an error, not something to ignore; except for
 * mcp-server, which MCP clients start: there it is dropped from `values` and said in a warning (returned), since
 * a client's configuration that passed it before must not lose its skills on an upgrade.
 */
function refuseOthersOptions(command: Command, values: Record<string, unknown>): string[] {
  const takes: readonly string[] = commandOptionNames(command);
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || takes.includes(name) || name === "version") continue;
    if (FIXED[command]?.[name as OptionName] === value) continue;
    const why = `option --${name} does not apply to ${command}: ${instead(command, name as OptionName)}`;
    if (command !== "mcp-server") throw new ConfigError(`${why}.`, { key: name, value: command });
    ignored.push(`${why}; ignored`);
    delete values[name];
  }
  return ignored;
}

/** Why `option` is refused by `command`, and what to type instead: a known intent, else what the command takes. */
function instead(command: Command, option: OptionName): string {
  const known = insteadHints()[command]?.[option];
  if (known) return known;
  if ((LISTENING as readonly string[]).includes(option))
    return "only serve (and ui, with --host and --port) opens a server";
  return `${command} takes ${commandOptionNames(command)
    .map((o) => `--${o}`)
    .join(", ")}`;
}

function usageMessage(error: unknown, argv: readonly string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const word = unknown[1] ?? "";
    if (word === "--stdio")
      return `unknown option --stdio: stdio is the default (${program()} serve, or --transport stdio).`;
    const close = word.startsWith("--") ? closestWord(word.slice(2), Object.keys(OPTIONS)) : undefined;
    return `unknown option ${word}.${close ? ` Did you mean --${close}?` : ""}`;
  }
  // `skillhub serve --http`: a guess at serving over HTTP, not print-config's URL.
  const valueless = /Option '(--[^' ]+)[^']*' argument (missing|is ambiguous)/.exec(message)?.[1];
  if (valueless === "--http" && !argv.includes("print-config"))
    return `option --http needs a URL, and only print-config takes it (${program()} print-config CLIENT --http URL: a client's config for a shared server); ${toServeHttp()}.`;
  const missing = /Option '([^' ]+)[^']*' argument missing/.exec(message);
  if (missing) return `option ${missing[1]?.split(",").pop()?.trim()} needs a value.`;
  const flag = /Option '(--[^']+)' does not take an argument/.exec(message)?.[1];
  if (flag) {
    const given = argv.find((word) => word.startsWith(`${flag}=`));
    return `option ${flag} takes no value${given ? ` (got ${given})` : ""}.`;
  }
  const dashed = /Option '(--[^']+)' argument is ambiguous/.exec(message);
  if (dashed)
    return `option ${dashed[1]} needs a value, and the next word starts with '-'. To give such a value, join it with '=': ${dashed[1]}=-value.`;
  return message.split(". ")[0] ?? message;
}

/**
 * A word that starts with "-" but is no option is usually a name
 * (`skillhub show -21risk-automation`): say that `--` ends the options.
 */
function dashHint(argv: readonly string[], error: unknown): string | undefined {
  if (!/Unknown option/.test(error instanceof Error ? error.message : String(error))) return undefined;
  const end = argv.indexOf("--");
  const words = end === -1 ? argv : argv.slice(0, end);
  const known = new Set(Object.keys(OPTIONS).map((o) => `--${o}`));
  for (const spec of Object.values(OPTIONS)) if ("short" in spec) known.add(`-${(spec as { short: string }).short}`);
  // "-21risk-automation" (one dash, a word) looks like a name; "--frobnicate" is just an unknown option.
  // A word after a string option is its value (`--limit -10`), not a name that needs `--`.
  const odd = words.find((w, i) => /^-[^-].+/.test(w) && !known.has(w) && !isOptionValue(words, i));
  if (odd === undefined) return undefined;
  // The same command line with the name moved after --: every word after -- is part of the name. The
  // command may come after options (`--project X show`); without one, the name is a skill's to show.
  const others = words.filter((w) => w !== odd);
  const named = others.some((w, i) => (COMMANDS as readonly string[]).includes(w) && !isOptionValue(others, i));
  const line = [...(named ? [] : ["show"]), ...others, "--", odd, ...(end === -1 ? [] : argv.slice(end + 1))];
  return `unknown option ${odd}. If it is a name, not an option, put -- before it: ${program()} ${shellWords(line)}`;
}

/**
 * The command `argv` names, found without parsing it whole (an unknown option stops the parse): the first
 * word that is neither an option nor an option's value, when it is a command. For the help a usage error
 * points to: `skillhub list --bogus` → `skillhub list --help`.
 */
export function namedCommand(argv: readonly string[]): Command | undefined {
  for (const [i, word] of argv.entries()) {
    if (word === "--") return undefined;
    if (word.startsWith("-") || isOptionValue(argv, i)) continue;
    return (COMMANDS as readonly string[]).includes(word) ? (word as Command) : undefined;
  }
  return undefined;
}

/** Whether `list[i]` is the value of the option before it (`--project list`), not a word of its own. */
function isOptionValue(list: readonly string[], i: number): boolean {
  const option = list[i - 1] ?? "";
  return option.startsWith("--") && !option.includes("=") && OPTIONS_TAKING_VALUES.has(option.slice(2));
}

/** The command nearest a mistyped one (close-names.ts), if any. */
function closestCommand(word: string): string | undefined {
  return closestWord(word, COMMANDS);
}
