import {
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { nextTurn } from "../util/next-turn.ts";

/** The JSON-RPC code of a cancelled request's answer (the one LSP gives it; MCP names none). */
export const REQUEST_CANCELLED = -32800;

type Id = string | number;

/** The messages of a POST body, one or a batch, as objects. */
export function messagesOf(body: unknown): Record<string, unknown>[] {
  return (Array.isArray(body) ? body : [body]).filter(
    (m): m is Record<string, unknown> => typeof m === "object" && m !== null,
  );
}

const isId = (id: unknown): id is Id => typeof id === "string" || typeof id === "number";

/** The ids of the requests that a POST body's notifications/cancelled name. */
export function cancelledIds(body: unknown): Id[] {
  return messagesOf(body).flatMap((m) => {
    const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
    return m.method === "notifications/cancelled" && isId(id) ? [id] : [];
  });
}

/**
 * A session's transport that knows which of its client's requests are not answered yet, so that a
 * cancelled one can be answered once, and only while nothing else answered it.
 *
 * Security: the SDK sends no answer to a cancelled request, and a session's transport keeps each
 * unanswered request's route to its response stream until the session ends, the stream itself open
 * until the client drops it. A client cancelling its calls in a long session grew the server's memory
 * without end (about 440 bytes a call). The answer, which a client ignores for a request it gave up
 * on, ends the stream and drops the route.
 */
export class AnsweringTransport extends WebStandardStreamableHTTPServerTransport {
  private readonly open = new Set<Id>();

  /**
   * Handle a POST whose body is already parsed, noting its requests as open first (a quick handler
   * may answer before this returns); a body the SDK refuses opens none. Then answer the requests
   * its cancellations name that are still open, once the SDK has stopped them.
   */
  async handlePost(request: Request, parsedBody: unknown): Promise<Response> {
    const ids = messagesOf(parsedBody).flatMap((m) => (typeof m.method === "string" && isId(m.id) ? [m.id] : []));
    for (const id of ids) this.open.add(id);
    const response = await this.handleRequest(request, { parsedBody });
    if (!response.ok) for (const id of ids) this.open.delete(id);
    const cancelled = cancelledIds(parsedBody);
    if (response.ok && cancelled.length > 0) void this.answerCancelled(cancelled);
    return response;
  }

  override async send(message: JSONRPCMessage, options?: { relatedRequestId?: Id }): Promise<void> {
    if (("result" in message || "error" in message) && isId(message.id)) this.open.delete(message.id);
    return super.send(message, options);
  }

  private async answerCancelled(ids: readonly Id[]): Promise<void> {
    // The SDK stops a call in a task after the one that read its cancellation: an answer it sent first wins.
    await nextTurn();
    for (const id of ids) {
      if (!this.open.has(id)) continue;
      const answer: JSONRPCErrorResponse = {
        jsonrpc: "2.0",
        id,
        error: { code: REQUEST_CANCELLED, message: "Request cancelled" },
      };
      // Refused when the request has no route left (the session closed meanwhile).
      await this.send(answer).catch(() => undefined);
    }
  }
}
