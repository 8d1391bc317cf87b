/**
 * Worker script (util/worker-task.ts): reads and parses the SKILL.md files of a scanner's first pass,
 * sent in batches, posting the parses back in parts. Its heap, with every file's text and the parser's
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

let parsed = 0;

self.onmessage = (event: MessageEvent<ParseRequest>) => {
  const { batch, source, last } = event.data;
  try {
    for (let i = 0; i < batch.length; i += PART) {
      reply({ part: batch.slice(i, i + PART).map((entry: SkillDirEntry) => parseSkillEntry(entry, source)) });
      Bun.gc(true);
    }
    parsed += batch.length;
    if (last) reply({ done: parsed });
  } catch (error) {
    reply({ error: errorMessage(error) });
  }
};
