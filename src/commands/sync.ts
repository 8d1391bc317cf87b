import { withSourcesFrom } from "../lock/build.ts";
import { LockError, type Lockfile, readLockfile, writeLockfile } from "../lock/lockfile.ts";
import type { RefreshOutcome } from "../refresh/force-refresh.ts";
import { fetchedFor } from "../refresh/git/git-state.ts";
import type { RepoReport } from "../refresh/git/git-sync-types.ts";
import { type RepoTarget, refOf } from "../refresh/git/git-target.ts";
import type { Hub } from "../server/hub.ts";
import { plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { shellWords } from "../util/shell-words.ts";
import { type CommandContext, type CommandRun, oneShotHub } from "./context.ts";
import { lockedCommits } from "./fetch-advice.ts";
import { reloaded } from "./load-settings.ts";
import {
  acceptOrRestoreFiles,
  leftAsTheyWere,
  lockAdvice,
  lockCommand,
  otherSourceAdvice,
  plainSync,
} from "./lock-advice.ts";
import { changeLines, currentLocks, hasEntries, lockChanges, reviewLines, type TargetLock } from "./lock-state.ts";

/**
 * `skillhub sync [--update [REPO...]] [--frozen] [--json]`: what refresh_skills does,
 * from the command line, then the lock. A pinned repository (SKILLS_REF) stays
 * at its locked commit unless `--update` (every one, or those named); `--frozen` keeps every repository at
 * its locked commit and checks the result against the lock instead of writing
 * it. Progress goes to stderr, the summary to stdout; exit 1 when a repository
 * could not be synced or (frozen) something differs from the lock.
 */
export const runSync: CommandRun = async (ctx) => {
  const frozen = ctx.config.lock.frozen;
  const update = ctx.args.options.update;
  const named = ctx.args.positionals;
  if (frozen && update) {
    ctx.err("skillhub: --update moves the pins and --frozen keeps them: use one of them.\n");
    return 2;
  }
  if (named.length > 0 && !update) {
    ctx.err(
      `skillhub: unexpected argument '${named[0]}' for sync: a sync pulls every repository; name repositories after --update to move only their pins (\`${program()} sync --update ${named[0]}\`).\n`,
    );
    return 2;
  }
  const start = (run: CommandContext) =>
    oneShotHub(run, {
      git: {
        progress: (line) => ctx.err(`sync: ${line}…\n`),
        intervalMs: 0,
        retry: `run \`${program()} sync\` again once that is fixed`,
        lockingSync: plainSync(ctx),
        // --update: sync to the configured refs, whatever the lock says; only the repositories named, if any.
        // It also takes a signed branch's rewritten history (GIT_HISTORY_REWRITTEN), as reviewed.
        ...(update ? { update: (label: string) => named.length === 0 || named.includes(label) } : {}),
      },
    });
  let hub = start(ctx);
  const unknown = named.filter((n) => !hub.git?.targets.some((t) => t.label === n));
  if (unknown.length > 0) {
    const labels = (hub.git?.targets ?? []).map((t) => t.label);
    ctx.err(
      `skillhub: no repository named '${unknown[0]}' to update. ${labels.length > 0 ? `Repositories: ${labels.join(", ")}.` : "No git repository is configured."}\n`,
    );
    hub.close();
    return 2;
  }
  try {
    // Read before syncing: a corrupt lock stops the sync; frozen, the lock of the repositories must exist.
    const previous = new Map<string, Lockfile>();
    for (const [i, target] of hub.lockTargets().entries()) {
      try {
        previous.set(target.file, readLockfile(target.file));
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        if ((frozen && i === 0) || error.code !== "LOCK_MISSING") {
          ctx.err(`skillhub: ${lockProblem(hub, target.file, error)}\n`);
          return 2;
        }
      }
    }
    let outcome = await hub.refreshSkills();
    // A repository's config.yaml may choose the branch it publishes, known once its copy is there (a first
    // clone, or a commit that changes it): the sync goes on to that branch, so that the lock records its
    // commit and not the other branch's under its name. Once: two branches naming each other do not loop.
    if (!frozen && outcome.success) {
      const next = start(await reloaded(ctx));
      const moved = (next.git?.targets ?? []).filter(
        (t) => t.ref === undefined && (fetchedFor(t.dir) ?? t.branch) !== t.branch,
      );
      if (moved.length > 0) {
        for (const t of moved)
          ctx.err(`sync: the config.yaml of repository ${t.label} names branch ${t.branch}, the one it publishes…\n`);
        hub.close();
        hub = next;
        outcome = await hub.refreshSkills();
      } else next.close();
    }
    const targets = await currentLocks(hub);
    const reports = targets.map((t) => {
      const before = previous.get(t.file);
      // What a sync fetches is its repositories' commits: a lock gets their entries, and every folder's stay
      // as it has them (none in a lock not written yet), so that an edit nobody reviewed is still a
      // difference for `verify` (review, then `skillhub lock`). Security: nor does a first lock record a
      // skill a package wrote into ~/.claude/skills unseen.
      const lock = frozen ? t.lock : withSourcesFrom(before, t.lock, repositories(t, before));
      const changes = before ? lockChanges({ ...t, lock }, before) : [];
      // A first lock records something: a sync that fetches nothing leaves no empty lock behind for `verify`
      // to pass.
      const wanted = before ? changes.length > 0 : hasEntries(lock);
      const pending = frozen ? 0 : lockChanges(t, lock).length;
      // The lock records a complete sync only: after a failure it would pin a half-updated state.
      const written = !frozen && outcome.success && wanted;
      if (written) writeLockfile(t.file, lock);
      return { target: t, before, lock, report: { file: t.file, scope: t.scope, written, frozen, changes, pending } };
    });
    const differs = frozen && reports.some((r) => r.report.changes.length > 0);
    if (ctx.args.options.json) {
      const locks = reports.map((r) => r.report);
      ctx.out(`${JSON.stringify({ ...outcome, lock: locks[0], locks }, null, 2)}\n`);
      return outcome.success && !differs ? 0 : 1;
    }
    printOutcome(ctx, hub, outcome);
    for (const { target, before, lock, report } of reports) {
      const { file, changes, written } = report;
      if (frozen) {
        if (!before) {
          if (hasEntries(target.lock))
            ctx.out(`${file}: no lock, not checked (run \`${lockCommand(target.scope)}\` to write it).\n`);
        } else if (changes.length === 0) ctx.out(`${file}: verified (frozen).\n`);
        else
          ctx.out(
            `${file}: ${plural(changes.length, "difference")} (frozen, lock unchanged):\n${changeLines(changes)}`,
          );
      } else if (!outcome.success) {
        // A lock that would record nothing (the personal one, without personal skills) is not news.
        if (target.heads.length > 0 || before || hasEntries(target.lock))
          ctx.out(`${file}: not written, a repository could not be synced.\n`);
      } else if (!written) {
        if (!before && hasEntries(target.lock))
          ctx.out(
            `${file}: not written (a sync records what its repositories bring, and this lock pins none); \`${lockCommand(target.scope)}\` records the ${plural(Object.keys(target.lock.skills).length, "skill")} served, once reviewed.\n`,
          );
        else if (report.pending > 0)
          ctx.out(
            `${file}: not changed (a sync records what its repositories bring); ${leftAsTheyWere(report.pending, "difference")}\n`,
          );
        else if (before) ctx.out(`${file}: up to date.\n`);
      } else if (before) {
        ctx.out(
          `${file}: updated, ${plural(changes.length, "change")}:\n${changeLines(changes)}${await reviewLines(hub, before, target.lock)}`,
        );
        if (report.pending > 0) ctx.out(`${file}: ${leftAsTheyWere(report.pending)}\n`);
      } else {
        ctx.out(`${file}: written (${plural(Object.keys(lock.skills).length, "skill")}).\n`);
        if (report.pending > 0) ctx.out(`${file}: ${leftAsTheyWere(report.pending, "difference")}\n`);
      }
    }
    if (
      !frozen &&
      outcome.success &&
      reports.every((r) => !r.before && !r.report.written && !hasEntries(r.target.lock))
    )
      ctx.out("No lock written: nothing to record (no skill is served and no repository is configured).\n");
    // After a failed fetch the differences may be the failure's: its line says what to do instead.
    // Every repository is at its locked commit now: what differs is a folder's files, or a URL spelt otherwise.
    if (differs && outcome.success)
      ctx.out(`${otherSourceAdvice(reports.flatMap((r) => r.report.changes)) ?? acceptOrRestoreFiles()}\n`);
    return outcome.success && !differs ? 0 : 1;
  } finally {
    hub.close();
  }
};

/**
 * Why a sync stops before it starts on the lock at `file`, and what to do. Frozen, with no lock and no git
 * repository, there is nothing to fetch: what is missing is the lock of the folders' skills.
 */
function lockProblem(hub: Hub, file: string, error: LockError): string {
  if (error.code === "LOCK_MISSING" && (hub.git?.targets.length ?? 0) === 0)
    return `nothing to sync (no git repository is configured), and no lock at ${file} to check the skills against: run \`${program()} lock\` to write one.`;
  return lockAdvice(hub, error, file).message;
}

function printOutcome(ctx: Parameters<CommandRun>[0], hub: Hub, outcome: RefreshOutcome): void {
  if (outcome.mode === "local") {
    ctx.out(
      `No git repository is configured (\`${program()} add owner/repo\` adds one to this project's skillhub.yaml; SKILLS_REPO, or repos: under git: in ${ctx.config.home}/config.yaml, your own).\nRescanned the local folders: ${skills(outcome.skills_reindexed)}.\n`,
    );
    return;
  }
  const width = Math.max(...outcome.repos.map((r) => r.name.length), 4);
  const frozen = ctx.config.lock.frozen;
  const locked = lockedCommits(hub);
  const sources = new Map((hub.git?.sources() ?? []).map((s) => [s.label, s.dir]));
  const targets = new Map((hub.git?.targets ?? []).map((t) => [t.label, t]));
  const sync = plainSync(ctx);
  for (const r of outcome.repos) {
    const commit = (r.commit_hash ?? "-").slice(0, 7).padEnd(7);
    const state = r.error
      ? `FAILED: ${r.error.message}${failedCopy(r, frozen, frozen ? locked.get(r.name) : undefined)}${frozen ? frozenRefusal(r, sync) : lockedInstead(r, locked)}`
      : (frozen || r.ref_commit) && r.commit_hash && locked.get(r.name) === r.commit_hash
        ? atLockedCommit(r, targets.get(r.name), sync)
        : r.cloned
          ? `cloned, ${plural(r.files_changed, "file")}`
          : r.changed
            ? `updated, ${r.files_changed} file${r.files_changed === 1 ? "" : "s"} changed`
            : "up to date";
    ctx.out(`${r.name.padEnd(width)}  ${commit}  ${state}${r.error ? "" : `  ${sources.get(r.name) ?? r.dir}`}\n`);
    for (const w of r.warnings) ctx.out(`${"".padEnd(width)}  warning: ${w}\n`);
  }
  ctx.out(
    `${skills(outcome.skills_reindexed)} indexed${outcome.last_sync ? `; last full sync ${outcome.last_sync}` : ""}.\n`,
  );
}

/**
 * The git sources whose entries a sync writes in `target`'s lock: every configured repository (this lock's
 * and the others', which it records no more) and every one `before` records (one no longer configured goes).
 */
function repositories(target: TargetLock, before: Lockfile | undefined): Set<string> {
  return new Set([
    ...target.heads.map((h) => h.label),
    ...target.elsewhere.keys(),
    ...Object.keys(before?.sources ?? {}),
  ]);
}

function skills(count: number): string {
  return `${count} skill${count === 1 ? "" : "s"}`;
}

/**
 * A repository kept at the commit its lock records (frozen, or pinned to a tag that moved), which is what it
 * serves whatever its branch or tag says: said so, with where that branch or tag is when the remote said it
 * is elsewhere, and what moves the lock there (a plain sync for a branch, `--update` for a tag; lockfile.md).
 */
function atLockedCommit(r: RepoReport, target: RepoTarget | undefined, sync: string): string {
  const at = r.cloned
    ? `cloned at the locked commit, ${plural(r.files_changed, "file")}`
    : r.changed
      ? `checked out the locked commit, ${plural(r.files_changed, "file")} changed`
      : "at the locked commit";
  if (!r.ref_commit || !target) return at;
  const [ref, move] = target.ref ? ["tag", `${sync} --update ${shellWords([target.label])}`] : ["branch", sync];
  return `${at} (${ref} ${refOf(target)} is at ${r.ref_commit.slice(0, 7)}; \`${move}\` moves the lock to it)`;
}

/**
 * A first clone whose branch tip trust.allowed_signers refuses (a teammate's plain `sync` after someone
 * pushed an unsigned commit) leaves nothing to serve, while the commit the project's lock records passed
 * the check when it was locked: `--frozen` fetches that one.
 */
function lockedInstead(r: RepoReport, locked: ReadonlyMap<string, string>): string {
  if (r.commit_hash || r.error?.code !== "GIT_SIGNATURE_INVALID" || !locked.has(r.name)) return "";
  return ` skillhub.lock records a commit of it: \`${program()} sync --frozen\` fetches and serves that one.`;
}

/**
 * Frozen, the commit fetched is the one the lock records: a newly signed commit on the branch serves
 * nothing here until the lock records it, which is the reviewer's `skillhub sync` and a pull.
 */
function frozenRefusal(r: RepoReport, sync: string): string {
  if (r.error?.code !== "GIT_SIGNATURE_INVALID" || !r.error.message.includes("refused commit")) return "";
  return ` Frozen, only the commit skillhub.lock records is fetched: once a signed commit is pushed, whoever reviews it runs \`${sync}\` and commits the lock; pull it, then \`${program()} sync --frozen\` again.`;
}

/**
 * What a failed repository's copy serves now, unless its message says it (a commit trust.allowed_signers
 * refused: git-repo.ts's keepVerified). Frozen (`locked`: the commit the lock records), a copy at another
 * commit serves only the skills whose files the lock records as they are, and one the lock records no
 * commit of serves none.
 */
function failedCopy(r: RepoReport, frozen: boolean, locked?: string): string {
  if (!r.commit_hash || r.error?.code === "GIT_SIGNATURE_INVALID" || r.error?.code === "GIT_HISTORY_REWRITTEN")
    return "";
  if (!r.served) return ` (the local copy is not served: see \`${program()} doctor\`)`;
  if (frozen && !locked)
    return " (a frozen server serves none of the local copy's skills: skillhub.lock records no commit of it)";
  if (!locked || locked === r.commit_hash) return " (the local copy is still served)";
  return ` (the local copy is at commit ${r.commit_hash.slice(0, 12)}, not the lock's ${locked.slice(0, 12)}: a frozen server serves only its skills that match skillhub.lock)`;
}
