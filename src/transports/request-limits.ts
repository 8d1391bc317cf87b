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

/**
 * 1,024 characters: the longest tool or prompt name a request may name. Tool names are at most 128
 * characters, skill (and so prompt) names 64; the SDK quotes an unknown name whole in its error.
 */
export const MAX_NAME_CHARS = 1024;

/** The string params a request may carry, each with its limit and where a client finds good values. */
const LIMITS = [
  { key: "uri", max: MAX_URI_CHARS, hint: "Use the skill:// URIs that resources/list and the tools return." },
  { key: "name", max: MAX_NAME_CHARS, hint: "tools/list and prompts/list give the names." },
] as const;

/** A JSON-RPC request refused before it reaches the server, and the sentence that says why. */
export interface Refusal {
  id: string | number;
  message: string;
}

/**
 * Security: the SDK matches a request's URI against every resource template before any handler runs,
 * and fails on one over a million characters with an internal error; it echoes an unknown name of
 * megabytes back whole. Pure.
 * Returns the refusal for `message` (one parsed JSON-RPC message), or undefined when it may pass.
 */
export function refuseRequest(message: unknown): Refusal | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const { id, params } = message as { id?: unknown; params?: unknown };
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  if (typeof params !== "object" || params === null) return undefined;
  for (const { key, max, hint } of LIMITS) {
    const value = (params as Record<string, unknown>)[key];
    if (typeof value === "string" && value.length > max)
      return {
        id,
        message: `Invalid params: the ${key} is ${value.length} characters long; SkillHub takes ${key === "uri" ? "URIs" : "names"} of at most ${max} characters. ${hint}`,
      };
  }
  return undefined;
}
