import { existsSync, readFileSync } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { type AnalyticsEvent, isAnalyticsEvent } from "./event.ts";

/** One event per line (seed 003 §10.4). */
export function toJsonl(events: readonly AnalyticsEvent[]): string {
  let text = "";
  for (const e of events) text += `${JSON.stringify(e)}\n`;
  return text;
}

/** Events of a JSONL text; lines that are not events are counted, never fatal. */
export function parseJsonl(text: string): { events: AnalyticsEvent[]; malformed: number } {
  const events: AnalyticsEvent[] = [];
  let malformed = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isAnalyticsEvent(value)) events.push(value);
      else malformed++;
    } catch {
      malformed++;
    }
  }
  return { events, malformed };
}

/** Read a JSONL file; a missing file has no events. */
export function readJsonlFile(file: string): { events: AnalyticsEvent[]; malformed: number } {
  if (!existsSync(file)) return { events: [], malformed: 0 };
  return parseJsonl(readFileSync(file, "utf8"));
}

/** Append events (one write, O_APPEND: lines from several processes do not interleave). */
export async function appendJsonl(file: string, events: readonly AnalyticsEvent[]): Promise<void> {
  if (events.length === 0) return;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, toJsonl(events), { mode: 0o600 });
}
