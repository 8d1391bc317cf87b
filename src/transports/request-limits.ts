/**
 * Limits on what one JSON-RPC request may name, checked where requests arrive (HTTP and stdio), before
 * the SDK sees them: past these, the SDK answers with an internal error (HTTP 500) that tells the client
 * nothing it can act on.
 */

/**
 * 8,192 characters: the longest resource URI a request may name. A skill:// URI is a skill name and a
 * path in its folder; a path of 4,096 bytes (the usual file system limit) fits. Kept under Bun's 16 KiB
 * of request headers, which a 2026-07-28 request spends on the URI too (Mcp-Name): past those, Bun
 * answers 431 before SkillHub sees the request.
 */
export const MAX_URI_CHARS = 8192;

/** A JSON-RPC request refused before it reaches the server, and the sentence that says why. */
export interface Refusal {
  id: string | number;
  message: string;
}

/**
 * Security: the SDK matches a request's URI against every resource template before any handler runs,
 * and fails on one over a million characters with an internal error. Pure.
 * Returns the refusal for `message` (one parsed JSON-RPC message), or undefined when it may pass.
 */
export function refuseRequest(message: unknown): Refusal | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { id, params } = message as { id?: unknown; params?: unknown };
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const uri = typeof params === "object" && params !== null ? (params as { uri?: unknown }).uri : undefined;
  if (typeof uri !== "string" || uri.length <= MAX_URI_CHARS) return undefined;
  return {
    id,
    message: `Invalid params: the uri is ${uri.length} characters long; SkillHub takes URIs of at most ${MAX_URI_CHARS} characters. Use the skill:// URIs that resources/list and the tools return.`,
  };
}
