import type { Catalog } from "../catalog/catalog.ts";
import { digestSkill, type Sha256, type SkillDigests } from "../catalog/digests.ts";
import type { Skill } from "../skills/skill.ts";
import type { LockChange } from "./compare.ts";
import {
  emptyRecord,
  type GitHead,
  LOCKFILE_VERSION,
  type LockedSkill,
  type LockedSource,
  type Lockfile,
} from "./lockfile.ts";
import { relativeSkillPath } from "./skill-path.ts";

/**
 * The lock entry of one skill: its own file's digest is that of the bytes the
 * catalog parsed (what its name and description were read from), its files'
 * those of the one walker's list (catalog/digests.ts). A skill with too many
 * files to record is marked `too_large`, with no files.
 */
export function lockSkill(skill: Skill, digests: SkillDigests = digestSkill(skill)): LockedSkill {
  const files = emptyRecord<LockedSkill["skill_md"]>();
  for (const [path, d] of Object.entries(digests.files)) files[path] = d.digest;
  return {
    name: skill.name,
    source: skill.source,
    kind: skill.kind,
    path: relativeSkillPath(skill),
    skill_md: skillDigest(skill),
    files,
    ...(digests.truncated ? { too_large: true as const } : {}),
  };
}

/** The digest of the bytes the catalog parsed for `skill` (its `hash` is their sha256). */
export function skillDigest(skill: Pick<Skill, "hash">): Sha256 {
  return `sha256:${skill.hash}`;
}

/**
 * The lock for what would be served now: every served skill of `catalog`
 * (those `covered` when given: one lock's share) with its digests, and every
 * git source with a copy at its commit (none when `heads` is empty).
 */
export function buildLockfile(
  catalog: Catalog,
  heads: readonly GitHead[],
  covered: (skill: Skill) => boolean = () => true,
): Lockfile {
  const sources = emptyRecord<LockedSource>();
  for (const h of heads) if (h.commit) sources[h.label] = { url: h.url, ref: h.ref, commit: h.commit };
  const skills = emptyRecord<LockedSkill>();
  const unrecordable: LockChange[] = [];
  for (const skill of catalog.skills) {
    if (!covered(skill)) continue;
    const digests = digestSkill(skill);
    skills[skill.id] = lockSkill(skill, digests);
    // A skill too large to lock is refused whole.
    if (!digests.truncated)
      for (const { path, why } of digests.unrecordable)
        unrecordable.push({
          kind: "added",
          subject: "file",
          id: skill.id,
          file: path,
          detail: `cannot be recorded by a lock (${why}): a frozen server runs no code in this skill's folder`,
        });
  }
  const lock: Lockfile = { lockfile_version: LOCKFILE_VERSION, sources, skills };
  if (unrecordable.length > 0) unrecordableOf.set(lock, unrecordable);
  return lock;
}

/** What buildLockfile found that no lock can record, by the lock it built. */
const unrecordableOf = new WeakMap<Lockfile, readonly LockChange[]>();

/**
 * What the folders of the skills of `lock`, a lock buildLockfile built, hold that no lock can record
 * (catalog/digests.ts, `unrecordable`: a name SkillHub cannot open as it is, an unreadable file, a FIFO,
 * a link out), as added files; none for a lock read from a file. Security: a frozen server runs no code
 * in such a folder, since what a process would read there was never reviewed; `verify` names them so
 * that CI fails before the server refuses.
 */
export function unrecordableIn(lock: Lockfile): readonly LockChange[] {
  return unrecordableOf.get(lock) ?? [];
}
