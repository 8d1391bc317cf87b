import { writeAtomicSync } from "../util/atomic-write.ts";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { readNamedText } from "../util/named-file.ts";
import type { UsageHistory } from "./skill-pick.ts";

/**
 * Loads per skill id, as one client's instructions, skill tool catalog and prompts read them (skill-pick.ts)
 * and its loads add to: a UsageStore, kept in a file across a person's sessions (stdio), or one HTTP
 * session's own SessionUsage (session-usage.ts).
 */
export interface SkillLoads extends UsageHistory {
  /** Changes whenever a count does: a cache key for picks made from the counts. */
  readonly version: number;
  /** One load of `id`. */
  record(id: string): void;
}

/** One skill's line in the usage file: loads so far, and the last one (ms since the epoch). */
interface UsageRecord {
  count: number;
  last: number;
}

/** The usage file's name, in SkillHub's home. */
export const USAGE_FILE = "usage.json";

/** Most skills the file keeps: the most recently loaded (a few dozen bytes each). */
export const USAGE_MAX_SKILLS = 500;

/** Largest usage file read; a larger one (not written by SkillHub) is ignored, with a warning. */
export const USAGE_MAX_BYTES = 256 * 1024;

/** Longest skill id kept (`<source>:<name>`): a longer one is counted in memory only. */
const MAX_ID_CHARS = 300;

/** A burst of loads is written once, this long after the last (ms). */
const SAVE_DELAY_MS = 2000;

const FORMAT = "skillhub-usage";
const FORMAT_VERSION = 1;

export interface UsageStoreOptions {
  /** The file counts persist in (`<home>/usage.json`); none: counted in memory only (one-shot commands, tests). */
  file?: string;
  logger?: Logger;
  /** Injected for tests. */
  now?: () => number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/**
 * How often each skill was loaded, across processes: a stdio client starts a new server per session, so
 * counts kept in memory only were lost at every start, and "the most used skills" were always none. The
 * file holds skill ids (`<source>:<name>`), counts and last-load times, nothing of a skill's text; it is
 * read with the bounded reader, written atomically, and kept to the USAGE_MAX_SKILLS most recently
 * loaded. Several servers may run at once: each adds the loads it made since its last save to what the
 * file holds then, so no server's counts replace another's.
 */
export class UsageStore implements SkillLoads {
  private readonly records = new Map<string, UsageRecord>();
  /** Loads made here since the last save, added to the file's counts at the next one. */
  private readonly unsaved = new Map<string, UsageRecord>();
  private loaded = false;
  private timer: unknown;
  private readonly now: () => number;
  /** Changes whenever a count does: a cache key for picks made from the counts. */
  version = 0;

  constructor(private readonly options: UsageStoreOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  get(id: string): number | undefined {
    this.load();
    return this.records.get(id)?.count;
  }

  /** When `id` was last loaded (ms since the epoch), in this or an earlier process. */
  lastUsed(id: string): number | undefined {
    this.load();
    return this.records.get(id)?.last;
  }

  /** Skills loaded at least once, as far as the file and this process know. */
  get size(): number {
    this.load();
    return this.records.size;
  }

  /** One load of `id`: counted now, written to the file a moment later. */
  record(id: string): void {
    this.load();
    const last = this.now();
    const known = this.records.get(id);
    this.records.set(id, { count: (known?.count ?? 0) + 1, last });
    this.version++;
    if (!this.options.file || id.length > MAX_ID_CHARS) return;
    const pending = this.unsaved.get(id);
    this.unsaved.set(id, { count: (pending?.count ?? 0) + 1, last });
    if (this.timer === undefined) {
      const set = this.options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms).unref());
      this.timer = set(() => {
        this.timer = undefined;
        this.save();
      }, SAVE_DELAY_MS);
    }
  }

  /** Write what is unsaved now (servers call it as they close). */
  save(): void {
    if (this.timer !== undefined) {
      (this.options.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>)))(this.timer);
      this.timer = undefined;
    }
    const file = this.options.file;
    if (!file || this.unsaved.size === 0) return;
    // What other servers wrote since this one read the file, plus this one's loads since its last save.
    const merged = readUsage(file, this.options.logger) ?? new Map<string, UsageRecord>();
    for (const [id, add] of this.unsaved) {
      const known = merged.get(id);
      merged.set(id, { count: (known?.count ?? 0) + add.count, last: Math.max(known?.last ?? 0, add.last) });
    }
    this.unsaved.clear();
    const kept = [...merged].sort((a, b) => b[1].last - a[1].last).slice(0, USAGE_MAX_SKILLS);
    try {
      writeAtomicSync(file, [
        `${JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, skills: Object.fromEntries(kept) })}\n`,
      ]);
    } catch (error) {
      this.options.logger?.debug(`usage counts not saved (${file}): ${errorMessage(error)}`);
    }
    for (const [id, record] of kept) this.records.set(id, record);
    this.version++;
  }

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    const file = this.options.file;
    if (!file) return;
    for (const [id, record] of readUsage(file, this.options.logger) ?? []) this.records.set(id, record);
  }
}

/**
 * The file's counts; undefined when it is missing or unusable (a warning unless simply missing). Entries
 * that are not a count and a time are skipped: the file is SkillHub's, but a person may have edited it.
 */
function readUsage(file: string, logger?: Logger): Map<string, UsageRecord> | undefined {
  // Bounded and non-blocking: a FIFO or a link to /dev/zero under that name is refused, not read for ever.
  const read = readNamedText({ path: file, maxBytes: USAGE_MAX_BYTES });
  if (!read.ok) {
    if (!read.missing) logger?.warn(`usage counts ignored: ${read.reason}`);
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch (error) {
    logger?.warn(
      `usage counts ignored: ${file} is not JSON (${errorMessage(error)}); it is rewritten at the next load.`,
    );
    return undefined;
  }
  const skills = (data as { format?: unknown; skills?: unknown })?.skills;
  if ((data as { format?: unknown })?.format !== FORMAT || typeof skills !== "object" || skills === null) {
    logger?.warn(`usage counts ignored: ${file} is not a SkillHub usage file; it is rewritten at the next load.`);
    return undefined;
  }
  const records = new Map<string, UsageRecord>();
  for (const [id, value] of Object.entries(skills)) {
    const { count, last } = (value ?? {}) as { count?: unknown; last?: unknown };
    if (id.length > MAX_ID_CHARS || !Number.isSafeInteger(count) || (count as number) < 1) continue;
    records.set(id, { count: count as number, last: typeof last === "number" && Number.isFinite(last) ? last : 0 });
    if (records.size >= USAGE_MAX_SKILLS) break;
  }
  return records;
}
