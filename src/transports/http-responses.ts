/**
 * HTTP answers that never reach the MCP server: JSON-RPC error bodies with
 * the status the Streamable HTTP spec asks for, and the bounded body reader.
 * JSON-RPC numbers appear here, at the protocol edge, and nowhere else.
 */

import type { BodyRefusal, Reading } from "./http-bodies.ts";

/** JSON-RPC error codes used at the HTTP edge. */
export const RPC = {
  /** Invalid JSON. */
  PARSE_ERROR: -32700,
  /** Valid JSON that is not a JSON-RPC message, or a message over the size limit. */
  INVALID_REQUEST: -32600,
  /** A request whose params break a limit (request-limits.ts). */
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Transport-level refusals (the SDK uses the same code). */
  SERVER_ERROR: -32000,
  /** Unknown or expired session (the SDK's "Session not found"). */
  SESSION_NOT_FOUND: -32001,
} as const;

/** A JSON-RPC error response with `id: null`, as the SDK's transport sends them. */
export function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/**
 * The answer to JSON-RPC request `id` refused at the edge: the client's call fails with this error, as
 * if the server had answered it (HTTP 200 is what a 2025 client reads an answer from).
 */
export function rpcAnswerError(id: string | number, code: number, message: string, status = 200): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export type BodyResult =
  | { kind: "ok"; value: unknown; bytes: number }
  | { kind: "too-large" }
  | { kind: "refused"; refusal: BodyRefusal }
  | { kind: "too-slow" }
  | { kind: "invalid"; reason: string };

/** What bounds a body besides its size: the room it may hold while it arrives, and the time it may take. */
export interface BodyLimits {
  /** Told each part's bytes as it arrives (RequestBodies); a refusal stops the reading there. */
  reading?: Pick<Reading, "take">;
  /** Most milliseconds the whole body may take, and the timer that counts them. */
  deadline?: { ms: number; timer: (fire: () => void, ms: number) => () => void };
}

/**
 * Read and parse a JSON request body, stopping as soon as more than `maxBytes` have arrived, or `limits`
 * refuse a part, or its deadline passes. Security: a declared Content-Length over the limit is refused
 * before anything is read; any other body is read part by part as it arrives, so that neither a chunked
 * body nor a declared length sent slowly holds more than its parts so far, each counted before the next is
 * read. A body stopped part way is cancelled: its connection is closed once the answer is sent.
 */
export async function readJsonBody(request: Request, maxBytes: number, limits: BodyLimits = {}): Promise<BodyResult> {
  const length = request.headers.get("content-length");
  if (length !== null && Number(length) > maxBytes) return { kind: "too-large" };
  if (request.body === null) return { kind: "invalid", reason: "empty body" };
  const reader = request.body.getReader();
  const stop = () => reader.cancel().catch(() => undefined);
  let late = false;
  const endDeadline = limits.deadline?.timer(() => {
    late = true;
    void stop();
  }, limits.deadline.ms);
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (late) return { kind: "too-slow" };
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await stop();
        return { kind: "too-large" };
      }
      const refusal = limits.reading?.take(value.byteLength);
      if (refusal) {
        await stop();
        return { kind: "refused", refusal };
      }
      chunks.push(value);
    }
  } catch (error) {
    if (late) return { kind: "too-slow" };
    return {
      kind: "invalid",
      reason: `the body could not be read (${error instanceof Error ? error.message : String(error)})`,
    };
  } finally {
    endDeadline?.();
  }
  return parse(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks));
}

/** Deepest nesting of arrays and objects a request may have: MCP messages hold a few levels. */
export const MAX_JSON_DEPTH = 100;

/**
 * Most `"name": value` pairs in all the objects of one request: an MCP message holds a few dozen, a tool's
 * arguments a few more.
 */
export const MAX_JSON_MEMBERS = 10_000;

function parse(bytes: Uint8Array): BodyResult {
  const refused = jsonRefusal(bytes);
  if (refused) return { kind: "invalid", reason: refused };
  const text = new TextDecoder().decode(bytes);
  try {
    return { kind: "ok", value: JSON.parse(text), bytes: bytes.byteLength };
  } catch {
    return { kind: "invalid", reason: text.trim() === "" ? "empty body" : "not valid JSON" };
  }
}

/**
 * Why the JSON text in `bytes` is refused before it is parsed, or undefined; one linear pass, strings
 * skipped. Pure. Security: JSON.parse of megabytes of `[[[…` is slow and takes far more memory than the
 * text; an object of 300,000 members, parsed and then checked against the SDK's schemas, holds the
 * server's only thread for a second or more, and every other client waits.
 */
export function jsonRefusal(
  bytes: Uint8Array,
  maxDepth = MAX_JSON_DEPTH,
  maxMembers = MAX_JSON_MEMBERS,
): string | undefined {
  let depth = 0;
  let members = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) i = closingQuote(bytes, i);
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
    } else if (c === 0x5d || c === 0x7d) depth--;
    // Outside strings, a colon only ever ends an object member's name.
    else if (c === 0x3a && ++members > maxMembers)
      return `too many "name": value pairs (more than ${maxMembers} in its objects; an MCP message holds a few dozen)`;
  }
  return undefined;
}

/**
 * The `id` of the JSON-RPC request in `bytes` (its top-level object's `"id"` member, a string or a number)
 * without parsing the rest, or null: a request refused before it is parsed (jsonRefusal) is answered
 * under its own id, which its client waits for. One linear pass, strings skipped.
 */
export function requestIdOf(bytes: Uint8Array): string | number | null {
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      const end = closingQuote(bytes, i);
      if (depth === 1 && expectKey && end === i + 3 && bytes[i + 1] === 0x69 && bytes[i + 2] === 0x64) {
        const after = new TextDecoder().decode(bytes.subarray(end + 1, end + 200));
        const value = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(after);
        if (value?.[1]) return JSON.parse(value[1]) as string | number;
      }
      expectKey = false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      expectKey = c === 0x7b && depth === 1;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 1) expectKey = true;
  }
  return null;
}

/** The index of the quote that ends the JSON string opening at `start` (a quote after an even run of backslashes). */
function closingQuote(bytes: Uint8Array, start: number): number {
  for (let at = bytes.indexOf(0x22, start + 1); at >= 0; at = bytes.indexOf(0x22, at + 1)) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return bytes.length;
}

/** Whether a Content-Type names JSON (parameters such as charset allowed). */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]?.trim().toLowerCase();
  return type === "application/json";
}

/**
 * The request's path, never throwing: a malformed Host header makes
 * `request.url` unparseable, and such a request must get its 403, not a 500
 * from the log line that describes it.
 */
export function pathOf(request: Request): string {
  try {
    return new URL(request.url).pathname;
  } catch {
    const match = /^[a-z]+:\/\/[^/]*(\/[^?#]*)?/i.exec(request.url);
    return match?.[1] ?? "/";
  }
}
