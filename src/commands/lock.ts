import { leftOut } from "../lock/build.ts";
import type { LockTarget } from "../lock/location.ts";
import { writeLockfile } from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";
import { plural } from "../util/plural.ts";
import { type CommandRun, scannedHub } from "./context.ts";
import { fetchAdvice } from "./fetch-advice.ts";
import { localChangesNote, uncheckedNote } from "./lock-advice.ts";
import {
  changeLines,
  currentLocks,
  frozenRestores,
  hasEntries,
  outdated,
  tooLarge,
  tooLargeNote,
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
 */
export const runLock: CommandRun = (ctx) => writeLocks(ctx);

/** runLock, writing only the locks `which` selects (`skillhub add --global`: not the project's). */
export async function writeLocks(
  ctx: Parameters<CommandRun>[0],
  which: (target: LockTarget) => boolean = () => true,
): Promise<number> {
  const hub = await scannedHub(ctx);
  try {
    const all = await currentLocks(hub);
    const targets = all.filter(which);
    const missing = targets.flatMap((t) => t.heads.filter((h) => h.commit === null));
    // A lock without a configured repository (or with a copy nobody verified) would let `verify` pass over
    // skills nobody reviewed: write none.
    if (missing.length > 0) {
      for (const h of missing)
        ctx.err(
          h.notServed
            ? `skillhub lock: repository ${h.label}'s copy is not served (${h.notServed.replace(/\.$/, "")}), so no lock was written; ${servedAgain(hub, h.label)}.\n`
            : `skillhub lock: repository ${h.label} has no local copy yet, so no lock was written; ${fetchAdvice(hub, h.label)}, then \`skillhub lock\` again.\n`,
        );
      return 1;
    }
    // A copy git cannot compare with its commit may hold anything: nothing of it is recorded.
    const unchecked = targets.flatMap((t) => t.heads.filter((h) => h.unchecked));
    if (unchecked.length > 0) {
      for (const h of unchecked)
        ctx.err(`skillhub lock: ${uncheckedNote(hub, h)}, then \`skillhub lock\` again; no lock was written.\n`);
      return 1;
    }
    // A lock of edited files would record bytes no commit holds: the next sync discards them, and a
    // teammate's copy of the same commit would never verify.
    const edited = targets.flatMap((t) => t.heads.filter((h) => h.edited));
    if (edited.length > 0) {
      for (const h of edited)
        ctx.err(
          `skillhub lock: ${localChangesNote(h.label, h.edited ?? [], frozenRestores(all, h.label))}; no lock was written.\n`,
        );
      return 1;
    }
    const wanted = targets.filter((t) => hasEntries(t.lock) || outdated(t));
    const written = wanted.length > 0 ? wanted : targets.slice(0, 1);
    for (const t of written) writeLockfile(t.file, t.lock);
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
    const counts = written.map((t) => ({
      file: t.file,
      scope: t.scope,
      skills: Object.keys(t.lock.skills).length,
      too_large: tooLarge(t.lock),
      sources: Object.keys(t.lock.sources).length,
    }));
    if (ctx.args.options.json) {
      const first = counts[0];
      ctx.out(`${JSON.stringify({ ...first, missing_copies: missing, locks: counts }, null, 2)}\n`);
    } else {
      for (const c of counts)
        ctx.out(`Wrote ${c.file}: ${plural(c.skills, "skill")}, ${plural(c.sources, "git source")}.\n`);
    }
    return 0;
  } finally {
    hub.close();
  }
}

/**
 * What serves a copy trust.allowed_signers refuses again, as the sync reported it: a sync alone fetches
 * no verified commit while the branch's tip (or the pinned one) is not signed by a listed key.
 */
function servedAgain(hub: Hub, label: string): string {
  return hub.git?.status().find((r) => r.name === label)?.fix ?? "run `skillhub sync` to fetch a verified commit";
}
