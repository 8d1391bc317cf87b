/**
 * Worker script (util/worker-task.ts): reads and parses a batch of SKILL.md files for the scanner's
 * first pass, posting the parses back in parts. Its heap, with every file's text and the parser's
 * garbage, goes away when it ends.
 */
import type { SkillDirEntry } from "../sources/walk.ts";
import { errorMessage } from "../util/errors.ts";
import type { WorkerReply } from "../util/worker-task.ts";
import type { ParseRequest } from "./parse-ahead.ts";
import { parseSkillEntry } from "./scan-read.ts";

/** Parses per message: small enough that the main thread stores one part between requests. */
const PART = 250;

declare const self: Worker;
const reply = (message: WorkerReply<unknown, number>) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { entries, source } = event.data;
  try {
    for (let i = 0; i < entries.length; i += PART)
      reply({ part: entries.slice(i, i + PART).map((entry: SkillDirEntry) => parseSkillEntry(entry, source)) });
    reply({ done: entries.length });
  } catch (error) {
    reply({ error: errorMessage(error) });
  }
};
