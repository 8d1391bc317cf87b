import type { Catalog } from "../catalog/catalog.ts";
import { digestSkill, type SkillDigests } from "../catalog/digests.ts";
import type { Skill } from "../skills/skill.ts";
import { LOCKFILE_VERSION, type LockedSkill, type LockedSource, type Lockfile } from "./lockfile.ts";
import { relativeSkillPath } from "./skill-path.ts";

/** A git source as it is on disk now: its label, URL (no credentials), ref and checked-out commit. */
export interface GitHead {
  label: string;
  url: string;
  ref: string;
  /** null when there is no usable copy yet. */
  commit: string | null;
}

/** The lock entry of one skill, or undefined when its file is gone. */
export function lockSkill(
  skill: Skill,
  digests: SkillDigests | undefined = digestSkill(skill),
): LockedSkill | undefined {
  if (!digests) return undefined;
  const files: Record<string, LockedSkill["skill_md"]> = {};
  for (const [path, d] of Object.entries(digests.files)) files[path] = d.digest;
  return {
    name: skill.name,
    source: skill.source,
    kind: skill.kind,
    path: relativeSkillPath(skill),
    skill_md: digests.skill_md.digest,
    files,
  };
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
  const sources: Record<string, LockedSource> = {};
  for (const h of heads) if (h.commit) sources[h.label] = { url: h.url, ref: h.ref, commit: h.commit };
  const skills: Record<string, LockedSkill> = {};
  for (const skill of catalog.skills) {
    if (!covered(skill)) continue;
    const entry = lockSkill(skill);
    if (entry) skills[skill.id] = entry;
  }
  return { lockfile_version: LOCKFILE_VERSION, sources, skills };
}
