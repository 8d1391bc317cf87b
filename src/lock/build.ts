import { basename, join, relative, sep } from "node:path";
import type { Catalog } from "../catalog/catalog.ts";
import { digestSkill, type Sha256, type SkillDigests, type Unrecordable } from "../catalog/digests.ts";
import type { Skill } from "../skills/skill.ts";
import { isVersionControl, VCS_DIR } from "../sources/version-control.ts";
import { SKILL_FILE } from "../sources/walk.ts";
import { program } from "../util/program-name.ts";
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
 * The lock for what would be served now: every served skill of `catalog`, or
 * each of `skills` when given (skills of `catalog`: `verify --skills-dir` adds
 * those a server without the folders serves), those `covered` when given (one
 * lock's share), with its digests; and every git source with a copy at its
 * commit (none when `heads` is empty). A repository copy's files that git
 * ignores (`heads`' `ignored`: a script's cache) are left out: no commit holds
 * them, so a teammate's copy of the same commit has none.
 */
export function buildLockfile(
  catalog: Catalog,
  heads: readonly GitHead[],
  covered: (skill: Skill) => boolean = () => true,
  skills: readonly Skill[] = catalog.skills,
): Lockfile {
  const sources = emptyRecord<LockedSource>();
  for (const h of heads)
    if (h.commit)
      sources[h.label] = { url: h.url, ref: h.ref, commit: h.commit, ...(h.config ? { config: h.config } : {}) };
  const ignoredBy = new Map(heads.map((h) => [h.label, new Set(h.ignored)]));
  const entries = emptyRecord<LockedSkill>();
  const leftOut: LeftOut = { unrecordable: [], ignored: [] };
  for (const skill of skills) {
    if (!covered(skill)) continue;
    const digests = digestSkill(skill);
    const ignored = ignoredBy.get(skill.source);
    if (ignored && ignored.size > 0) {
      // The copy's paths are relative to its skills folder, the skill's source root.
      const folder = relative(skill.root, skill.dir).split(sep).join("/");
      for (const path of Object.keys(digests.files)) {
        if (!ignored.has(folder === "" ? path : `${folder}/${path}`)) continue;
        delete digests.files[path];
        leftOut.ignored.push(addedFile(skill, path, "ignored by git in the repository's copy"));
      }
    }
    entries[skill.id] = lockSkill(skill, digests);
    // A skill too large to lock is refused whole.
    if (!digests.truncated)
      for (const { path, why } of [...digests.unrecordable, ...refusedBeside(catalog, skill, digests)])
        leftOut.unrecordable.push(
          addedFile(
            skill,
            path,
            `cannot be recorded by a lock (${why}): a frozen server runs no code in this skill's folder`,
          ),
        );
  }
  const lock: Lockfile = { lockfile_version: LOCKFILE_VERSION, sources, skills: entries };
  leftOutOf.set(lock, leftOut);
  return lock;
}

/**
 * `built`'s entries of the sources `labels` names (their pins and skills), and every other entry exactly as
 * `lock` records it (none without a lock): what `skillhub add`, `skillhub remove` and `skillhub sync` write,
 * so that a change nobody reviewed in another source (an edited skill, a new one, a copy at another
 * commit) stays a difference for `verify` until someone reviews it and runs `skillhub lock`. What
 * buildLockfile left out of those sources' skills is kept with it. Pure.
 */
export function withSourcesFrom(lock: Lockfile | undefined, built: Lockfile, labels: ReadonlySet<string>): Lockfile {
  const sources = emptyRecord<LockedSource>();
  for (const [label, s] of Object.entries(lock?.sources ?? {})) if (!labels.has(label)) sources[label] = s;
  for (const [label, s] of Object.entries(built.sources)) if (labels.has(label)) sources[label] = s;
  const skills = emptyRecord<LockedSkill>();
  for (const [id, s] of Object.entries(lock?.skills ?? {})) if (!labels.has(s.source)) skills[id] = s;
  for (const [id, s] of Object.entries(built.skills)) if (labels.has(s.source)) skills[id] = s;
  const merged: Lockfile = { lockfile_version: LOCKFILE_VERSION, sources, skills };
  const ours = (c: LockChange) => labels.has(built.skills[c.id]?.source ?? "");
  const { unrecordable, ignored } = leftOut(built);
  leftOutOf.set(merged, { unrecordable: unrecordable.filter(ours), ignored: ignored.filter(ours) });
  return merged;
}

/**
 * `lock` with the skills of each folder `renames` relabels (old label → new) moved to their new label, as
 * recorded: a folder whose label changed when another of its name was added or removed is the same
 * folder, and what its lock entries vouch for must not be read again from disk. Pure.
 */
export function relabelledLock(lock: Lockfile, renames: ReadonlyMap<string, string>): Lockfile {
  if (renames.size === 0) return lock;
  const skills = emptyRecord<LockedSkill>();
  for (const [id, s] of Object.entries(lock.skills)) {
    const label = renames.get(s.source);
    if (label === undefined) skills[id] = s;
    else skills[`${label}:${s.name}`] = { ...s, source: label };
  }
  return { ...lock, skills };
}

/**
 * What the walker passed over in `skill`'s folder (`unrecorded` less `unrecordable`: version-control metadata,
 * nested skills' folders) that a frozen server still runs no code beside (FrozenGuard.checkWhole), each with
 * why: all but a clone's own `.git` and a nested skill the catalog serves, which is checked as itself.
 */
function refusedBeside(catalog: Catalog, skill: Skill, digests: SkillDigests): Unrecordable[] {
  const named = new Set(digests.unrecordable.map((u) => u.path));
  const refused: Unrecordable[] = [];
  for (const path of digests.unrecorded) {
    if (named.has(path) || basename(path) === VCS_DIR) continue;
    if (isVersionControl(basename(path)))
      refused.push({ path, why: "only another file system takes its name for version-control metadata" });
    else if (!catalog.skillOfFile(join(skill.dir, path, SKILL_FILE)))
      refused.push({
        path,
        why: `its SKILL.md is no skill SkillHub serves (\`${program()} doctor\` says why), nor a file of this one`,
      });
  }
  return refused;
}

function addedFile(skill: Skill, file: string, detail: string): LockChange {
  return { kind: "added", subject: "file", id: skill.id, file, detail };
}

/** What buildLockfile found in the skills' folders and did not record, as added files. */
export interface LeftOut {
  /**
   * What no lock can record (catalog/digests.ts, `unrecordable`: a name SkillHub cannot open as it is, an
   * unreadable file, a FIFO, a link out). Security: a frozen server runs no code in such a folder, since
   * what a process would read there was never reviewed; `verify` names them so that CI fails before the
   * server refuses.
   */
  unrecordable: LockChange[];
  /**
   * A repository copy's files that git ignores: no commit holds them. Not differences for `verify`; a
   * frozen server serves none of them (FILE_NOT_LOCKED) and runs no code beside them, as for any file
   * the lock does not record.
   */
  ignored: LockChange[];
}

const leftOutOf = new WeakMap<Lockfile, LeftOut>();

/** What buildLockfile left out of `lock` (LeftOut); nothing for a lock read from a file. */
export function leftOut(lock: Lockfile): Readonly<LeftOut> {
  return leftOutOf.get(lock) ?? { unrecordable: [], ignored: [] };
}
