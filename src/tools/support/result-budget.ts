import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolContext } from "../definition.ts";

/**
 * Characters of one tool result Claude Code hands its model whole: all text
 * items together, counted as JavaScript string length (not bytes, not JSON).
 * One character more and the model gets "Output too large … Preview (first
 * 2KB)" instead. Measured with its CLI (test/clients/claude-code-budget.test.ts
 * checks it still holds).
 */
export const CLAUDE_CODE_RESULT_CHARS = 50_000;

/**
 * For clients whose limit is not known: half of Claude Code's, about 6,000
 * tokens of English, so a client that shows less still gets the first part
 * and the line that says how to read the rest.
 */
export const DEFAULT_RESULT_CHARS = 25_000;

/** Claude Code names itself "claude-code" in clientInfo (older builds: "Claude Code"). */
export function isClaudeCode(clientName: string | undefined): boolean {
  return clientName !== undefined && /claude[\s_-]?code/i.test(clientName);
}

/** Characters one result may hold for this client: SKILLHUB_RESULT_BUDGET, else by client. */
export function resultBudget(ctx: Pick<ToolContext, "deps" | "session">): number {
  return (
    ctx.deps.config.server.result_budget ??
    (isClaudeCode(ctx.session.clientName()) ? CLAUDE_CODE_RESULT_CHARS : DEFAULT_RESULT_CHARS)
  );
}

/**
 * Where to end the first part of `text` so it holds at most `room`
 * characters: after the last line end in the second half of the room (a
 * part ends on a whole line), else at `room` itself, never inside a
 * surrogate pair. Returns text.length when it all fits. Pure.
 */
export function partEnd(text: string, room: number): number {
  if (text.length <= room) return text.length;
  const limit = Math.max(1, room);
  const newline = text.lastIndexOf("\n", limit - 1);
  if (newline >= limit / 2) return newline + 1;
  const code = text.charCodeAt(limit - 1);
  // A high surrogate at the end would be cut from its pair.
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

/** Number of lines in `text` up to `end` (1-based line of the character before it). */
export function linesUpTo(text: string, end: number): number {
  let lines = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) lines++;
  return end > 0 && text[end - 1] !== "\n" ? lines + 1 : lines;
}

/** Characters of a result's text items: what a client shows (and Claude Code measures). */
export function textChars(result: CallToolResult): number {
  return result.content.reduce((n, c) => n + (c.type === "text" ? c.text.length : 0), 0);
}
