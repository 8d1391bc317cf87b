import type { ProcessResult } from "./process.ts";

/** Appended to stderr when a script hits its timeout (verbatim: the text the tree tools' clients expect). */
export const TIMEOUT_NOTE = "[skills-mcp] Script killed: timeout exceeded.";

/** Appended to stderr when output was cut at the cap; `stream` is stdout or stderr. */
export function truncationNote(stream: "stdout" | "stderr", maxBytes: number): string {
  return `[skills-mcp] ${stream} truncated at ${maxBytes} bytes (scripts.max_output_bytes).`;
}

/** run_script's response, without its `script` field. */
export interface ScriptOutcome {
  success: boolean;
  exit_code: number;
  stdout: string;
  stderr: string;
  duration_ms: number;
}

/**
 * A finished process → run_script's fields. Partial output is kept; notes
 * about truncation and the timeout go at the end of stderr, each on its own
 * line, so stdout stays exactly what the script printed. Pure.
 */
export function scriptOutcome(result: ProcessResult, maxBytes: number): ScriptOutcome {
  const notes: string[] = [];
  if (result.stdout.truncated) notes.push(truncationNote("stdout", maxBytes));
  if (result.stderr.truncated) notes.push(truncationNote("stderr", maxBytes));
  if (result.timedOut) notes.push(TIMEOUT_NOTE);
  let stderr = result.stderr.text;
  if (notes.length > 0) stderr = `${stderr}${stderr === "" || stderr.endsWith("\n") ? "" : "\n"}${notes.join("\n")}`;
  return {
    success: result.exitCode === 0 && !result.timedOut,
    exit_code: result.exitCode,
    stdout: result.stdout.text,
    stderr,
    duration_ms: result.durationMs,
  };
}
