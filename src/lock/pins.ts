import { withoutCredentials } from "../refresh/git/git-url.ts";
import { LockError, readLockfile } from "./lockfile.ts";

/**
 * The lock's commits by repository URL, for git sync (a pinned repository
 * stays at its locked commit). No lock = no pins; a corrupt lock throws
 * LockError, which the sync reports and then syncs to the configured refs.
 *
 * Keyed by the URL as SkillHub shows it, without credentials: a lock written when a URL's shown form
 * still held one (`git+https://TOKEN@…`, a remote helper's `codecommit::https://u:TOKEN@…`) keeps its
 * pin, so a moved tag is not followed once on the way (the next write records the URL without them).
 */
export function lockedPins(file: string): Map<string, { ref: string; commit: string }> {
  const pins = new Map<string, { ref: string; commit: string }>();
  try {
    const lock = readLockfile(file);
    for (const source of Object.values(lock.sources))
      pins.set(withoutCredentials(source.url), { ref: source.ref, commit: source.commit });
  } catch (error) {
    if (error instanceof LockError && error.code === "LOCK_MISSING") return pins;
    throw error;
  }
  return pins;
}
