import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { jsonRefusal, RPC, requestIdOf } from "./http-responses.ts";
import { toJSONRPCMessage } from "./jsonrpc-message.ts";
import { refuseRequest } from "./request-limits.ts";

/** What LineTransport reads: `data` (Buffer chunks), `end`, `close` and `error` events (process.stdin). */
export interface InputStream {
  on(event: string, listener: (arg: Buffer) => void): unknown;
  off(event: string, listener: (arg: Buffer) => void): unknown;
}

/** 4 MiB: the same ceiling as an HTTP body; far above any JSON-RPC message SkillHub expects. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface LineTransportOptions {
  stdin: InputStream;
  stdout: NodeJS.WritableStream;
  /** Longest message line (bytes, newline excluded). Default MAX_LINE_BYTES. */
  maxLineBytes?: number;
  /** Told about each line answered with an error (for the log). */
  onRejected?: (reason: string) => void;
  /** Told as each message is handed over (a waiting memory release waits for quiet again). */
  onMessage?: () => void;
  /** Told about each answer that could not be written, which its request gets an error in place of (for the log). */
  onUnsent?: (reason: string) => void;
  /** How long stdin's end waits for requests in flight to be answered (ms). Default 5,000. */
  drainMs?: number;
}

/**
 * Newline-delimited JSON-RPC over stdin/stdout, written here rather than
 * taken from the SDK because the SDK's stdio transport skips a non-JSON line
 * without a word and closes the connection on an oversized one. This one
 * answers both with a JSON-RPC error (-32700, -32600) and keeps serving the
 * next line; stdin's end closes it (`onclose`).
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly stdin: InputStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly maxLineBytes: number;
  private readonly onRejected?: (reason: string) => void;
  private readonly onMessage?: () => void;
  private readonly onUnsent?: (reason: string) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes of an oversized line are dropped until its newline. */
  private discarding = false;
  private closed = false;
  private started = false;
  /** Requests read and not yet answered, with their methods: stdin's end waits for them (bounded by `drainMs`). */
  private readonly pending = new Map<string | number, string>();
  private readonly drainMs: number;
  private drained?: () => void;

  constructor(options: LineTransportOptions) {
    this.stdin = options.stdin;
    this.stdout = options.stdout;
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.onRejected = options.onRejected;
    this.onMessage = options.onMessage;
    this.onUnsent = options.onUnsent;
    this.drainMs = options.drainMs ?? 5000;
  }

  /** Idempotent: the connection's entry starts it to read the first message, then the server connects. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("end", this.onEnd);
    this.stdin.on("close", this.onEnd);
    this.stdin.on("error", this.onEnd);
  }

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (;;) {
      const newline = data.indexOf(0x0a);
      const part = newline < 0 ? data : data.subarray(0, newline);
      if (!this.discarding) {
        if (this.size + part.length > this.maxLineBytes) {
          this.discarding = true;
          this.chunks = [];
          this.size = 0;
          this.reject(
            RPC.INVALID_REQUEST,
            `Request too large: a message must not exceed ${this.maxLineBytes} bytes; it was dropped.`,
            null,
          );
        } else {
          this.chunks.push(part);
          this.size += part.length;
        }
      }
      if (newline < 0) return;
      if (!this.discarding) this.line(Buffer.concat(this.chunks));
      this.discarding = false;
      this.chunks = [];
      this.size = 0;
      data = data.subarray(newline + 1);
    }
  };

  private line(bytes: Buffer): void {
    const trimmed = bytes.toString("utf8").replace(/\r$/, "");
    if (trimmed.trim() === "") return;
    const refused = jsonRefusal(bytes);
    if (refused) {
      this.reject(RPC.PARSE_ERROR, `Parse error: ${refused}; the line was dropped.`, requestIdOf(bytes));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      this.reject(
        RPC.PARSE_ERROR,
        "Parse error: the line is not valid JSON. Send one JSON-RPC message per line.",
        null,
      );
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = toJSONRPCMessage(value);
    } catch {
      const id = (value as { id?: unknown } | null)?.id;
      this.reject(
        RPC.INVALID_REQUEST,
        "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message.",
        typeof id === "string" || typeof id === "number" ? id : null,
      );
      return;
    }
    const refusal = refuseRequest(message);
    if (refusal) {
      this.reject(RPC.INVALID_PARAMS, refusal.message, refusal.id);
      return;
    }
    const request = "method" in message && "id" in message ? message : undefined;
    const id = request?.id;
    if (request !== undefined) this.pending.set(request.id, request.method);
    this.onMessage?.();
    try {
      this.onmessage?.(message);
      // A cancelled request gets no answer (the protocol says so): stdin's end no longer waits for it.
      if ("method" in message && message.method === "notifications/cancelled") this.answered(message.params?.requestId);
    } catch (error) {
      // A throw while handing the message over (the SDK's entry answered one as an internal error).
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      if (id !== undefined) this.sendInternalError(id);
    }
  }

  /** Answer request `id` with an internal error, as the SDK does for a server that failed it. */
  sendInternalError(id: string | number): void {
    this.send({ jsonrpc: "2.0", id, error: { code: RPC.INTERNAL_ERROR, message: "Internal server error" } }).catch(
      () => undefined,
    );
  }

  private reject(code: number, message: string, id: string | number | null): void {
    this.onRejected?.(message);
    this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`).catch(() => undefined);
  }

  /** The client closed stdin: answer what it already asked (a client may send, then close), then close. */
  private readonly onEnd = () => {
    if (this.closed) return;
    if (this.pending.size === 0) {
      void this.close();
      return;
    }
    const timer = setTimeout(() => void this.close(), this.drainMs);
    this.drained = () => {
      clearTimeout(timer);
      void this.close();
    };
  };

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(`${this.serialised(message)}\n`);
    if (!("method" in message) && "id" in message) this.answered(message.id);
  }

  /**
   * The message as one JSON line; an answer that cannot be written (a value JSON has no form for, or one
   * too large for the runtime to hold as a string, which throws RangeError) is replaced by an internal error
   * for its request: the SDK would only report the failure, and the request would wait for ever.
   */
  private serialised(message: JSONRPCMessage): string {
    try {
      return JSON.stringify(message);
    } catch (error) {
      if ("method" in message || !("id" in message) || message.id === null || message.id === undefined) throw error;
      const id = message.id;
      const method = this.pending.get(id) ?? "a request";
      const why = error instanceof Error ? error.name : "Error";
      this.onUnsent?.(
        `the answer to ${method} (id ${JSON.stringify(id)}) could not be written as JSON (${errorText(error)}); the request gets an internal error instead`,
      );
      return JSON.stringify({
        jsonrpc: "2.0",
        id,
        error: {
          code: RPC.INTERNAL_ERROR,
          message: `The answer to ${method} could not be sent: it could not be written as JSON (${why}). Retry, ask for less, or report this with the server's stderr log.`,
        },
      });
    }
  }

  /** Request `id` needs no answer any more: answered, or cancelled by the client. */
  private answered(id: unknown): void {
    if ((typeof id !== "string" && typeof id !== "number") || !this.pending.delete(id)) return;
    if (this.pending.size === 0) this.drained?.();
  }

  private write(text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      try {
        this.stdout.write(text, (error) => (error ? reject(error) : resolve()));
      } catch (error) {
        reject(error);
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("close", this.onEnd);
    this.stdin.off("error", this.onEnd);
    this.onclose?.();
  }
}

/** An error's name and message, for the log. */
function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
