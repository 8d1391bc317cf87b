import { LockError, readLockfile } from "./lockfile.ts";

/**
 * The lock's commits by repository URL, for git sync (a pinned repository
 * stays at its locked commit). No lock = no pins; a corrupt lock throws
 * LockError, which the sync reports and then syncs to the configured refs.
 */
export function lockedPins(file: string): Map<string, { ref: string; commit: string }> {
  const pins = new Map<string, { ref: string; commit: string }>();
  try {
    const lock = readLockfile(file);
    for (const source of Object.values(lock.sources)) pins.set(source.url, { ref: source.ref, commit: source.commit });
  } catch (error) {
    if (error instanceof LockError && error.code === "LOCK_MISSING") return pins;
    throw error;
  }
  return pins;
}
