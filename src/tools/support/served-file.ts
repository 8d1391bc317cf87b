import { closeSync } from "node:fs";
import { type CheckedFile, checkedFileRead, type Refused } from "../../lock/checked-read.ts";
import type { FrozenGuard } from "../../lock/frozen.ts";
import type { Skill } from "../../skills/skill.ts";
import { realFolder } from "../../skills/skill-read.ts";
import { isSkillFolder, notOfSkill, notOfSkillReal } from "../../sources/skill-files.ts";
import {
  type ConfinedFailure,
  type ConfinedOpen,
  type ConfinedReadOptions,
  fail,
  openConfined,
} from "../../util/confined-read.ts";

/**
 * One file of a skill's folder, as read_skill_file and resources/read serve it: `path` (checked, "/"
 * separated) must lie in the skill's real folder, confined to its repository or plugin; a nested
 * skill's files and version-control metadata are not the skill's (the one walker decides, as for the
 * lock), whether named so or reached through a link; the read is one confined read and, frozen, its
 * bytes are served only when the lock records their digest for that path (lock/checked-read.ts).
 * `base`: the folder the path is under when it is not the skill's own (a tree node's resource folder);
 * `beforeRead`: told the opened file's size before its bytes are read; `onRead`: each chunk as it is read
 * (confined-read.ts).
 */
export function readServedFile(
  frozen: FrozenGuard | undefined,
  skill: Skill,
  path: string,
  maxBytes: number,
  overflow: "truncate" | "refuse",
  options: { base?: string } & Pick<ConfinedReadOptions, "now" | "beforeRead" | "onRead"> = {},
): CheckedFile | ConfinedFailure | Refused {
  const folder = realFolder(options.base ?? skill.dir, skill);
  if (!folder.ok) return folder;
  const foreign = ownerProblem(skill, folder.root) ?? notOfSkill(folder.root, path);
  if (foreign !== undefined) return fail("PATH_OUTSIDE_SKILL", foreign);
  const read = checkedFileRead(frozen, skill, folder.root, path, maxBytes, overflow, {
    now: options.now,
    beforeRead: options.beforeRead,
    onRead: options.onRead,
  });
  if (!read.ok) return read;
  const reached = notOfSkillReal(folder.root, read.real);
  return reached === undefined ? read : fail("PATH_OUTSIDE_SKILL", `'${path}' leads to another's file: ${reached}`);
}

/**
 * The file readServedFile would read, opened and checked the same way (not against a lock: the caller
 * compares what it reads with a digest that was), its descriptor left open for the caller to read at its
 * pace and close: `maxBytes` refuses a larger file.
 */
export function openServedFile(skill: Skill, path: string, maxBytes: number): ConfinedOpen | ConfinedFailure {
  const folder = realFolder(skill.dir, skill);
  if (!folder.ok) return folder;
  const foreign = ownerProblem(skill, folder.root) ?? notOfSkill(folder.root, path);
  if (foreign !== undefined) return fail("PATH_OUTSIDE_SKILL", foreign);
  const opened = openConfined({ root: folder.root, rootIsReal: true, file: path, maxBytes });
  if (!opened.ok) return opened;
  const reached = notOfSkillReal(folder.root, opened.real);
  if (reached === undefined) return opened;
  closeSync(opened.fd);
  return fail("PATH_OUTSIDE_SKILL", `'${path}' leads to another's file: ${reached}`);
}

/**
 * Why a tree node's folder serves none of its files: it is an Agent Skill's folder (a SKILL.md in it),
 * whose files are that skill's, served only as that skill. Undefined for an Agent Skill, or a node's own folder.
 */
export function ownerProblem(skill: Skill, root: string): string | undefined {
  if (skill.kind !== "tree-node" || !isSkillFolder(root)) return undefined;
  return `the folder of '${skill.name}' holds a SKILL.md: its files belong to that Agent Skill. Load that skill by its own name and read its files from it.`;
}
