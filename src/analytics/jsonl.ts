import { constants } from "node:fs";
import { mkdir, open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { readNamedText } from "../util/named-file.ts";
import { type AnalyticsEvent, isAnalyticsEvent } from "./event.ts";

/**
 * Most bytes of one analytics file read whole (the buffer, `team status`): about 300,000 events. A larger
 * file is read up to there and said to be cut. `stats` and the page's usage view read the analytics
 * file a chunk at a time instead (usage-file.ts).
 */
export const MAX_ANALYTICS_READ_BYTES = 64 * 1_048_576;

/** One event per line. */
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

/** What reading one analytics file gave: its events, and why it could not be read (whole) when so. */
export interface JsonlRead {
  events: AnalyticsEvent[];
  malformed: number;
  /** A sentence naming the file and what is wrong (not a regular file, cut at the cap…); absent when all is well. */
  problem?: string;
}

/**
 * Read a JSONL file through the bounded reader (util/named-file.ts): a missing file has no events; a
 * FIFO, a device or a link to one has none either, with a problem saying so; a file over `maxBytes` is
 * read up to its last whole line there.
 */
export function readJsonlFile(file: string, maxBytes = MAX_ANALYTICS_READ_BYTES): JsonlRead {
  const read = readNamedText({ path: file, maxBytes, overflow: "truncate" });
  if (!read.ok) return read.missing ? { events: [], malformed: 0 } : { events: [], malformed: 0, problem: read.reason };
  if (!read.truncated) return parseJsonl(read.text);
  // The cut may fall inside a line: that part line is not an event.
  const whole = read.text.slice(0, read.text.lastIndexOf("\n") + 1);
  return {
    ...parseJsonl(whole),
    problem: `'${file}' is ${read.size} bytes; only its first ${maxBytes} were read (rotate it to see the rest).`,
  };
}

/**
 * Append events (one write, O_APPEND: lines from several processes do not interleave). Security: the
 * file is opened without blocking and must be a regular file: a FIFO or a device in its place (a link
 * to /dev/stdout, a pipe nobody reads) is refused with an error naming it, never written or waited on.
 */
export async function appendJsonl(file: string, events: readonly AnalyticsEvent[]): Promise<void> {
  if (events.length === 0) return;
  await mkdir(dirname(file), { recursive: true });
  // Security: a device is not even opened (opening some has effects); a missing file is created below.
  const before = await stat(file).catch(() => undefined);
  if (before && !before.isFile()) throw new Error(`'${file}' is not a regular file (a FIFO, socket or device)`);
  const flags =
    constants.O_WRONLY |
    constants.O_APPEND |
    constants.O_CREAT |
    (constants.O_NONBLOCK ?? 0) |
    (constants.O_NOCTTY ?? 0);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, flags, 0o600);
  } catch (error) {
    // ENXIO: a FIFO with no reader (O_NONBLOCK makes the open fail instead of waiting for one).
    if ((error as { code?: string }).code === "ENXIO") throw new Error(`'${file}' is not a regular file (a FIFO)`);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`'${file}' is not a regular file (a FIFO, socket or device)`);
    await handle.appendFile(toJsonl(events));
  } finally {
    await handle.close();
  }
}
