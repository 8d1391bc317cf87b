import type { Catalog } from "../catalog/catalog.ts";
import { digestSkill, type Sha256, type SkillDigests } from "../catalog/digests.ts";
import type { Skill } from "../skills/skill.ts";
import { emptyRecord, LOCKFILE_VERSION, type LockedSkill, type LockedSource, type Lockfile } from "./lockfile.ts";
import { relativeSkillPath } from "./skill-path.ts";

/** A git source as it is on disk now: its label, URL (no credentials), ref and checked-out commit. */
export interface GitHead {
  label: string;
  url: string;
  ref: string;
  /** null when there is no usable copy yet, or the copy is not served. */
  commit: string | null;
  /** trust.allowed_signers: why the copy on disk is not served (its commit is then null). */
  notServed?: string;
}

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
  for (const skill of catalog.skills) {
    if (!covered(skill)) continue;
    skills[skill.id] = lockSkill(skill);
  }
  return { lockfile_version: LOCKFILE_VERSION, sources, skills };
}
