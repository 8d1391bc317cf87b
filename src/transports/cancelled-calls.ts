import type { JSONRPCErrorResponse, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { nextTurn } from "../util/next-turn.ts";

/** The JSON-RPC code of a cancelled request's answer (the one LSP gives it; MCP names none). */
export const REQUEST_CANCELLED = -32800;

/** The ids of the requests that a POST body's notifications/cancelled name. */
export function cancelledIds(body: unknown): Array<string | number> {
  const ids: Array<string | number> = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== "object" || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
    const id = params?.requestId;
    if (method === "notifications/cancelled" && (typeof id === "string" || typeof id === "number")) ids.push(id);
  }
  return ids;
}

/**
 * Answer the session's requests that `ids` name with a "Request cancelled" error, once the SDK has
 * stopped them; a request answered before its cancellation came is left alone (nothing is sent).
 * Security: the SDK sends no answer to a cancelled request, and a session's transport keeps each
 * unanswered request's route to its response stream until the session ends, the stream itself open
 * until the client drops it. A client cancelling its calls in a long session grew the server's memory
 * without end (about 440 bytes a call). The answer, which a client ignores for a request it gave up
 * on, ends the stream and drops the route.
 */
export async function endCancelled(
  transport: WebStandardStreamableHTTPServerTransport,
  ids: readonly (string | number)[],
): Promise<void> {
  // The SDK stops a call in a task after the one that read its cancellation: an answer it sent first wins.
  await nextTurn();
  for (const id of ids) {
    const answer: JSONRPCErrorResponse = {
      jsonrpc: "2.0",
      id,
      error: { code: REQUEST_CANCELLED, message: "Request cancelled" },
    };
    // Refused when the request has no route left: it was answered, or never made.
    await transport.send(answer).catch(() => undefined);
  }
}
