import { LockError, readLockfile } from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";
import { program } from "../util/program-name.ts";

/**
 * What to run for a repository with no local copy yet. When skillhub.lock records its commit (a teammate's
 * fresh clone of a project), `sync --frozen` fetches exactly that commit; a plain `sync` would move a
 * repository that follows a branch to its tip and rewrite the committed lock.
 */
export function fetchAdvice(hub: Hub, label: string): string {
  return lockedSources(hub).has(label)
    ? `run \`${program()} sync --frozen\` to fetch the commit skillhub.lock records`
    : `run \`${program()} sync\` to fetch it`;
}

/** The labels of the git sources whose commit the lock that pins them records (lockedCommits). */
export function lockedSources(hub: Hub): Set<string> {
  return new Set(lockedCommits(hub).keys());
}

/**
 * The commits the locks pin, by source label: each repository's from the lock that pins it (the
 * project's, or the user's own for the repositories of their config file: lock/location.ts). A lock that
 * records a repository another lock pins does not count for it: it pins nothing. A missing lock adds
 * none; so does one that cannot be read, which `unreadable` is told about.
 */
export function lockedCommits(hub: Hub, unreadable: (error: LockError) => void = () => {}): Map<string, string> {
  const commits = new Map<string, string>();
  for (const { file } of hub.lockTargets()) {
    try {
      for (const [label, source] of Object.entries(readLockfile(file).sources))
        if (hub.repoLockOf(label).file === file) commits.set(label, source.commit);
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      if (error.code !== "LOCK_MISSING") unreadable(error);
    }
  }
  return commits;
}
