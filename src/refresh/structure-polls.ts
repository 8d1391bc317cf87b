import { type Stats, unwatchFile, watchFile } from "node:fs";
import { MAX_TIMER_MS } from "./source-watchers.ts";

/**
 * The folders outside skills (source folders, collections: where new skills appear), polled by the
 * runtime at the rescan interval: fs.watchFile stats them away from JavaScript and calls back only when
 * one differs, so the timer's promise for new skill folders (one interval, even where the watcher missed
 * them) holds while its own JavaScript check runs only one tick in WATCHED_CHECK_TICKS (timer-plan.ts).
 */
export class StructurePolls {
  private readonly polled = new Set<string>();

  constructor(
    private readonly intervalMs: number,
    private readonly changed: () => void,
    /** Polled too: what the source list is read from (RefresherOptions.sourceInputs). */
    private readonly inputs?: () => readonly string[],
  ) {}

  /** Poll exactly `folders` (the last scan's) and the inputs, a stat each per interval. */
  sync(folders: Iterable<string>): void {
    const wanted = new Set(folders);
    for (const input of this.inputs?.() ?? []) wanted.add(input);
    for (const folder of this.polled) {
      if (wanted.has(folder)) continue;
      unwatchFile(folder, this.listener);
      this.polled.delete(folder);
    }
    for (const folder of wanted) {
      if (this.polled.has(folder)) continue;
      watchFile(folder, { interval: Math.min(this.intervalMs, MAX_TIMER_MS), persistent: false }, this.listener);
      this.polled.add(folder);
    }
  }

  close(): void {
    for (const folder of this.polled) unwatchFile(folder, this.listener);
    this.polled.clear();
  }

  /**
   * A folder's entries changed (its mtime), or it appeared, went or was replaced. Not its access time:
   * the scan's own listing of it would set that off again.
   */
  private readonly listener = (now: Stats, before: Stats): void => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino) this.changed();
  };
}
