import { buildLockfile, type GitHead } from "../lock/build.ts";
import { compareLocks, describeChange, type LockChange } from "../lock/compare.ts";
import type { Lockfile } from "../lock/lockfile.ts";
import type { Hub } from "../server/hub.ts";

/** What would be served now, as a lock: the hub's current catalog and its repositories' checkouts. */
export async function currentLock(hub: Hub): Promise<{ lock: Lockfile; heads: GitHead[] }> {
  const heads = (await hub.git?.heads()) ?? [];
  return { lock: buildLockfile(hub.catalog, heads), heads };
}

/** The differences between `locked` and what would be served now. */
export async function lockChanges(hub: Hub, locked: Lockfile): Promise<LockChange[]> {
  const { lock, heads } = await currentLock(hub);
  return compareLocks(locked, lock, heads);
}

/** One line per change, indented, for the text output of verify and sync. */
export function changeLines(changes: readonly LockChange[]): string {
  return changes.map((c) => `  ${describeChange(c)}\n`).join("");
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
