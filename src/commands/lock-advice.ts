import type { LockChange } from "../lock/compare.ts";
import type { LockScope } from "../lock/location.ts";
import { type GitHead, LockError, REWRITE_ADVICE } from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";
import { plural } from "../util/plural.ts";
import { program } from "../util/program-name.ts";
import { shownNames } from "../util/shown-arg.ts";
import type { CommandContext } from "./context.ts";
import { fetchAdvice } from "./fetch-advice.ts";

/**
 * What to do about differences from skillhub.lock: accept them, or put back what the lock records. `verify`
 * ends with acceptOrRestore when no repository's state explains them, and with acceptOrRestoreFiles when
 * none of them is a repository's; `sync --frozen`, which has just put every repository back at its locked
 * commit, with acceptOrRestoreFiles.
 */
const reviewThenLock = () =>
  `Review them, then run \`${program()} lock\` to accept them, or restore what the lock records`;
const RESTORE_FILES = "restore a folder's files from version control";

/** The command that writes a lock of `scope` alone: your own (`global`) without the project's. */
export function lockCommand(scope: LockScope): string {
  return `${program()} lock${scope === "global" ? " --global" : ""}`;
}

/**
 * The sync that moves a lock: a plain `skillhub sync`, unless frozen mode comes from the environment or a
 * config file (SKILLHUB_FROZEN, lock.frozen), where a plain sync is frozen too and the variable turns it off.
 */
export function plainSync(ctx: Pick<CommandContext, "args" | "env" | "config">): string {
  const byFlagOnly = ctx.args.flags.frozen === true && !ctx.env.SKILLHUB_FROZEN;
  return !ctx.config.lock.frozen || byFlagOnly ? `${program()} sync` : `SKILLHUB_FROZEN=0 ${program()} sync`;
}

export function acceptOrRestore(): string {
  return `${reviewThenLock()}: \`${program()} sync --frozen\` puts every repository back at its locked commit (a plain \`${program()} sync\` moves the unpinned ones to their branch tip and writes that to the lock); ${RESTORE_FILES}.`;
}

export function acceptOrRestoreFiles(): string {
  return `${reviewThenLock()}: ${RESTORE_FILES}.`;
}

/**
 * A lock naming another URL or ref for a repository than the configuration does (an edit to either, a lock
 * written elsewhere, or another spelling of the same repository's URL): the user picks which one is right,
 * and a plain sync fetches and records the configuration's. Undefined when no change is a URL's or a ref's.
 */
export function otherSourceAdvice(changes: readonly LockChange[]): string | undefined {
  const reconfigured = reconfiguredSources(changes);
  if (reconfigured.length === 0) return undefined;
  const fields = new Set(reconfigured.flatMap((c) => c.fields?.filter((f) => f === "url" || f === "ref") ?? []));
  const what = [...fields].map((f) => (f === "url" ? "URL" : "ref")).join(" or ");
  const labels = reconfigured.map((c) => c.id);
  return `skillhub.lock names another ${what} for ${labels.length === 1 ? "repository" : "repositories"} ${labels.join(", ")} than the configuration (above): if the lock's is right, put it back in skillhub.yaml (or ~/.skillhub/config.yaml); if the configuration's is, \`${program()} sync\` fetches it and records it in the lock, for review before the lock is committed.`;
}

/** The sources configured at another URL or ref than the lock records. */
export function reconfiguredSources(changes: readonly LockChange[]): LockChange[] {
  return changes.filter((c) => c.subject === "source" && c.fields?.some((f) => f === "url" || f === "ref"));
}

/**
 * What `add`, `remove` and `sync` say of the differences from a lock that they leave as the lock has them
 * (build.ts's withSourcesFrom): how many (`what`: "other difference" after the changes they wrote), that
 * `verify` lists them, and that `skillhub lock` accepts them once reviewed.
 */
export function leftAsTheyWere(count: number, what = "other difference"): string {
  const one = count === 1;
  return `${plural(count, what)} from the lock ${one ? "is" : "are"} left as ${one ? "it was" : "they were"} (\`${program()} verify\` lists ${one ? "it" : "them"}): review, then run \`${program()} lock\` to accept ${one ? "it" : "them"}.`;
}

