/**
 * Errors carry a stable string code and keep their cause. JSON-RPC numbers
 * appear only at the protocol edge.
 */
export class SkillHubError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SkillHubError";
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** A bad configuration value or usage error: the CLI prints the message and exits 2. */
export class ConfigError extends SkillHubError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("CONFIG_INVALID", message, { details });
    this.name = "ConfigError";
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** errno code of a Node/Bun file-system error, if any. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
