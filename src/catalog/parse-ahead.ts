import type { ParseResult } from "../skills/agent-skill.ts";
import type { Source } from "../sources/source-list.ts";
import type { SkillDirEntry } from "../sources/walk.ts";
import { type Batch, runWorker, workerScript } from "../util/worker-task.ts";

/**
 * Parsing a scan's new SKILL.md files in a worker (parse-worker.ts) before the scanner assembles the
 * catalog from its cache, so that reading 10,000 files leaves only their parses in the server's heap.
 */

/** What parse-worker.ts is sent, in batches of entries. */
export type ParseRequest = Batch<SkillDirEntry> & { source: Source };

/**
 * Fewer files than this are parsed in place: a worker's start (about 10 ms and a few MB) costs more
 * than the garbage of a few hundred parses.
 */
export const PARSE_AHEAD_MIN = 200;

/** Parse `entries` of `source` in a worker, handing each parse to `store` in order. */
export async function parseAhead(
  entries: SkillDirEntry[],
  source: Source,
  store: (entry: SkillDirEntry, result: ParseResult) => void,
): Promise<void> {
  let next = 0;
  await runWorker(workerScript("catalog/parse-worker.ts"), entries, { source }, (part: ParseResult[]) => {
    for (const result of part) store(entries[next++] as SkillDirEntry, result);
  });
  if (next !== entries.length) throw new Error(`the parse worker answered ${next} of ${entries.length} files`);
}