/**
 * Files changed in a repository's copy: it is a cache of the repository, and the next sync discards them,
 * so no lock records them. The sentence naming the first few and what to do instead: `skillhub sync
 * --frozen` when it would put back the commit a lock records (frozenRestores), else a plain `skillhub
 * sync`, which fetches the repository's ref and records that commit.
 */
export function localChangesNote(label: string, edited: readonly string[], locked: boolean): string {
  const shown = shownNames(edited);
  const restore = locked
    ? `run \`${program()} sync --frozen\` to put the locked commit's files back`
    : `run \`${program()} sync\` to put the files of its ref's commit back and record that commit (no lock records this repository yet)`;
  return `repository ${label}'s copy has local changes (${shown}), which the next sync discards: change the repository instead, or ${restore}`;
}

/**
 * Repository `h`'s copy, whose local changes git cannot list (a damaged index, a folder it cannot read):
 * no lock records it, since it may hold what no commit does, and no sync repairs it. The sentence saying
 * which copy, what git said, and what to do.
 */
export function uncheckedNote(hub: Hub, h: GitHead): string {
  const dir = hub.git?.status().find((r) => r.name === h.label)?.dir ?? h.label;
  const why = (h.unchecked ?? "").replace(/\.$/, "");
  return `git cannot say whether repository ${h.label}'s copy in ${dir} has local changes (${why}): fix what git says, or remove the copy (a cache of the repository) and ${fetchAdvice(hub, h.label)}`;
}

/**
 * The advice for lock `file` that cannot be read, by what there is to fetch. `skillhub lock` writes no lock
 * while a repository has no local copy: with one of this lock's not fetched yet, a missing lock's advice is
 * `skillhub sync`, which fetches it and records its repositories; otherwise `skillhub lock`, the one command
 * that records what is served as a whole, once every repository is fetched (it checks them all). A lock
 * that cannot be read stops a sync too, so then the way out is to restore it or remove it. Any other error
 * is returned as it is.
 */
export function lockAdvice(hub: Hub, error: LockError, file: string): LockError {
  const repos = hub.git?.status() ?? [];
  const unsynced = repos.filter((r) => !r.state).map((r) => r.name);
  const own = unsynced.filter((label) => hub.repoLockOf(label).file === file);
  if (error.code !== "LOCK_MISSING") {
    const tail = `${REWRITE_ADVICE}.`;
    if (!error.message.endsWith(tail)) return error;
    // `lock --global` writes your own lock alone, so only your repositories need a copy; `lock` checks all.
    const scope = hub.lockTargets().find((t) => t.file === file)?.scope ?? "project";
    const lock = lockCommand(scope);
    const needed = scope === "global" ? own : unsynced;
    const head = error.message.slice(0, -tail.length);
    if (needed.length === 0)
      return scope === "global"
        ? new LockError(
            error.code,
            `${head}restore it from version control or run \`${lock}\` to write it again.`,
            error,
          )
        : error;
    return new LockError(
      error.code,
      `${head}restore it from version control (\`${lock}\` cannot write it again before ${repositories(needed)} ${needed.length === 1 ? "is" : "are"} fetched, and \`${program()} sync\` stops on it), or remove it and run \`${program()} sync\` to fetch the configured refs and write a new lock, for review before it is committed.`,
      error,
    );
  }
  const advice =
    own.length > 0
      ? `run \`${program()} sync\` to fetch ${repositories(own)} and write it`
      : unsynced.length > 0
        ? `run \`${program()} sync\` to fetch ${repositories(unsynced)}, then \`${program()} lock\` to write it`
        : `run \`${program()} lock\` to write one`;
  return new LockError("LOCK_MISSING", `${error.message.replace(/;.*$/, "")}; ${advice}.`, error);
}

function repositories(labels: readonly string[]): string {
  return `${labels.length === 1 ? "repository" : "repositories"} ${labels.join(", ")}`;
}
