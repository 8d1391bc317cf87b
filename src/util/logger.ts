import { oneLine } from "./shown-arg.ts";
import { scrubUrlCredentials } from "./url-credentials.ts";

/**
 * The one logger. Everything goes to stderr: on stdio, stdout carries JSON-RPC only. Each call writes one
 * line: control characters in a message (line breaks included) are written as `\uXXXX`.
 */
export const LOG_LEVELS = ["DEBUG", "INFO", "WARN", "ERROR", "SILENT"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** The active level, so callers can skip building expensive debug text. */
  readonly level: LogLevel;
}

export interface LoggerOptions {
  /** Minimum level written. Default INFO. */
  level?: LogLevel;
  /** Where lines go. Default: process.stderr. Tests pass an array collector. */
  write?: (line: string) => void;
  /** Clock for the timestamp. Default: Date.now. */
  now?: () => number;
  /** Prefix for each line. Default "skillhub". */
  name?: string;
}

const rank: Record<LogLevel, number> = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3, SILENT: 4 };

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? "INFO";
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const now = options.now ?? Date.now;
  const name = options.name ?? "skillhub";
  const emit = (at: LogLevel, message: string) => {
    if (rank[at] < rank[level]) return;
    // Security: a URL with credentials (a repository URL in an error) never reaches the log, and one call
    // writes one line: a line break in the outside text a message quotes cannot forge another entry.
    write(`${new Date(now()).toISOString()} ${name} ${at.padEnd(5)} ${oneLine(scrubUrlCredentials(message))}\n`);
  };
  return {
    level,
    debug: (m) => emit("DEBUG", m),
    info: (m) => emit("INFO", m),
    warn: (m) => emit("WARN", m),
    error: (m) => emit("ERROR", m),
  };
}

/** A logger that keeps lines in memory; for tests and for commands that print their own output. */
export function createMemoryLogger(level: LogLevel = "DEBUG"): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level, write: (line) => lines.push(line.trimEnd()) });
  return Object.assign(logger, { lines });
}
