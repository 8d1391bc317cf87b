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

/**
 * Parses per message, each followed by a full collection here: nothing waits on this thread, and without
 * it the reading's garbage piled up faster than the collector ran (10,000 skills: peak +121 MB over the
 * server's start instead of +83, bench numbers in docs/performance.md).
 */
const PART = 100;

declare const self: Worker;
const reply = (message: WorkerReply<unknown, number>) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { entries, source } = event.data;
  try {
    for (let i = 0; i < entries.length; i += PART) {
      reply({ part: entries.slice(i, i + PART).map((entry: SkillDirEntry) => parseSkillEntry(entry, source)) });
      Bun.gc(true);
    }
    reply({ done: entries.length });
  } catch (error) {
    reply({ error: errorMessage(error) });
  }
};
