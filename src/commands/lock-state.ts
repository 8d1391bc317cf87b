import { LOCKED_ENTRIES_MAX } from "../catalog/digests.ts";
import { buildLockfile, type GitHead } from "../lock/build.ts";
import { compareLocks, describeChange, type LockChange } from "../lock/compare.ts";
import type { LockTarget } from "../lock/location.ts";
import { LockError, type Lockfile, readLockfile } from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";
import { plural } from "../util/plural.ts";

/** One lock file's share of what would be served now. */
export interface TargetLock extends LockTarget {
  lock: Lockfile;
  /** The repositories this lock records (the first target's), with their checkouts. */
  heads: GitHead[];
  /** Whether this lock records the git sources (the first target does). */
  recordsSources: boolean;
}

/**
 * What would be served now, as locks: for each lock file (project, global;
 * lock/location.ts) the skills of the hub's current catalog it covers, and
 * for the first one the repositories' checkouts.
 */
export async function currentLocks(hub: Hub): Promise<TargetLock[]> {
  const heads = (await hub.git?.heads()) ?? [];
  return hub.lockTargets().map((target, i) => {
    const own = i === 0 ? heads : [];
    const lock = buildLockfile(hub.catalog, own, (skill) => hub.lockTargetOf(skill).file === target.file);
    return { ...target, lock, heads: own, recordsSources: i === 0 };
  });
}

/** Whether a lock records anything (a skill or a git source). */
export function hasEntries(lock: Lockfile): boolean {
  return Object.keys(lock.skills).length > 0 || Object.keys(lock.sources).length > 0;
}

/** Whether `target`'s lock file exists and differs from what would be served now (a corrupt one does). */
export function outdated(target: TargetLock): boolean {
  try {
    return lockChanges(target, readLockfile(target.file)).length > 0;
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return error.code !== "LOCK_MISSING";
  }
}

/**
 * The differences between `locked` and what would be served now. A global
 * lock read inside a project ignores the repositories (and their skills) it
 * recorded when it was written outside any project: the project lock holds
 * them now.
 */
export function lockChanges(target: TargetLock, locked: Lockfile): LockChange[] {
  if (target.recordsSources) return compareLocks(locked, target.lock, target.heads);
  const skills = Object.entries(locked.skills).filter(([, s]) => !Object.hasOwn(locked.sources, s.source));
  return compareLocks({ ...locked, sources: {}, skills: Object.fromEntries(skills) }, target.lock, target.heads);
}

/** Skills a lock records as too large to lock (catalog/digests.ts, LOCKED_ENTRIES_MAX): never served frozen. */
export function tooLarge(lock: Lockfile): string[] {
  return Object.entries(lock.skills)
    .filter(([, s]) => s.too_large)
    .map(([id]) => id);
}

/** The note for skills recorded as too large, or undefined when there are none. */
export function tooLargeNote(lock: Lockfile): string | undefined {
  const ids = tooLarge(lock);
  if (ids.length === 0) return undefined;
  return `${plural(ids.length, "skill")} ${ids.length === 1 ? "has" : "have"} more than ${LOCKED_ENTRIES_MAX} files and folders, too many to review: recorded as too large, never served by a frozen server (${ids.join(", ")}). Move what ${ids.length === 1 ? "it does" : "they do"} not need (dependencies, caches) out of ${ids.length === 1 ? "its folder" : "their folders"} to lock ${ids.length === 1 ? "it" : "them"}.`;
}

/** One line per change, indented, for the text output of verify and sync. */
export function changeLines(changes: readonly LockChange[]): string {
  return changes.map((c) => `  ${describeChange(c)}\n`).join("");
}
