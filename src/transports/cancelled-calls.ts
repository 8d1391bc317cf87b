import {
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
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
 * A session's transport (or a stateless request's) that knows which of its client's requests are not
 * answered yet, so that a cancelled one can be answered once, and only while nothing else answered it;
 * and that cancels the requests of a client that hung up before their answers came.
 *
 * Security: the SDK sends no answer to a cancelled request, and a session's transport keeps each
 * unanswered request's route to its response stream until the session ends, the stream itself open
 * until the client drops it. A client cancelling its calls in a long session grew the server's memory
 * without end (about 440 bytes a call). The answer, which a client ignores for a request it gave up
 * on, ends the stream and drops the route.
 */
export class AnsweringTransport extends WebStandardStreamableHTTPServerTransport {
  /** The requests not answered yet, each with the signal of the HTTP request that carried it. */
  private readonly open = new Map<Id, AbortSignal>();

  /**
   * Handle a POST whose body is already parsed, noting its requests as open first (a quick handler
   * may answer before this returns); a body the SDK refuses opens none. Then answer the requests
   * its cancellations name that are still open, once the SDK has stopped them.
   *
   * Security: when the client hangs up (the request's signal aborts: Bun.serve's does when its
   * connection closes) before the POST's requests are answered, they are cancelled as its
   * notifications/cancelled would: nobody is left to read their answers, and a script a call runs would
   * otherwise go on until its timeout, holding one of the server's run slots.
   */
  async handlePost(request: Request, parsedBody: unknown): Promise<Response> {
    const ids = messagesOf(parsedBody).flatMap((m) => (typeof m.method === "string" && isId(m.id) ? [m.id] : []));
    const signal = request.signal;
    for (const id of ids) this.open.set(id, signal);
    const hungUp = () => this.hungUp(signal);
    const watched = ids.length > 0 && !signal.aborted;
    if (watched) signal.addEventListener("abort", hungUp, { once: true });
    const response = await this.handleRequest(request, { parsedBody });
    if (!response.ok) {
      signal.removeEventListener("abort", hungUp);
      for (const id of ids) if (this.open.get(id) === signal) this.open.delete(id);
    } else if (ids.length > 0 && !watched) hungUp();
    const cancelled = cancelledIds(parsedBody);
    if (response.ok && cancelled.length > 0) void this.answerCancelled(cancelled);
    return response;
  }

  override async send(message: JSONRPCMessage, options?: { relatedRequestId?: Id }): Promise<void> {
    if (("result" in message || "error" in message) && isId(message.id)) this.open.delete(message.id);
    return super.send(message, options);
  }

  /** The client of the POST whose signal is `signal` went away: its requests still open are cancelled. */
  private hungUp(signal: AbortSignal): void {
    const ids = [...this.open].flatMap(([id, carried]) => (carried === signal ? [id] : []));
    if (ids.length === 0) return;
    for (const id of ids) {
      const cancel: JSONRPCNotification = {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "The client closed its connection before the answer came." },
      };
      // Delivered as if the client had sent it: the SDK aborts the request's handler (its run ends).
      this.onmessage?.(cancel);
    }
    // The answers drop the routes, and end a stateless request's wait for them (its JSON answer).
    void this.answerCancelled(ids);
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
