import { statSync } from "node:fs";
import { join } from "node:path";
import { bufferFile, localFile } from "../analytics/setup.ts";
import { type UsageSummary, UsageTally } from "../analytics/stats.ts";
import { UsageFile } from "../analytics/usage-file.ts";
import type { Config } from "../config/schema.ts";

/** Loads of one skill per day, oldest day first. */
export interface DailySeries {
  skill: string;
  counts: number[];
  total: number;
}

export interface UsageView {
  /** The files read (those that exist). */
  files: string[];
  events: number;
  malformed: number;
  /** ISO dates (YYYY-MM-DD), oldest first: the `days` days ending on the latest event's day. */
  days: string[];
  /** The most loaded skills over `days`, then "other skills" for the rest. */
  series: DailySeries[];
  summary: UsageSummary;
}

/** Skills drawn as their own series in the daily chart; the rest are summed as "other skills". */
export const SERIES_SHOWN = 6;
const DAY_MS = 86_400_000;

/** The analytics files `skillhub stats` reads: the local file (or `<home>/analytics.jsonl`) and the unsent buffer. */
export function analyticsFiles(config: Config): string[] {
  return [localFile(config) ?? join(config.home, "analytics.jsonl"), bufferFile(config)];
}

/** What the analytics files hold: the files there, their events' tally, the lines that are not events. */
export interface UsageRead {
  files: string[];
  tally: UsageTally;
  malformed: number;
}

/**
 * The analytics files followed (analytics/usage-file.ts): each read folds only what was appended since
 * the last one, so a page that polls costs what changed, and the first read of a large file is done a
 * chunk at a time while the server answers its other requests.
 */
export class EventFiles {
  private followed = new Map<string, UsageFile>();

  async read(files: readonly string[]): Promise<UsageRead> {
    for (const path of this.followed.keys()) if (!files.includes(path)) this.followed.delete(path);
    const present: UsageFile[] = [];
    for (const path of files) {
      let file = this.followed.get(path);
      if (!file) {
        file = new UsageFile(path);
        this.followed.set(path, file);
      }
      await file.update();
      if (file.present) present.push(file);
    }
    // The usual case is one file with events (the buffer is empty while the endpoint answers): its tally
    // is used as it is, not copied.
    const withEvents = present.filter((f) => f.tally.events > 0);
    const tally =
      withEvents.length === 1
        ? (withEvents[0] as UsageFile).tally
        : withEvents.reduce((all, f) => all.merge(f.tally), new UsageTally());
    return {
      files: present.map((f) => f.path),
      tally,
      malformed: present.reduce((n, f) => n + f.malformed, 0),
    };
  }

  /** A value that changes when any of the files changes (for the page's live updates). */
  stamp(files: readonly string[]): string {
    return files
      .map((f) => {
        const s = statSync(f, { throwIfNoEntry: false });
        return s ? `${s.size}:${s.mtimeMs}` : "-";
      })
      .join("|");
  }
}

/**
 * Usage over time for the page's charts: loads (skill_loaded, skill_served)
 * per skill per day over `days` days ending on the latest load's day, and
 * `skillhub stats`' summary (top skills, searches and requests without a hit). Pure.
 */
export function usageView(read: UsageRead, catalogNames: readonly string[], days = 30): UsageView {
  const { tally } = read;
  const summary = tally.summary({ catalog: catalogNames, limit: 10 });
  const end = Math.floor((tally.lastLoadMs > 0 ? tally.lastLoadMs : Date.now()) / DAY_MS);
  const first = end - days + 1;
  const dayList = Array.from({ length: days }, (_, i) => new Date((first + i) * DAY_MS).toISOString().slice(0, 10));
  const ranked: DailySeries[] = [];
  for (const [skill, byDay] of tally.daily) {
    const counts = dayList.map((_, i) => byDay.get(first + i) ?? 0);
    const total = counts.reduce((a, b) => a + b, 0);
    if (total > 0) ranked.push({ skill, counts, total });
  }
  ranked.sort((a, b) => b.total - a.total || a.skill.localeCompare(b.skill));
  const series = ranked.slice(0, SERIES_SHOWN);
  const rest = ranked.slice(SERIES_SHOWN);
  if (rest.length > 0) {
    const counts = dayList.map((_, i) => rest.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
    series.push({ skill: `${rest.length} other skills`, counts, total: counts.reduce((a, b) => a + b, 0) });
  }
  return { files: read.files, events: tally.events, malformed: read.malformed, days: dayList, series, summary };
}
