import { LockError, readLockfile } from "../lock/lockfile.ts";
import { type CommandRun, scannedHub } from "./context.ts";
import { changeLines, lockChanges, plural } from "./lock-state.ts";

/**
 * `skillhub verify [--json]`: compare what is on disk, and what would be
 * served, with skillhub.lock. Exit 0 when they match, 1 naming every added,
 * removed or changed source, skill and file, 2 when the lock is missing or
 * cannot be read.
 */
export const runVerify: CommandRun = async (ctx) => {
  const hub = scannedHub(ctx);
  try {
    const file = hub.lockFile();
    let locked: ReturnType<typeof readLockfile>;
    try {
      locked = readLockfile(file);
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      if (ctx.args.options.json)
        ctx.out(
          `${JSON.stringify({ ok: false, lock: file, error: { code: error.code, message: error.message } }, null, 2)}\n`,
        );
      else ctx.err(`skillhub: ${error.message}\n`);
      return 2;
    }
    const changes = await lockChanges(hub, locked);
    if (ctx.args.options.json) {
      ctx.out(`${JSON.stringify({ ok: changes.length === 0, lock: file, changes }, null, 2)}\n`);
      return changes.length === 0 ? 0 : 1;
    }
    if (changes.length === 0) {
      ctx.out(
        `${file}: verified, ${plural(Object.keys(locked.skills).length, "skill")} and ${plural(Object.keys(locked.sources).length, "git source")} match.\n`,
      );
      return 0;
    }
    ctx.out(`${file}: ${plural(changes.length, "difference")} from what would be served:\n${changeLines(changes)}`);
    ctx.out(
      "Review them, then run `skillhub lock` to accept, or restore the files (`skillhub sync` for repositories).\n",
    );
    return 1;
  } finally {
    hub.close();
  }
};
