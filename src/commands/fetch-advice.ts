import { LockError, readLockfile } from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";

/**
 * What to run for a repository with no local copy yet. When skillhub.lock records its commit (a teammate's
 * fresh clone of a project), `sync --frozen` fetches exactly that commit; a plain `sync` would move a
 * repository that follows a branch to its tip and rewrite the committed lock.
 */
export function fetchAdvice(hub: Hub, label: string): string {
  return lockedSources(hub).has(label)
    ? "run `skillhub sync --frozen` to fetch the commit skillhub.lock records"
    : "run `skillhub sync` to fetch it";
}

/** The labels of the git sources the hub's lock records; none when it is missing or cannot be read. */
export function lockedSources(hub: Hub): Set<string> {
  try {
    return new Set(Object.keys(readLockfile(hub.lockFile()).sources));
  } catch (error) {
    if (error instanceof LockError) return new Set();
    throw error;
  }
}
