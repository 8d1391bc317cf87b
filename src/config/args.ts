import { closestWord } from "../util/close-names.ts";
import { ConfigError } from "../util/errors.ts";
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
  // Shared by every command; mapped onto config keys (flag-settings.ts FLAG_SETTINGS).
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

/** The command options (beside the shared ones, --config, --help and --version) each command reads. */
const COMMAND_OPTIONS: Record<Command, readonly (keyof typeof OPTIONS)[]> = {
  serve: [],
  "mcp-server": [],
  list: ["json", "all"],
  search: ["json", "limit"],
  show: [],
  validate: ["json"],
  doctor: ["json", "all"],
  sync: ["json", "update"],
  lock: ["json"],
  verify: ["json"],
  stats: ["json", "since"],
  "print-config": ["http"],
  ui: ["open"],
  add: ["global", "ref", "path"],
  remove: ["global", "path"],
  sources: ["json"],
};

/**
 * Where a server listens: read by the commands that open one (mcp-server is stdio only) and by doctor,
 * which shows the settings they make. Every other config flag shapes the catalog every command reads.
 */
const LISTENING: Partial<Record<Command, readonly string[]>> = {
  serve: ["transport", "host", "port", "stateless"],
  doctor: ["transport", "host", "port", "stateless"],
  ui: ["host", "port"],
};
const LISTENING_OPTIONS = new Set(LISTENING.serve);

/** The options `command` reads beside those every command takes: what its `--help` must name. */
export function commandOptionNames(command: Command): string[] {
  return [...COMMAND_OPTIONS[command], ...(LISTENING[command] ?? [])];
}

/** Options no command reads on its own: every command takes them. */
const EVERY_COMMAND = new Set(["config", "help", "version"]);

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
    throw new ConfigError(dashHint(argv, error) ?? usageMessage(error));
  }
  const [first, ...rest] = parsed.positionals;
  // `skillhub help [COMMAND]`, as many command lines take it, after options too (`--project X help`).
  if (first === "help") return parseCommandLine(rest[0] === undefined ? ["--help"] : [rest[0], "--help"]);
  let command: Command = "serve";
  let positionals = parsed.positionals;
  if (first !== undefined) {
    if (!(COMMANDS as readonly string[]).includes(first)) {
      const folder = /[/\\.~]/.test(first) ? ` To serve a skills folder: skillhub --skills-dir ${first}` : "";
      const close = closestCommand(first);
      const guess = close && !folder ? ` Did you mean '${close}'?` : "";
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
  if (values.help !== true) refuseOthersOptions(command, values);
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

/** A command option given to a command that does not read it is an error, not something to ignore. */
function refuseOthersOptions(command: Command, values: Record<string, unknown>): void {
  const own: readonly string[] = COMMAND_OPTIONS[command];
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || EVERY_COMMAND.has(name) || own.includes(name)) continue;
    if (LISTENING_OPTIONS.has(name)) {
      if (LISTENING[command]?.includes(name)) continue;
      // Saying what mcp-server does anyway is no mistake.
      if (command === "mcp-server" && name === "transport" && value === "stdio") continue;
      const instead =
        command === "mcp-server"
          ? "mcp-server runs on stdio only (skillhub serve --transport http serves over HTTP)"
          : "only serve (and ui, with --host and --port) opens a server";
      throw new ConfigError(`option --${name} does not apply to ${command}: ${instead}.`, {
        key: name,
        value: command,
      });
    }
    if (CONFIG_FLAGS.has(name)) continue;
    const takes =
      own.length > 0 ? `its own options are ${own.map((o) => `--${o}`).join(", ")}` : "it has no options of its own";
    throw new ConfigError(`option --${name} does not apply to ${command}: ${takes}.`, { key: name, value: command });
  }
}

function usageMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const word = unknown[1] ?? "";
    const close = word.startsWith("--") ? closestWord(word.slice(2), Object.keys(OPTIONS)) : undefined;
    return `unknown option ${word}.${close ? ` Did you mean --${close}?` : ""}`;
  }
  const missing = /Option '([^' ]+)[^']*' argument missing/.exec(message);
  if (missing) return `option ${missing[1]?.split(",").pop()?.trim()} needs a value.`;
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
  const isValue = (list: readonly string[], i: number) => {
    const option = list[i - 1] ?? "";
    return option.startsWith("--") && !option.includes("=") && OPTIONS_TAKING_VALUES.has(option.slice(2));
  };
  const odd = words.find((w, i) => /^-[^-].+/.test(w) && !known.has(w) && !isValue(words, i));
  if (odd === undefined) return undefined;
  // The same command line with the name moved after --: every word after -- is part of the name. The
  // command may come after options (`--project X show`); without one, the name is a skill's to show.
  const others = words.filter((w) => w !== odd);
  const named = others.some((w, i) => (COMMANDS as readonly string[]).includes(w) && !isValue(others, i));
  const line = [...(named ? [] : ["show"]), ...others, "--", odd, ...(end === -1 ? [] : argv.slice(end + 1))];
  return `unknown option ${odd}. If it is a name, not an option, put -- before it: skillhub ${shellWords(line)}`;
}

/** The command nearest a mistyped one (close-names.ts), if any. */
function closestCommand(word: string): string | undefined {
  return closestWord(word, COMMANDS);
}
