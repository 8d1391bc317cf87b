import type { CallToolResult } from "@modelcontextprotocol/server";

/** Error codes of DESIGN §8. */
export type ErrorCode =
  | "SKILL_NOT_FOUND"
  | "SKILL_DISABLED"
  | "FILE_NOT_FOUND"
  | "PATH_OUTSIDE_SKILL"
  | "FILE_TOO_LARGE"
  | "COMMAND_NOT_ALLOWED"
  | "COMMANDS_DISABLED"
  | "SCRIPTS_DISABLED"
  | "SCRIPT_NOT_DECLARED"
  | "SCRIPT_NOT_SERVER"
  | "EXTENSION_NOT_ALLOWED"
  | "MISSING_ARGS"
  | "EXECUTION_TIMEOUT"
  | "NO_RUNNER"
  | "INVALID_ARGUMENT"
  | "INTERNAL_ERROR";

/** A plain text result (the `skill` tool, seed 004). */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

/** Structured content plus its text mirror (JSON unless a text is given). */
export function structuredResult(data: Record<string, unknown>, text?: string): CallToolResult {
  return { content: [{ type: "text", text: text ?? JSON.stringify(data, null, 2) }], structuredContent: data };
}

/**
 * An expected failure: `isError` with `{ error: { code, message, ...details } }`
 * and a text a model can act on. `text` overrides the text (seed 004's
 * not-found listing).
 */
export function errorResult(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  text?: string,
): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: text ?? `${code}: ${message}` }],
    structuredContent: { error: { code, message, ...details } },
  };
}
