import { readdirSync, readFileSync, statSync } from "node:fs";

/** Small reads of /proc for the searches of a run's processes; a process gone meanwhile is no error. */

/** The names in a folder; none when it cannot be read. */
export function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The owner of a path; undefined when it is gone. */
export function ownerOf(path: string): number | undefined {
  try {
    return statSync(path).uid;
  } catch {
    return undefined;
  }
}

const REAL_UID = /^Uid:\s*(\d+)/m;

/**
 * Whether the process of `dir` (/proc/<pid>) runs as `uid`, told by its folder's owner before anything
 * in it is read. One that made itself undumpable has its folder shown as root's: for such a folder, and
 * when `uid` is not root, its real user is read from its status.
 */
export function runsAs(dir: string, uid: number | undefined): boolean {
  const owner = ownerOf(dir);
  if (owner === undefined || uid === undefined) return false;
  if (owner === uid) return true;
  if (owner !== 0) return false;
  try {
    return Number(REAL_UID.exec(readFileSync(`${dir}/status`, "latin1"))?.[1]) === uid;
  } catch {
    return false;
  }
}
