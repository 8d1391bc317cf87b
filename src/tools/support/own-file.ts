import { type CheckedFile, checkedFileRead, type Refused } from "../../lock/checked-read.ts";
import type { FrozenGuard } from "../../lock/frozen.ts";
import type { Skill } from "../../skills/skill.ts";
import { realFolder } from "../../skills/skill-read.ts";
import { notOfSkill } from "../../sources/skill-files.ts";
import { type ConfinedFailure, fail } from "../../util/confined-read.ts";

/**
 * One file of a skill's folder, as read_skill_file and resources/read serve it: `path` (checked, "/"
 * separated) must lie in the skill's real folder, confined to its repository or plugin; a nested
 * skill's files and version-control metadata are not the skill's (the one walker decides, as for the
 * lock); the read is one confined read and, frozen, its bytes are served only when the lock records
 * their digest for that path (lock/checked-read.ts).
 */
export function readOwnFile(
  frozen: FrozenGuard | undefined,
  skill: Skill,
  path: string,
  maxBytes: number,
  overflow: "truncate" | "refuse",
): CheckedFile | ConfinedFailure | Refused {
  const folder = realFolder(skill.dir, skill);
  if (!folder.ok) return folder;
  const foreign = notOfSkill(folder.root, path);
  if (foreign !== undefined) return fail("PATH_OUTSIDE_SKILL", foreign);
  return checkedFileRead(frozen, skill, folder.root, path, maxBytes, overflow);
}
