import { parseArgs } from "node:util";
import { ConfigError } from "../util/errors.ts";

export const COMMANDS = [
  "serve",
  "list",
  "search",
  "show",
  "validate",
  "doctor",
  "sync",
  "stats",
  "print-config",
] as const;
export type Command = (typeof COMMANDS)[number];

const OPTIONS = {
  // Shared by every command; mapped onto config keys (settings.ts FLAG_SETTINGS).
  "skills-dir": { type: "string", multiple: true },
  project: { type: "string" },
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
  // Command options.
  config: { type: "string" },
  json: { type: "boolean" },
  all: { type: "boolean" },
  limit: { type: "string" },
  http: { type: "string" },
  since: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

export interface ParsedArgs {
  command: Command;
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
    help: boolean;
    version: boolean;
  };
}

const CONFIG_FLAGS = new Set([
  "skills-dir",
  "project",
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
]);

/** argv (without node and script) → command, positionals and flags. Throws ConfigError on a usage error. */
export function parseCommandLine(argv: string[]): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(usageMessage(error));
  }
  const [first, ...rest] = parsed.positionals;
  let command: Command = "serve";
  let positionals = parsed.positionals;
  if (first !== undefined) {
    if (!(COMMANDS as readonly string[]).includes(first)) {
      const folder = /[/\\.~]/.test(first) ? ` To serve a skills folder: skillhub --skills-dir ${first}` : "";
      throw new ConfigError(`unknown command "${first}". Commands: ${COMMANDS.join(", ")}.${folder}`);
    }
    command = first as Command;
    positionals = rest;
  }
  const values = parsed.values as Record<string, unknown>;
  const flags: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) if (CONFIG_FLAGS.has(name)) flags[name] = value;
  return {
    command,
    positionals,
    flags,
    options: {
      config: values.config as string | undefined,
      json: values.json === true,
      all: values.all === true,
      limit: values.limit as string | undefined,
      http: values.http as string | undefined,
      since: values.since as string | undefined,
      help: values.help === true,
      version: values.version === true,
    },
  };
}

function usageMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}.`;
  const missing = /Option '([^']+)' argument missing/.exec(message);
  if (missing) return `option ${missing[1]?.split(",").pop()?.trim()} needs a value.`;
  return message.split(". ")[0] ?? message;
}
