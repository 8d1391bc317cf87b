import type { Catalog } from "../catalog/catalog.ts";
import { digestSkill } from "../catalog/digests.ts";
import type { LockChange } from "./compare.ts";
import { entryOf, type Lockfile } from "./lockfile.ts";

/**
 * What the folders of the skills `lock` records hold that no lock can record (catalog/digests.ts,
 * `unrecordable`: a name SkillHub cannot open as it is, an unreadable file, a FIFO, a link out), as
 * added files. Security: a frozen server runs no code in such a folder, since what a process would read
 * there was never reviewed; `verify` names them so that CI fails before the server refuses. Skills
 * recorded as too large are left out: they are refused whole.
 */
export function unrecordableChanges(catalog: Catalog, lock: Lockfile): LockChange[] {
  const changes: LockChange[] = [];
  for (const skill of catalog.skills) {
    const locked = entryOf(lock.skills, skill.id);
    if (!locked || locked.too_large) continue;
    for (const { path, why } of digestSkill(skill).unrecordable)
      changes.push({
        kind: "added",
        subject: "file",
        id: skill.id,
        file: path,
        detail: `cannot be recorded by a lock (${why}): a frozen server runs no code in this skill's folder`,
      });
  }
  return changes;
}
