import type { Config } from "../config/schema.ts";
import type { LockedRepo, Pin } from "../refresh/git/git-sync-types.ts";
import { sameRepository, withoutCredentials } from "../refresh/git/git-url.ts";
import { type LockPlace, lockTargets, ownRepoLabels, pinsRepo } from "./location.ts";
import { LockError, type Lockfile, readLockfile, readLockfileIfPresent } from "./lockfile.ts";

/**
 * The lock's commits by source label, each with its repository's URL as SkillHub shows it, for git sync
 * (a pinned repository stays at its locked commit), or undefined when there is no lock; a corrupt lock
 * throws LockError, which the sync reports and then syncs to the configured refs.
 *
 * By label: two entries of one URL (two of its folders, `path:`) have a pin each. The URL is shown without
 * credentials: a lock written when a URL's shown form still held one (`git+https://TOKEN@…`, a remote
 * helper's `codecommit::https://u:TOKEN@…`) keeps its pin, so a moved tag is not followed once on the way
 * (the next write records the URL without them).
 */
function lockedPins(file: string): Map<string, Pin & { url: string }> | undefined {
  const lock = readLockfileIfPresent(file);
  if (!lock) return undefined;
  const pins = new Map<string, Pin & { url: string }>();
  for (const [label, source] of Object.entries(lock.sources))
    pins.set(label, { url: withoutCredentials(source.url), ref: source.ref, commit: source.commit });
  return pins;
}

/**
 * What the lock that pins each repository records of it, by source label: `pinning` maps a label to its
 * repository's URL (as SkillHub shows it) and that lock's file. A label whose lock is missing or cannot be
 * read (`failed` is told why) has no pin, only why (`noLock`): a sync follows its refs, a frozen one
 * fetches nothing of it. The other locks' keep theirs.
 *
 * Security: a label is looked up in its own lock only, so a project's lock that records a repository of
 * the user's own configuration (a cloned project's, or one written by an earlier SkillHub) pins nothing;
 * and only for the URL configured now, so an entry of the same label for another URL pins nothing either
 * (its `url` is told, unless another label configures that URL: frozen, neither is fetched).
 */
export function pinsFrom(
  pinning: ReadonlyMap<string, { url: string; file: string }>,
  failed: (file: string, error: LockError) => void,
): Map<string, LockedRepo> {
  const byFile = new Map<string, Map<string, Pin & { url: string }> | NonNullable<LockedRepo["noLock"]>>();
  const pins = new Map<string, LockedRepo>();
  for (const [label, { url, file }] of pinning) {
    if (!byFile.has(file)) {
      try {
        byFile.set(file, lockedPins(file) ?? { why: `there is no skillhub.lock at ${file}`, missing: true });
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        failed(file, error);
        byFile.set(file, { why: error.message.replace(/\.$/, "") });
      }
    }
    const locked = byFile.get(file);
    if (!(locked instanceof Map)) {
      if (locked) pins.set(label, { noLock: locked });
      continue;
    }
    // A label the lock does not record for this URL (a project's entry of another folder of your repository)
    // takes the pin of the URL's first entry there: it is not followed past what that lock reviewed. URLs are
    // compared as the repository they name (sameRepository: `…/team.git`, `git@host:…/team`), as its copy is
    // shared. Security: compared as written, a project's other spelling of your repository's URL found no pin,
    // and its sync moved the shared copy past what your lock records.
    const ofRepo = (p: { url: string }) => sameRepository(p.url, url);
    const own = locked.get(label);
    const pin = own && ofRepo(own) ? own : [...locked.values()].find(ofRepo);
    // The label's entry of a URL configured under another label now: this one is new to the lock.
    const moved = own && [...pinning.values()].some((p) => sameRepository(p.url, own.url));
    pins.set(label, pin ? { pin: { ref: pin.ref, commit: pin.commit } } : own && !moved ? { url: own.url } : {});
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
    locked.set(copy.file, sources.find((s) => sameRepository(s.url, copy.url))?.config ?? null);
  }
  return locked;
}
