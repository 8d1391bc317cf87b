import type { Config } from "../config/schema.ts";
import { withoutCredentials } from "../refresh/git/git-url.ts";
import { type LockPlace, lockTargets, ownRepoLabels, pinsRepo } from "./location.ts";
import { LockError, type Lockfile, readLockfile } from "./lockfile.ts";

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

/**
 * Each repository's pin, read from the lock that pins it: `pinning` maps a repository URL (as
 * SkillHub shows it) to that lock's file. A lock that cannot be read pins none of its repositories
 * (`failed` is told why, and the sync follows their refs); the other lock's repositories keep theirs.
 *
 * Security: a URL is looked up in its own lock only, so a project's lock that records a repository of
 * the user's own configuration (a cloned project's, or one written by an earlier SkillHub) pins nothing.
 */
export function pinsFrom(
  pinning: ReadonlyMap<string, string>,
  failed: (file: string, error: LockError) => void,
): Map<string, { ref: string; commit: string }> {
  const byFile = new Map<string, Map<string, { ref: string; commit: string }>>();
  const pins = new Map<string, { ref: string; commit: string }>();
  for (const [url, file] of pinning) {
    let locked = byFile.get(file);
    if (!locked) {
      try {
        locked = lockedPins(file);
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        failed(file, error);
        locked = new Map();
      }
      byFile.set(file, locked);
    }
    const pin = locked.get(url);
    if (pin) pins.set(url, pin);
  }
  return pins;
}

/**
 * Frozen: the digest of each repository copy's `config.yaml` (`copies`' files) that the lock pinning the
 * repository records, or null when it records none (no such file at the locked commit, a lock written
 * before SkillHub recorded them, or a lock that cannot be read: nothing is vouched for then).
 */
export function lockedConfigs(
  config: Config,
  place: LockPlace,
  copies: readonly { file: string; label: string; url: string }[],
): Map<string, string | null> {
  const own = ownRepoLabels(config);
  const targets = lockTargets(place);
  const read = new Map<string, Lockfile | undefined>();
  const locked = new Map<string, string | null>();
  for (const copy of copies) {
    const file = targets.find((t) => pinsRepo(t, copy.label, own))?.file;
    if (file !== undefined && !read.has(file)) {
      try {
        read.set(file, readLockfile(file));
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        read.set(file, undefined);
      }
    }
    const sources = Object.values((file === undefined ? undefined : read.get(file))?.sources ?? {});
    locked.set(copy.file, sources.find((s) => withoutCredentials(s.url) === copy.url)?.config ?? null);
  }
  return locked;
}
