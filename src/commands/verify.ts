import { leftOut } from "../lock/build.ts";
import type { LockChange } from "../lock/compare.ts";
import { LockError, type Lockfile, readLockfile } from "../lock/lockfile.ts";
import { sameRepository } from "../refresh/git/git-url.ts";
import type { Hub } from "../server/hub.ts";
import { capitalised, plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { type CommandRun, flagFolders, scannedHub } from "./context.ts";
import { fetchAdvice } from "./fetch-advice.ts";
import {
  acceptOrRestore,
  acceptOrRestoreFiles,
  localChangesNote,
  lockAdvice,
  lockCommand,
  otherSourceAdvice,
  reconfiguredSources,
  uncheckedNote,
} from "./lock-advice.ts";
import {
  changeLines,
  currentLocks,
  frozenRestores,
  hasEntries,
  lockChanges,
  notedStandIns,
  standIns,
  type TargetLock,
  tooLarge,
  tooLargeNote,
} from "./lock-state.ts";

interface Checked {
  target: TargetLock;
  /** The lock's differences, then what no lock can record (also in `unrecordable`). */
  changes: LockChange[];
  unrecordable: readonly LockChange[];
  /** The repositories the lock records. */
  sources: Lockfile["sources"];
}

/**
 * `skillhub verify [--json]`: compare what is on disk, and what would be
 * served, with the locks (project and global, lock/location.ts). Exit 0 when
 * they match, 1 naming every added, removed or changed source, skill and file,
 * 2 when a needed lock is missing or cannot be read. A missing global lock is
 * a note, not a failure: personal skills are not the project's business, and
 * CI has none.
 */
export const runVerify: CommandRun = async (ctx) => {
  // A repository never fetched here is said once, below, with what to run first.
  const hub = await scannedHub(ctx, { sayUnsynced: false });
  try {
    const json = ctx.args.options.json;
    // Security: what a server without the --skills-dir folders serves under the names their skills take is
    // compared with the locks too; the folders are the command's choice, not the project's.
    const also = standIns(hub.catalog, flagLabels(hub, flagFolders(ctx)));
    const targets = await currentLocks(hub, also);
    const checked: Checked[] = [];
    const notes: { scope: string; file: string; note: string }[] = [];
    const missing = new Map<string, LockError>();
    for (const target of targets) {
      let locked: Lockfile;
      try {
        locked = readLockfile(target.file);
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        const needed = error.code !== "LOCK_MISSING" || (target.scope !== "global" && hasEntries(target.lock));
        if (needed) return fail(ctx, json, target.file, lockAdvice(hub, error, target.file));
        missing.set(target.file, error);
        if (hasEntries(target.lock)) {
          const n = Object.keys(target.lock.skills).length;
          const repos = Object.keys(target.lock.sources).length > 0 ? "the repositories of your own config, " : "";
          const note = `${plural(n, "personal skill")} (global folders, ${repos}--skills-dir folders outside the project, plugins) not verified: no lock at ${target.file}; run \`${lockCommand(target.scope)}\` to write it.`;
          notes.push({ scope: target.scope, file: target.file, note });
        }
        continue;
      }
      const { unrecordable } = leftOut(target.lock);
      const differences = lockChanges(target, locked);
      for (const [skill, by] of notedStandIns(target, locked, also, [...differences, ...unrecordable]))
        notes.push({
          scope: target.scope,
          file: target.file,
          note: `${target.file} records ${skill.id}, which ${by.id} hides while its folder is given with --skills-dir.`,
        });
      checked.push({ target, changes: [...differences, ...unrecordable], unrecordable, sources: locked.sources });
    }
    // Nothing at all to compare with: as before the split, that is a missing lock.
    const unread = notes[0]?.file ?? targets[0]?.file;
    const error = unread ? missing.get(unread) : undefined;
    if (checked.length === 0 && unread && error) return fail(ctx, json, unread, lockAdvice(hub, error, unread));
    const changes = checked.flatMap((c) => c.changes);
    if (json) {
      const locks = [
        ...checked.map((c) => ({
          scope: c.target.scope,
          file: c.target.file,
          ok: c.changes.length === 0,
          changes: c.changes,
          too_large: tooLarge(c.target.lock),
        })),
        ...notes,
      ];
      ctx.out(
        `${JSON.stringify({ ok: changes.length === 0, lock: checked[0]?.target.file, changes, locks }, null, 2)}\n`,
      );
      return changes.length === 0 ? 0 : 1;
    }
    for (const n of notes) ctx.err(`skillhub: ${n.note}\n`);
    for (const c of checked) {
      const note = tooLargeNote(c.target.lock);
      if (note) ctx.err(`skillhub: ${c.target.file}: ${note}\n`);
    }
    for (const { target, changes: own } of checked) {
      // No difference: what would be served is what the lock records (less what another lock covers now).
      if (own.length === 0)
        ctx.out(
          `${target.file}: verified, ${plural(Object.keys(target.lock.skills).length, "skill")} and ${plural(Object.keys(target.lock.sources).length, "git source")} match.\n`,
        );
      else
        ctx.out(`${target.file}: ${plural(own.length, "difference")} from what would be served:\n${changeLines(own)}`);
    }
    if (changes.length === 0) return 0;
    const unpinned = unpinnedOwn(checked);
    if (unpinned) ctx.out(`${unpinned}\n`);
    // A fresh clone of the project: its repositories are not fetched yet, so every one of their skills reads
    // as removed. Fetching the locked commits comes first; accepting the differences would drop them.
    // One configured at another URL or ref than the lock's is not fetched so: nextStep says what to choose.
    const reconfigured = new Set(reconfiguredSources(changes).map((c) => c.id));
    const unsynced = (hub.git?.status() ?? []).filter((r) => !r.state && !reconfigured.has(r.name)).map((r) => r.name);
    if (unsynced.length > 0) {
      ctx.out(
        `${unsynced.length === 1 ? "Repository" : "Repositories"} ${unsynced.join(", ")} ${unsynced.length === 1 ? "has" : "have"} no local copy on this machine yet: ${fetchAdvice(hub, unsynced[0] as string)}, then \`${program()} verify\` again.\n`,
      );
      return 1;
    }
    const unrecordable = checked.flatMap((c) => c.unrecordable);
    const repoLabels = new Set((hub.git?.sources() ?? []).map((r) => r.label));
    if (unrecordable.length > 0) ctx.out(`${unrecordableAdvice(unrecordable, repoLabels)}\n`);
    // A copy git cannot compare with its commit, or one with local changes: `skillhub lock` accepts neither.
    const unchecked = checked.flatMap((c) => c.target.heads.filter((h) => h.unchecked));
    for (const h of unchecked) ctx.out(`${capitalised(uncheckedNote(hub, h))}, then \`${program()} verify\` again.\n`);
    const edited = checked.flatMap((c) => c.target.heads.filter((h) => h.edited));
    for (const h of edited)
      ctx.out(`${capitalised(localChangesNote(h.label, h.edited ?? [], frozenRestores(targets, h.label)))}.\n`);
    const unconfigured = unconfiguredNote(hub, checked);
    if (unconfigured) ctx.out(`${unconfigured}\n`);
    if (unrecordable.length < changes.length && edited.length + unchecked.length === 0)
      ctx.out(`${nextStep(hub, changes)}\n`);
    return 1;
  } finally {
    hub.close();
  }
};

/** The labels of the sources of `dirs` (the command's --skills-dir folders). */
function flagLabels(hub: Hub, dirs: readonly string[]): Set<string> {
  return new Set(hub.catalog.sources.filter((s) => dirs.includes(s.dir)).map((s) => s.label));
}

/**
 * What to run after differences, by their cause. A copy that is another repository's is cloned again by
 * the next sync; `skillhub lock` records none. A copy trust.allowed_signers refuses is neither accepted
 * by `skillhub lock` (it records no unverified commit) nor always restored by `sync --frozen` (the locked
 * commit may be one a retired key signed): only a commit signed by a listed key serves it again. Copies
 * merely at other commits than the lock's, with nothing else changed, are what a pull of a newer lock
 * leaves: fetching the locked commits comes first, since `skillhub lock` would write the old ones back.
 */
function nextStep(hub: Hub, changes: LockChange[]): string {
  const repos = hub.git?.status() ?? [];
  const refused = repos.filter((r) => r.state && r.not_served);
  // Files changed in a copy: the sync's advice is a plain `skillhub sync`, which would also move a branch's
  // copy to its tip and rewrite the lock; `--frozen` puts the files back at the commit the lock records.
  const restore = (fix: string) =>
    fix.startsWith(`\`${program()} sync\``)
      ? `\`${program()} sync --frozen\` puts its files back at the commit skillhub.lock records`
      : capitalised(fix);
  if (refused.length > 0)
    return refused
      .map(
        (r) =>
          `Repository ${r.name} is not served here: ${r.foreign_origin ? `its copy in ${r.dir} is another repository's` : "trust.allowed_signers refuses its copy"} (above), and \`${program()} lock\` records no such copy. ${restore(r.fix ?? "")}; then run \`${program()} verify\` again.`,
      )
      .join("\n");
  const otherSource = otherSourceAdvice(changes);
  if (otherSource) return otherSource;
  const labels = new Set(repos.map((r) => r.name));
  const ofRepo = (c: LockChange) => labels.has(c.subject === "source" ? c.id : c.id.slice(0, c.id.indexOf(":")));
  const moved = changes.filter((c) => c.subject === "source" && c.kind === "changed" && labels.has(c.id));
  if (moved.length > 0 && changes.every(ofRepo)) {
    const names = moved.map((c) => c.id).join(", ");
    return `${moved.length === 1 ? "The copy" : "The copies"} of ${names} ${moved.length === 1 ? "is" : "are"} at another commit than skillhub.lock records (as after pulling a newer lock, or a server that followed the branch): run \`${program()} sync --frozen\` to check out the locked ${moved.length === 1 ? "commit" : "commits"}; only when ${moved.length === 1 ? "the copy's commit goes" : "each copy's commit goes"} on from the locked one (a server that followed the branch), review the change and run \`${program()} lock\` to record it. A copy at an older commit is a rollback: it is not recorded.`;
  }
  // Only what applies: no repository differs, so no sync restores anything.
  return changes.some(ofRepo) ? acceptOrRestore() : acceptOrRestoreFiles();
}

/**
 * The repositories a lock records that are not configured here under any label (a teammate without the
 * SKILLS_REPO the lock was written with): accepting the differences would drop them from the lock.
 */
function unconfiguredNote(hub: Hub, checked: readonly Checked[]): string | undefined {
  const urls = (hub.git?.targets ?? []).map((t) => t.spec.url);
  const gone = checked.flatMap((c) =>
    c.changes
      .filter((ch) => ch.subject === "source" && ch.kind === "removed")
      .flatMap((ch) => {
        const url = Object.hasOwn(c.sources, ch.id) ? c.sources[ch.id]?.url : undefined;
        return url && !urls.some((u) => sameRepository(u, url)) ? [ch.id] : [];
      }),
  );
  if (gone.length === 0) return undefined;
  const [they, are, them] = gone.length === 1 ? ["Repository", "is", "it"] : ["Repositories", "are", "them"];
  return `${they} ${gone.join(", ")}, which skillhub.lock records, ${are} not configured here: to serve ${them}, configure ${them} as the lock's writer did (SKILLS_REPO, or \`${program()} add URL\`); if ${them} ${are === "is" ? "was" : "were"} removed on purpose, \`${program()} lock\` records that.`;
}

/**
 * What to do about files no lock can record: `skillhub lock` would leave them out again. A repository's
 * copy is put back at its commit by each sync, so there they are changed in the repository itself.
 */
function unrecordableAdvice(changes: readonly LockChange[], repoLabels: ReadonlySet<string>): string {
  const one = changes.length === 1;
  const it = one ? "it" : "them";
  const inRepos = changes.filter((c) => repoLabels.has(c.id.slice(0, c.id.indexOf(":")))).length;
  const fix =
    inRepos === 0
      ? `rename or remove ${it}, then run \`${program()} lock\``
      : inRepos === changes.length
        ? `rename or remove ${it} in the repository, then run \`${program()} sync\``
        : `rename or remove ${it} (a repository's in the repository, then \`${program()} sync\`), then run \`${program()} lock\``;
  return `${one ? "A file" : `${changes.length} files`} above cannot be recorded by any lock (\`${program()} lock\` leaves ${it} out): ${fix}.`;
}

/**
 * After an upgrade, your own repositories are pinned by ~/.skillhub/skillhub.lock, which an earlier
 * version never recorded them in: the sentence that says so, or undefined when no such repository is new.
 */
function unpinnedOwn(checked: readonly Checked[]): string | undefined {
  const labels = checked
    .filter((c) => c.target.scope === "global")
    .flatMap((c) => c.changes.filter((x) => x.subject === "source" && x.kind === "added").map((x) => x.id));
  if (labels.length === 0) return undefined;
  const one = labels.length === 1;
  return `${one ? "Repository" : "Repositories"} ${labels.join(", ")} of your own config ${one ? "is" : "are"} not pinned by your lock yet (as after an upgrade: earlier versions recorded ${one ? "it" : "them"} in the project lock): ${one ? "it follows its branch" : "they follow their branches"} and a frozen server leaves ${one ? "its" : "their"} skills out; review the copy and run \`${lockCommand("global")}\`.`;
}

function fail(ctx: Parameters<CommandRun>[0], json: unknown, file: string, error: LockError): number {
  if (json)
    ctx.out(
      `${JSON.stringify({ ok: false, lock: file, error: { code: error.code, message: error.message } }, null, 2)}\n`,
    );
  else ctx.err(`skillhub: ${error.message}\n`);
  return 2;
}
