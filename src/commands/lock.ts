import type { SourceStatus } from "../catalog/catalog.ts";
import { leftOut, relabelledLock, withSourcesFrom } from "../lock/build.ts";
import { compareLocks, type LockChange } from "../lock/compare.ts";
import type { LockTarget } from "../lock/location.ts";
import {
  entryOf,
  type GitHead,
  LockError,
  type Lockfile,
  readLockfile,
  readLockfileIfPresent,
  writeLockfile,
} from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";
import type { Source } from "../sources/source-list.ts";
import { plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { shellWords } from "../util/shell-words.ts";
import { type CommandRun, flagFolders, scannedHub } from "./context.ts";
import { fetchAdvice } from "./fetch-advice.ts";
import { leftAsTheyWere, localChangesNote, plainSync, uncheckedNote } from "./lock-advice.ts";
import {
  changeLines,
  currentLocks,
  droppedSources,
  frozenRestores,
  hasEntries,
  lockChanges,
  notedStandIns,
  outdated,
  reviewLines,
  standIns,
  type TargetLock,
  tooLarge,
  tooLargeNote,
  writtenBy,
} from "./lock-state.ts";

/**
 * `skillhub lock [--json]`: record what would be served now (no network: the
 * repositories' copies as they are). The project's skills and repositories
 * (skillhub.yaml, SKILLS_REPO) go to `<project>/skillhub.lock`, to commit; the
 * user's own (global folders, plugins, the repositories of their own config
 * file) to `~/.skillhub/skillhub.lock`, so a teammate without them still
 * verifies (lock/location.ts). Each file is written when it has something to
 * record or when it records what is no longer served (a lock whose last source
 * went is emptied, not left to pin it); with nothing at all, the first, so
 * `verify` finds a lock.
 *
 * `skillhub lock --skills-dir DIR...` records those folders alone, in the lock that covers each, and keeps
 * every other entry as the lock has it: a folder given for one command is no change of the project's
 * configuration, so the skills it hides (or takes the place of) must not leave the lock the project commits.
 */
export const runLock: CommandRun = (ctx) => {
  const folders = flagFolders(ctx);
  if (!ctx.args.options.global) return writeLocks(ctx, { folders });
  // Your own skills alone (reviewed in ~/.claude/skills, say), the project's lock left for its own review.
  const usage = (text: string) => {
    ctx.err(`skillhub lock: ${text}\n`);
    return Promise.resolve(2);
  };
  if (folders.length > 0)
    return usage("--global records your own lock whole, and --skills-dir those folders alone: use one of them.");
  if (ctx.config.lock.file)
    return usage(
      `SKILLHUB_LOCK (lock.file) keeps every source in one lock, ${ctx.config.lock.file}: run \`${program()} lock\` to write it.`,
    );
  return writeLocks(ctx, { which: writtenBy("global") });
};

/** Which locks writeLocks writes, and which of their entries. */
export interface LockWrite {
  /** The locks to write (`skillhub add --global`: not the project's); all by default. */
  which?: (target: LockTarget) => boolean;
  /**
   * The sources (labels) whose entries are written as they are now; every other entry of an existing lock
   * is kept as it is (`skillhub add` and `remove`: withSourcesFrom), and a lock not written yet gets none.
   * Every source when not given.
   */
  sources?: ReadonlySet<string>;
  /**
   * The sources before `add` or `remove` changed the configuration: a folder whose label changed with it
   * (a folder of the same name added or removed beside it) has its entries moved to its new label.
   */
  previous?: readonly Source[];
  /**
   * Explicit folders (absolute) whose entries alone are written, each in the lock that covers it; every other
   * entry of those locks is kept as it is, and no other lock is written. Overrides `which` and `sources`.
   */
  folders?: readonly string[];
}

/** runLock, writing only what `write` selects. */
export async function writeLocks(ctx: Parameters<CommandRun>[0], write: LockWrite = {}): Promise<number> {
  const hub = await scannedHub(ctx);
  try {
    const folders = write.folders && write.folders.length > 0 ? namedFolders(hub, write.folders) : undefined;
    if (typeof folders === "string") {
      ctx.err(`skillhub lock: ${folders}\n`);
      return 1;
    }
    const how: LockWrite = folders
      ? { sources: new Set(folders.map((s) => s.label)), which: coveringAny(hub, folders) }
      : write;
    const all = await currentLocks(hub);
    const only = how.sources;
    const chosen = all.filter(how.which ?? (() => true));
    const renames = relabelled(how.previous ?? [], hub.sources());
    const targets: KeptLock[] | string = only ? keepingOthers(chosen, only, renames) : chosen;
    if (typeof targets === "string") {
      ctx.err(`skillhub: ${targets}\n`);
      return 1;
    }
    // Only the state of the repositories written matters where the other entries stay as the lock has them
    // (or stay out of a lock not written yet); a lock written whole records every repository, so every one
    // is checked.
    const heads = (t: KeptLock) => (only && t.kept ? t.heads.filter((h) => only.has(h.label)) : t.heads);
    const missing = targets.flatMap((t) => heads(t).filter((h) => h.commit === null));
    // A lock without a configured repository (or with a copy nobody verified) would let `verify` pass over
    // skills nobody reviewed: write none.
    if (missing.length > 0) {
      for (const h of missing)
        ctx.err(
          h.notServed
            ? `skillhub lock: repository ${h.label}'s copy is not served (${h.notServed.replace(/\.$/, "")}), so no lock was written; ${servedAgain(hub, h.label)}.\n`
            : `skillhub lock: repository ${h.label} has no local copy yet, so no lock was written; ${fetchAdvice(hub, h.label)}, then \`${program()} lock\` again.\n`,
        );
      return 1;
    }
    // A copy git cannot compare with its commit may hold anything: nothing of it is recorded.
    const unchecked = targets.flatMap((t) => heads(t).filter((h) => h.unchecked));
    if (unchecked.length > 0) {
      for (const h of unchecked)
        ctx.err(`skillhub lock: ${uncheckedNote(hub, h)}, then \`${program()} lock\` again; no lock was written.\n`);
      return 1;
    }
    const back = await movedBack(hub, targets, heads);
    if (back.length > 0) {
      for (const line of back) ctx.err(`skillhub lock: ${line}; no lock was written.\n`);
      return 1;
    }
    // A copy fetched for another ref than the configured one holds that ref's commit, which the lock would
    // record as the configured ref's: a plain sync fetches the configured ref and records it.
    const refetch = targets.flatMap((t) => heads(t).filter((h) => h.fetchedFor));
    if (refetch.length > 0) {
      for (const h of refetch)
        ctx.err(
          `skillhub lock: repository ${h.label}'s copy was fetched for ${h.fetchedFor}, not the configured ${h.ref}, so no lock was written; run \`${plainSync(ctx)}\` to fetch ${h.ref} and record it in the lock, for review before the lock is committed.\n`,
        );
      return 1;
    }
    // A lock of edited files would record bytes no commit holds: the next sync discards them, and a
    // teammate's copy of the same commit would never verify.
    const edited = targets.flatMap((t) => heads(t).filter((h) => h.edited));
    if (edited.length > 0) {
      for (const h of edited)
        ctx.err(
          `skillhub lock: ${localChangesNote(h.label, h.edited ?? [], frozenRestores(all, h.label))}; no lock was written.\n`,
        );
      return 1;
    }
    // A lock whose entries add or remove leave as they are is not written again (nor said to be); one
    // `lock --skills-dir` was asked to record is, as a plain lock writes every lock. A lock not written yet
    // is written when it records something.
    const wanted = targets.filter((t) =>
      t.kept === "kept" ? folders || outdated(t) : hasEntries(t.lock) || (!t.kept && outdated(t)),
    );
    const written = wanted.length > 0 || targets.some((t) => t.kept) ? wanted : targets.slice(0, 1);
    // A plain lock drops the skills of a source no longer served: said, since a folder given once with
    // --skills-dir (and locked so) is one, and a server given it again refuses them when frozen.
    const dropped = only ? [] : written.flatMap((t) => droppedSources(hub, t));
    for (const t of written) writeLockfile(t.file, t.lock);
    for (const line of dropped) ctx.err(`skillhub lock: ${line}\n`);
    for (const t of written) {
      const note = tooLargeNote(t.lock);
      if (note) ctx.err(`skillhub lock: ${note}\n`);
      const { unrecordable, ignored } = leftOut(t.lock);
      if (unrecordable.length > 0)
        ctx.err(
          `skillhub lock: ${plural(unrecordable.length, "file")} left out of ${t.file}, which no lock can record (rename or remove ${unrecordable.length === 1 ? "it" : "them"}):\n${changeLines(unrecordable)}`,
        );
      const one = ignored.length === 1;
      if (ignored.length > 0)
        ctx.err(
          `skillhub lock: ${plural(ignored.length, "file")} left out of ${t.file}, which git ignores in ${one ? "its" : "their"} repository's copy (no commit holds ${one ? "it" : "them"}, so a teammate's copy of the same commit has none, and a frozen server does not serve ${one ? "it" : "them"}):\n${changeLines(ignored)}`,
        );
    }
    // What add and remove left as it was: a change nobody reviewed, which `verify` still names.
    if (only) {
      const { pending, kept } = await leftForReview(hub, targets, chosen, folders ? only : undefined);
      for (const line of kept) ctx.err(`skillhub lock: ${line}\n`);
      if (pending > 0) ctx.err(`skillhub: ${leftAsTheyWere(pending)}\n`);
    }
    // Every lock, written or left as it was (an add of a source already there writes none).
    const counts = targets.map((t) => ({
      file: t.file,
      scope: t.scope,
      written: written.includes(t),
      skills: Object.keys(t.lock.skills).length,
      too_large: tooLarge(t.lock),
      sources: Object.keys(t.lock.sources).length,
      // The files of its skills the lock does not record, as stderr names them.
      left_out: leftOut(t.lock),
    }));
    if (ctx.args.options.json) {
      const first = counts.find((c) => c.written) ?? counts[0];
      ctx.out(`${JSON.stringify({ ...first, missing_copies: missing, locks: counts }, null, 2)}\n`);
    } else {
      for (const t of written) {
        ctx.out(
          `Wrote ${t.file}: ${plural(Object.keys(t.lock.skills).length, "skill")}, ${plural(Object.keys(t.lock.sources).length, "git source")}.\n`,
        );
        if (t.before) ctx.out(await movedLines(hub, t.before, t.lock));
      }
    }
    if (folders && written.length === 0)
      ctx.err(
        `skillhub lock: no lock was written: ${folders.map((f) => f.dir).join(", ")} ${folders.length === 1 ? "serves" : "serve"} no skill, and no lock records ${folders.length === 1 ? "it" : "them"} yet.\n`,
      );
    // A first lock of nothing is most often a command run in the wrong folder.
    if (!only && written.every((t) => !hasEntries(t.lock)) && hub.catalog.skills.length === 0)
      ctx.err(
        `skillhub lock: nothing is served here (no skill, no repository), so the lock records nothing; the project root is ${hub.projectRoot.dir ?? "(none)"} (${hub.projectRoot.how}): if that is not the project, run lock there or pass --project (\`${program()} doctor\` says where it looks for skills).\n`,
      );
    return 0;
  } finally {
    hub.close();
  }
}

/**
 * With trust.allowed_signers, why each repository's copy that went back from the commit its lock records
 * (moved back in the copy: GitSync.goesBack) is not recorded. Security: a sync takes such a commit only with
 * `skillhub sync --update`, after review; `skillhub lock` is no way around that.
 */
async function movedBack(hub: Hub, targets: readonly KeptLock[], heads: (t: KeptLock) => GitHead[]): Promise<string[]> {
  const lines: string[] = [];
  for (const t of targets) {
    let sources: Lockfile["sources"];
    try {
      sources = readLockfile(t.file).sources;
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      continue;
    }
    for (const h of heads(t)) {
      const locked = Object.hasOwn(sources, h.label) ? sources[h.label] : undefined;
      if (!h.commit || !locked || locked.url !== h.url || locked.ref !== h.ref || locked.commit === h.commit) continue;
      if (!(await hub.git?.goesBack(h.label, locked.commit))) continue;
      lines.push(
        `repository ${h.label}'s copy is at commit ${h.commit.slice(0, 12)}, which does not go on from commit ${locked.commit.slice(0, 12)} recorded in ${t.file} (moved back in the copy), and trust.allowed_signers lets a lock only go forward: run \`${program()} sync --frozen\` to put the copy back at the locked commit, or, if the branch was rewritten on purpose, review it and run \`${program()} sync --update ${shellWords([h.label])}\``,
      );
    }
  }
  return lines;
}

/**
 * The sources of `dirs` (lock --skills-dir), or the sentence saying why no lock is written: a folder that
 * cannot be read would lock as empty, dropping what a lock records of it.
 */
function namedFolders(hub: Hub, dirs: readonly string[]): SourceStatus[] | string {
  const named = hub.catalog.sources.filter((s) => dirs.includes(s.dir));
  const unread = named.find((s) => !s.exists);
  if (unread)
    return `the --skills-dir folder ${unread.dir} cannot be read (it does not exist or is not a folder), so no lock was written.`;
  return named;
}

/** Whether a lock covers one of `folders` (lock/location.ts: the project's for a folder inside it). */
function coveringAny(hub: Hub, folders: readonly SourceStatus[]): (target: LockTarget) => boolean {
  const files = new Set(
    folders.map((s) => hub.lockTargetOf({ location: s.location, root: s.dir, source: s.label }).file),
  );
  return (target) => files.has(target.file);
}

/**
 * How many differences from the written locks `targets` a later `verify` names (`chosen`: what is served now,
 * each target's), and the notes on the skills a lock keeps though the folders `flagged` (--skills-dir) hide
 * them. With such folders the count is verify's given the same folders (lock-state.ts, standIns): a skill
 * they hide that a server without them serves as recorded is a note; a new, changed or unrecordable one in
 * its place is a difference.
 */
async function leftForReview(
  hub: Hub,
  targets: readonly KeptLock[],
  chosen: readonly TargetLock[],
  flagged?: ReadonlySet<string>,
): Promise<{ pending: number; kept: string[] }> {
  // A lock not written yet that gets no entry stays unwritten: `verify` says it is missing, not how it differs.
  const counted = (t: KeptLock) => t.kept !== "fresh" || hasEntries(t.lock);
  if (!flagged)
    return {
      pending: targets.reduce((n, t, i) => n + (counted(t) ? lockChanges(chosen[i] ?? t, t.lock).length : 0), 0),
      kept: [],
    };
  const also = standIns(hub.catalog, flagged);
  const seen = await currentLocks(hub, also);
  const standInIds = new Set([...also.served.keys()].map((skill) => skill.id));
  let pending = 0;
  const kept: string[] = [];
  for (const t of targets.filter(counted)) {
    const now = seen.find((s) => s.file === t.file) ?? t;
    // The folders' own unrecordable files are said above; a stand-in's are verify's differences.
    const unrecordable = leftOut(now.lock).unrecordable.filter((c) => standInIds.has(c.id));
    const changes = [...lockChanges(now, t.lock), ...unrecordable];
    pending += changes.length;
    for (const [skill, by] of notedStandIns(now, t.lock, also, changes))
      kept.push(
        `${t.file} keeps ${skill.id}, which ${by.id} hides while its folder is given with --skills-dir (\`${program()} verify\` with that folder notes it).`,
      );
  }
  return { pending, kept };
}

/**
 * What a repository the lock records before and after brings now (`skillhub add` of it at another ref):
 * the lines of its changes, and the command that shows what its new commit changed, as a sync prints them.
 */
async function movedLines(hub: Hub, before: Lockfile, after: Lockfile): Promise<string> {
  const repos = new Set(Object.keys(before.sources).filter((label) => Object.hasOwn(after.sources, label)));
  const label = (c: LockChange) =>
    c.subject === "source" ? c.id : (entryOf(after.skills, c.id) ?? entryOf(before.skills, c.id))?.source;
  const moved = compareLocks(before, after).filter((c) => repos.has(label(c) ?? ""));
  return moved.length > 0 ? `${changeLines(moved)}${await reviewLines(hub, before, after)}` : "";
}

/** Each folder that has another label in `after` than in `before`: its label before → its label now. */
function relabelled(before: readonly Source[], after: readonly Source[]): Map<string, string> {
  const now = new Map(after.map((s) => [s.dir, s.label]));
  return new Map(
    before.flatMap((s) => {
      const label = now.get(s.dir);
      return label !== undefined && label !== s.label ? [[s.label, label] as const] : [];
    }),
  );
}

/**
 * A lock about to be written; `kept`: an existing lock whose other sources' entries stay as they are;
 * `fresh`: one not written yet, which gets the named sources' entries alone.
 */
type KeptLock = TargetLock & { kept?: "kept" | "fresh"; before?: Lockfile };

/**
 * `targets` with each lock's entries kept but for those of `sources` (withSourcesFrom), a folder relabelled
 * (`renames`) keeping its entries under its new label; a lock not written yet gets theirs alone. Security: a command that names sources records nothing else, which nobody asked it
 * to, and nobody reviewed (a skill a package wrote into ~/.claude/skills). The sentence naming a lock that
 * cannot be read, whose entries nobody can keep: it is not replaced by what would be served now.
 */
function keepingOthers(
  targets: readonly TargetLock[],
  sources: ReadonlySet<string>,
  renames: ReadonlyMap<string, string>,
): KeptLock[] | string {
  const kept: KeptLock[] = [];
  for (const t of targets) {
    let before: Lockfile | undefined;
    try {
      before = readLockfileIfPresent(t.file);
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      return `${error.message.replace(/\.$/, "")}; no lock was written.`;
    }
    kept.push(
      before
        ? { ...t, lock: withSourcesFrom(relabelledLock(before, renames), t.lock, sources), kept: "kept", before }
        : { ...t, lock: withSourcesFrom(undefined, t.lock, sources), kept: "fresh" },
    );
  }
  return kept;
}

/**
 * What serves a copy trust.allowed_signers refuses again, as the sync reported it: a sync alone fetches
 * no verified commit while the branch's tip (or the pinned one) is not signed by a listed key.
 */
function servedAgain(hub: Hub, label: string): string {
  return hub.git?.status().find((r) => r.name === label)?.fix ?? `run \`${program()} sync\` to fetch a verified commit`;
}
