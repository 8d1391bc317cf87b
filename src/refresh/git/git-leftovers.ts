import { readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../../util/errors.ts";
import type { Logger } from "../../util/logger.ts";
import { processAlive } from "./git-lock.ts";

/**
 * First clones go to a temporary folder beside the copy,
 * `<home>/repos/.<slug>.clone-<pid>-<ms>`, renamed into place when complete.
 * A process killed mid-clone leaves that folder behind; the next start
 * removes it, unless the process that made it still runs.
 */

const TEMP = /^\.[A-Za-z0-9._-]+\.clone-(\d+)-(\d+)$/;
/** A temporary clone older than this is abandoned whoever made it (clones time out long before), in milliseconds. */
const ABANDONED_MS = 60 * 60_000;

/** Temporary clones this process is writing now. */
const active = new Set<string>();

/** A new temporary clone folder's path for `slug` in `reposDir`, marked in use until `finishTempClone`. */
export function tempCloneDir(reposDir: string, slug: string, now: number): string {
  const dir = join(reposDir, `.${slug}.clone-${process.pid}-${now}`);
  active.add(dir);
  return dir;
}

export function finishTempClone(dir: string): void {
  active.delete(dir);
}

export interface LeftoverOptions {
  isAlive?: (pid: number) => boolean;
  /** Clock, in milliseconds. Default Date.now. */
  now?: () => number;
  /** Told (DEBUG) what was removed. */
  logger?: Logger;
}

/** Remove the temporary clones in `reposDir` that nobody is writing; returns their names. */
export async function removeLeftoverClones(reposDir: string, options: LeftoverOptions = {}): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(reposDir);
  } catch {
    return [];
  }
  const isAlive = options.isAlive ?? processAlive;
  const now = (options.now ?? Date.now)();
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP.exec(name);
    const dir = join(reposDir, name);
    if (!match || active.has(dir)) continue;
    const pid = Number(match[1]);
    // Our pid on a folder we are not writing: an earlier process had the same pid (containers).
    const abandoned = pid === process.pid || !isAlive(pid) || now - Number(match[2]) > ABANDONED_MS;
    if (!abandoned) continue;
    try {
      // Security: only direct children of the repos folder whose names match the temporary pattern are removed.
      await rm(dir, { recursive: true, force: true });
      removed.push(name);
    } catch (error) {
      options.logger?.debug(`cannot remove the unfinished clone ${dir}: ${errorMessage(error)}`);
    }
  }
  if (removed.length > 0)
    options.logger?.debug(
      `removed ${removed.length} unfinished clone${removed.length === 1 ? "" : "s"} in ${reposDir}: ${removed.join(", ")}`,
    );
  return removed;
}
