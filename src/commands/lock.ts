import { writeLockfile } from "../lock/lockfile.ts";
import { type CommandRun, scannedHub } from "./context.ts";
import { currentLock, plural } from "./lock-state.ts";

/**
 * `skillhub lock [--json]`: record what would be served now in skillhub.lock
 * (no network: the repositories' copies as they are). The review step: run it
 * after checking a change, commit the lock, and `verify` / `--frozen` hold
 * everyone to it.
 */
export const runLock: CommandRun = async (ctx) => {
  const hub = scannedHub(ctx);
  try {
    const { lock, heads } = await currentLock(hub);
    const file = hub.lockFile();
    const missing = heads.filter((h) => h.commit === null).map((h) => h.label);
    // A lock without a configured repository would let `verify` pass over skills nobody reviewed: write none.
    if (missing.length > 0) {
      for (const label of missing)
        ctx.err(
          `skillhub lock: repository ${label} has no local copy yet, so no lock was written; run \`skillhub sync\` (it fetches, then writes the lock).\n`,
        );
      return 1;
    }
    writeLockfile(file, lock);
    if (ctx.args.options.json) {
      ctx.out(
        `${JSON.stringify({ file, skills: Object.keys(lock.skills).length, sources: Object.keys(lock.sources).length, missing_copies: missing }, null, 2)}\n`,
      );
    } else {
      ctx.out(
        `Wrote ${file}: ${plural(Object.keys(lock.skills).length, "skill")}, ${plural(Object.keys(lock.sources).length, "git source")}.\n`,
      );
    }
    return 0;
  } finally {
    hub.close();
  }
};
