/**
 * A scripted stand-in for the Anthropic Messages API, for driving a real
 * agent CLI (Claude Code honours ANTHROPIC_BASE_URL) without a model: each
 * turn the script sees the tool results the CLI sent back so far and names
 * the next tool call, or ends the turn. Streaming is spoken as the CLI needs
 * it (message_start, content blocks with input_json_delta, message_delta,
 * message_stop); other calls (count_tokens, a non-streaming side request) get
 * plain answers. Loopback only, port 0.
 */

/** A tool_result block as the CLI sends it back: what reached the model. */
export interface ToolResultSeen {
  tool_use_id: string;
  /** The result as the model sees it: a string, or content blocks. */
  content: unknown;
  /** Set when the CLI hands the result to the model as a failed call. */
  is_error?: boolean;
}

/** The text a model reads in a tool result. */
export function resultText(result: ToolResultSeen): string {
  if (typeof result.content === "string") return result.content;
  if (!Array.isArray(result.content)) return JSON.stringify(result.content);
  return result.content
    .map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : JSON.stringify(b)))
    .join("");
}

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** What the model does next, given every tool result of the conversation so far (oldest first). */
export type Script = (results: readonly ToolResultSeen[], request: Record<string, unknown>) => ToolCall | undefined;

export interface ModelApi {
  /** The base URL for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every Messages request body the CLI sent with tools (its main loop), in order. */
  requests: Record<string, unknown>[];
  /** The tool results of the last main-loop request. */
  results(): ToolResultSeen[];
  stop(): void;
}

const MODEL_USAGE = { input_tokens: 10, output_tokens: 1 };

function sse(events: Array<[string, unknown]>): Response {
  const body = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

/** One assistant message, streamed: a tool call, or a short text that ends the turn. */
function streamed(id: number, model: string, call: ToolCall | undefined): Response {
  const block = call ? { type: "tool_use", id: `toolu_${id}`, name: call.name, input: {} } : { type: "text", text: "" };
  const delta = call
    ? { type: "input_json_delta", partial_json: JSON.stringify(call.input) }
    : { type: "text_delta", text: "Done." };
  const message = {
    id: `msg_${id}`,
    type: "message",
    role: "assistant",
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: MODEL_USAGE,
  };
  return sse([
    ["message_start", { type: "message_start", message }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: block }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: call ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

/** Every tool_result block in a request's messages, oldest first. */
function toolResults(body: Record<string, unknown>): ToolResultSeen[] {
  const messages = (body.messages ?? []) as Array<{ content?: unknown }>;
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as ToolResultSeen[]).filter((c) => (c as { type?: string }).type === "tool_result")
      : [],
  );
}

/** Start the stand-in; `script` decides each turn of the CLI's main loop (the requests that carry tools). */
export function startModelApi(script: Script): ModelApi {
  const requests: Record<string, unknown>[] = [];
  let ids = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      // A rough count: the CLI asks before it decides how to show a large tool result.
      if (path.endsWith("/count_tokens"))
        return Response.json({ input_tokens: Math.ceil(JSON.stringify(body).length / 4) });
      if (!path.endsWith("/v1/messages")) return Response.json({ error: "not found" }, { status: 404 });
      const model = String(body.model ?? "claude-stand-in");
      const main = Array.isArray(body.tools) && body.tools.length > 0;
      if (main) requests.push(body);
      const call = main ? script(toolResults(body), body) : undefined;
      if (body.stream) return streamed(++ids, model, call);
      return Response.json({
        id: `msg_${++ids}`,
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: MODEL_USAGE,
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    results: () => {
      const last = requests.at(-1);
      return last ? toolResults(last) : [];
    },
    stop: () => server.stop(true),
  };
}
