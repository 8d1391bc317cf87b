import { existsSync } from "node:fs";
import type { Catalog } from "../catalog/catalog.ts";
import { LOCKED_ENTRIES_MAX } from "../catalog/digests.ts";
import { buildLockfile } from "../lock/build.ts";
import { compareLocks, describeChange, type LockChange } from "../lock/compare.ts";
import { type LockPlace, type LockTarget, lockTargets } from "../lock/location.ts";
import {
  entryOf,
  type GitHead,
  LockError,
  type Lockfile,
  readLockfile,
  readLockfileIfPresent,
} from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";
import type { Skill } from "../skills/skill.ts";
import { resolveProjectRoot } from "../sources/project-root.ts";
import { plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { shellWords } from "../util/shell-words.ts";
import { type CommandContext, oneShotHub } from "./context.ts";
import { lockAdvice } from "./lock-advice.ts";

/** One lock file's share of what would be served now. */
export interface TargetLock extends LockTarget {
  lock: Lockfile;
  /** The repositories this lock pins, with their checkouts. */
  heads: GitHead[];
  /** The repositories another lock pins: label → that lock's file. */
  elsewhere: ReadonlyMap<string, string>;
  /** Skills another source's skill of their name hides: qualified id → the served one's. */
  shadowed: ReadonlyMap<string, string>;
  /** Skills in `lock` only a server without the --skills-dir folders serves: qualified id → the folder's skill's. */
  unflagged: ReadonlyMap<string, string>;
}

/**
 * What a server without some folders (those a command is given with --skills-dir) serves under the names
 * their skills take: for each such name, the first other skill of it in precedence order.
 */
export interface StandIns {
  /** Each skill served without the folders in place of one of theirs → that one. */
  served: ReadonlyMap<Skill, Skill>;
  /** Every other skill of those names, none of the folders' → the one served under its name without them. */
  hiddenBy: ReadonlyMap<Skill, Skill>;
}

const NO_STAND_INS: StandIns = { served: new Map(), hiddenBy: new Map() };

/**
 * The StandIns of the sources `labels` (folders given with --skills-dir) in `catalog`, whose shadowed skills
 * are in precedence order. Security: a folder given for one command hides skills a server without it serves;
 * `verify` compares those with the lock as a plain `verify` does, so that a new skill of such a name (or one
 * in a folder before the recorded one's), a changed one or a file no lock can record is a difference.
 */
export function standIns(catalog: Catalog, labels: ReadonlySet<string>): StandIns {
  const served = new Map<Skill, Skill>();
  const hiddenBy = new Map<Skill, Skill>();
  const first = new Map<Skill, Skill>();
  for (const { skill, by } of catalog.shadowed) {
    if (!labels.has(by.source) || labels.has(skill.source)) continue;
    const winner = first.get(by);
    if (winner) hiddenBy.set(skill, winner);
    else {
      first.set(by, skill);
      served.set(skill, by);
    }
  }
  return { served, hiddenBy };
}

/**
 * The skills `locked` records that a folder given with --skills-dir hides, each with the folder's skill, while
 * a server without the folder serves them as recorded: a folder given for one command is its choice, not a
 * difference, and `skillhub lock --skills-dir` keeps the entry (lock.ts). Security: one that `changes` names
 * (a file changed, one no lock can record) stays a difference, as does any other skill a server without the
 * folder serves in its place (lockChanges compares it).
 */
export function notedStandIns(
  target: TargetLock,
  locked: Lockfile,
  also: StandIns,
  changes: readonly LockChange[],
): Array<[Skill, Skill]> {
  const differs = new Set(changes.filter((c) => c.subject !== "source").map((c) => c.id));
  return [...also.served]
    .filter(([skill]) => entryOf(target.lock.skills, skill.id) && entryOf(locked.skills, skill.id))
    .filter(([skill]) => !differs.has(skill.id));
}

/**
 * What would be served now, as locks: for each lock file (project, global;
 * lock/location.ts) the skills of the hub's current catalog it covers, and
 * the checkouts of the repositories it pins. With `also`, the skills a server
 * without some folders serves in place of theirs are in the locks too.
 */
export async function currentLocks(hub: Hub, also: StandIns = NO_STAND_INS): Promise<TargetLock[]> {
  const heads = (await hub.git?.heads()) ?? [];
  const pinnedBy = new Map(heads.map((h) => [h.label, hub.repoLockOf(h.label).file]));
  const shadowed = new Map(
    hub.catalog.shadowed
      .filter(({ skill }) => !also.served.has(skill))
      .map(({ skill, by }) => [skill.id, (also.hiddenBy.get(skill) ?? by).id]),
  );
  const unflagged = new Map([...also.served].map(([skill, by]) => [skill.id, by.id]));
  const skills = [...hub.catalog.skills, ...also.served.keys()];
  return hub.lockTargets().map((target) => {
    const own = heads.filter((h) => pinnedBy.get(h.label) === target.file);
    const elsewhere = new Map([...pinnedBy].filter(([, file]) => file !== target.file));
    const covered = (skill: Skill) => hub.lockTargetOf(skill).file === target.file;
    const lock = buildLockfile(hub.catalog, own, covered, skills);
    return { ...target, lock, heads: own, elsewhere, shadowed, unflagged };
  });
}

/**
 * Whether `skillhub sync --frozen` puts back the commit a lock records of repository `label`: the lock
 * that pins it records it, and the first lock, which a frozen sync requires (sync.ts), is there and
 * readable, as every other is when it exists.
 */
export function frozenRestores(targets: readonly TargetLock[], label: string): boolean {
  try {
    const locks = targets.map((t, i) => (i === 0 || existsSync(t.file) ? readLockfile(t.file) : undefined));
    const pinning = targets.findIndex((t) => t.heads.some((h) => h.label === label));
    return pinning >= 0 && label in (locks[pinning]?.sources ?? {});
  } catch (error) {
    if (error instanceof LockError) return false;
    throw error;
  }
}

/** Whether a lock records anything (a skill or a git source). */
export function hasEntries(lock: Lockfile): boolean {
  return Object.keys(lock.skills).length > 0 || Object.keys(lock.sources).length > 0;
}

/** Whether `target`'s lock file exists and differs from what would be served now (a corrupt one does). */
export function outdated(target: TargetLock): boolean {
  try {
    return lockChanges(target, readLockfile(target.file)).length > 0;
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return error.code !== "LOCK_MISSING";
  }
}

/**
 * The differences between `locked` and what would be served now. What `locked` records of a repository
 * another lock pins now (and of its skills) is not its business any more:
 * - the project lock reports it as removed, naming the lock that pins it now, so that the next `lock` or
 *   `sync` drops it from the lock the project commits (an earlier SkillHub recorded the user's own
 *   repositories there, which a teammate without them saw as removed);
 * - the global lock ignores it: written outside any project, it records every repository, and inside
 *   one the project lock holds the project's.
 */
export function lockChanges(target: TargetLock, locked: Lockfile): LockChange[] {
  const { heads, elsewhere, shadowed, unflagged } = target;
  if (target.scope !== "global") return compareLocks(locked, target.lock, { heads, elsewhere, shadowed, unflagged });
  const theirs = (label: string) => elsewhere.has(label);
  const sources = Object.entries(locked.sources).filter(([label]) => !theirs(label));
  const skills = Object.entries(locked.skills).filter(([, s]) => !theirs(s.source));
  const own = { ...locked, sources: Object.fromEntries(sources), skills: Object.fromEntries(skills) };
  return compareLocks(own, target.lock, { heads, shadowed, unflagged });
}

/**
 * What writing `target` drops of its file that a plain `skillhub lock` would otherwise drop unsaid: the skills
 * of each source that is not served now (a folder an earlier `lock --skills-dir` recorded, a plugin removed),
 * one sentence per source. None when the file cannot be read.
 */
export function droppedSources(hub: Hub, target: TargetLock): string[] {
  let locked: Lockfile;
  try {
    locked = readLockfile(target.file);
  } catch (error) {
    if (error instanceof LockError) return [];
    throw error;
  }
  const served = new Set(hub.sources().map((s) => s.label));
  const gone = new Map<string, string[]>();
  for (const [id, skill] of Object.entries(locked.skills)) {
    if (served.has(skill.source) || Object.hasOwn(target.lock.skills, id)) continue;
    gone.set(skill.source, [...(gone.get(skill.source) ?? []), id]);
  }
  return [...gone].map(
    ([label, ids]) =>
      `${target.file} no longer records ${ids.length === 1 ? "the skill" : `the ${ids.length} skills`} of ${label} (${ids.join(", ")}): no such source is served now. If it is a folder you give with --skills-dir, \`${program()} lock --skills-dir <folder>\` records it again and keeps the rest.`,
  );
}

/** Skills a lock records as too large to lock (catalog/digests.ts, LOCKED_ENTRIES_MAX): never served frozen. */
export function tooLarge(lock: Lockfile): string[] {
  return Object.entries(lock.skills)
    .filter(([, s]) => s.too_large)
    .map(([id]) => id);
}

/** The note for skills recorded as too large, or undefined when there are none. */
export function tooLargeNote(lock: Lockfile): string | undefined {
  const ids = tooLarge(lock);
  if (ids.length === 0) return undefined;
  return `${plural(ids.length, "skill")} ${ids.length === 1 ? "has" : "have"} more than ${LOCKED_ENTRIES_MAX} files and folders, too many to review: recorded as too large, never served by a frozen server (${ids.join(", ")}). Move what ${ids.length === 1 ? "it does" : "they do"} not need (dependencies, caches) out of ${ids.length === 1 ? "its folder" : "their folders"} to lock ${ids.length === 1 ? "it" : "them"}.`;
}

/**
 * How to read what a repository's new commit changed, for each one whose locked commit moved: the lock shows
 * only digests, and a copy that had the old commit checked out holds both. A copy that never held it (a
 * fresh clone of the project, fetched at its new commit) cannot show the difference: said, not a command
 * that fails.
 */
export async function reviewLines(hub: Hub, before: Lockfile, after: Lockfile): Promise<string> {
  const copies = new Map((hub.git?.sources() ?? []).map((s) => [s.label, s.dir]));
  const lines: string[] = [];
  for (const [label, { commit }] of Object.entries(after.sources)) {
    const old = before.sources[label]?.commit;
    const dir = copies.get(label);
    if (!old || !dir || old === commit) continue;
    const [from, to] = [old.slice(0, 12), commit.slice(0, 12)];
    lines.push(
      (await hub.git?.holds(label, old))
        ? `  review ${label}'s files: ${shellWords(["git", "-C", dir, "diff", from, to])}\n`
        : `  review ${label}'s files: this copy never held commit ${from}, so compare ${from} with ${to} in the repository itself\n`,
    );
  }
  return lines.join("");
}

/** One line per change, indented, for the text output of verify and sync. */
export function changeLines(changes: readonly LockChange[]): string {
  return changes.map((c) => `  ${describeChange(c)}\n`).join("");
}

/** Where this command's locks are: the project's (its root found as a server finds it) and the user's own. */
export function lockPlaceOf(ctx: CommandContext): LockPlace {
  const projectDir = resolveProjectRoot({
    configured: ctx.config.sources.project,
    env: ctx.env,
    cwd: ctx.cwd,
    homeDir: ctx.homeDir,
  }).dir;
  return { file: ctx.config.lock.file, projectDir, home: ctx.config.home, cwd: ctx.cwd };
}

/**
 * Why a lock `add` or `remove` would write (those `which` keeps) cannot be read (corrupt, a folder in its
 * place), without the final period, or undefined. Said before anything is fetched or recorded: a source
 * changed without its lock entry would wait for a review nobody is asked for, and a second `add` would
 * find it there already.
 */
export function unreadableLock(
  ctx: CommandContext,
  which: (t: LockTarget) => boolean = () => true,
): string | undefined {
  for (const target of lockTargets(lockPlaceOf(ctx)).filter(which)) {
    try {
      readLockfileIfPresent(target.file);
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      // What to do depends on what is fetched (`lock` writes nothing while a repository is not).
      const hub = oneShotHub(ctx);
      try {
        return lockAdvice(hub, error, target.file).message.replace(/\.$/, "");
      } finally {
        hub.close();
      }
    }
  }
  return undefined;
}

/** The locks `add` writes: every one for the project's file; only the user's own with --global. */
export function writtenBy(scope: "project" | "global"): (t: LockTarget) => boolean {
  return (t) => scope === "project" || t.scope !== "project";
}
