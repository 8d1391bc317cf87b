import type { CallToolResult } from "@modelcontextprotocol/server";

/** Error codes of every tool's `isError` results. */
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
  | "TOO_MANY_RUNS"
  // The server holds as much as it takes at once: bytes of answers (answer-budget.ts; retry, or ask for less), or
  // analytics events waiting to be sent (report_usage; retry after the next flush, retry_after_seconds).
  | "SERVER_BUSY"
  // A client sent more of a kind of call than the server takes per minute (report_usage): retry later.
  | "RATE_LIMITED"
  | "INVALID_ARGUMENT"
  | "PERMISSION_DENIED"
  | "NOT_A_REGULAR_FILE"
  | "FILE_CHANGED"
  | "READ_TIMEOUT"
  | "INTERNAL_ERROR"
  // Frozen mode: not in skillhub.lock, differs from it, too large to lock, a file it does not list, or the lock cannot be read.
  | "SKILL_NOT_LOCKED"
  | "SKILL_LOCK_MISMATCH"
  | "SKILL_TOO_LARGE"
  | "FILE_NOT_LOCKED"
  | "LOCK_UNAVAILABLE";

/** A plain text result (the `skill` tool). */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

/** Structured content plus its text mirror (JSON unless a text is given). */
export function structuredResult(data: Record<string, unknown>, text?: string): CallToolResult {
  return { content: [{ type: "text", text: text ?? JSON.stringify(data, null, 2) }], structuredContent: data };
}

/**
 * A whole image a model can view: a text, then the image itself, with `data` as the structured content
 * (get_asset's keeps the base64, its contract; read_skill_file's says where to read the bytes from).
 */
export function imageResult(
  data: Record<string, unknown>,
  image: { base64: string; mimeType: string },
  text: string,
): CallToolResult {
  return {
    content: [
      { type: "text", text },
      { type: "image", data: image.base64, mimeType: image.mimeType },
    ],
    structuredContent: data,
  };
}

/**
 * An expected failure: `isError` with `{ error: { code, message, ...details } }`
 * and a text a model can act on. `text` overrides the text (the skill
 * tool's not-found listing).
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

/**
 * The tree-family tools (get_skill, get_asset, list_skills,
 * run_script, report_usage, refresh_skills) put `JSON.stringify(result)` in
 * their text content, errors included, so a client written against the tree
 * tools' contract can `JSON.parse` the text. `isError` and the structured content are kept.
 * Other content (an image) is kept after the text. A result without structured content is returned as it is.
 */
export function withJsonText(result: CallToolResult): CallToolResult {
  if (result.structuredContent === undefined) return result;
  const text = { type: "text" as const, text: JSON.stringify(result.structuredContent) };
  return { ...result, content: [text, ...result.content.filter((c) => c.type !== "text")] };
}

/** The tree-family tools, whose every answer (argument errors included) has the JSON text. */
export const JSON_TEXT_TOOLS: ReadonlySet<string> = new Set([
  "get_skill",
  "get_asset",
  "list_skills",
  "run_script",
  "report_usage",
  "refresh_skills",
]);

/** Wrap a tree-family tool's handler so that every answer it gives carries the JSON text. */
export function jsonTextHandler<A extends unknown[]>(
  handler: (...args: A) => Promise<CallToolResult>,
): (...args: A) => Promise<CallToolResult> {
  return async (...args) => withJsonText(await handler(...args));
}
