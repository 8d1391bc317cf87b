import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AnalyticsEvent } from "../analytics/event.ts";
import { readJsonlFile } from "../analytics/jsonl.ts";
import { bufferFile, localFile } from "../analytics/setup.ts";
import { summarize, type UsageSummary } from "../analytics/stats.ts";
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

/**
 * Parsed events, cached per file by size and modification time: a page that
 * polls does not re-read an unchanged file, and a grown one is read again.
 */
export class EventFiles {
  private cache = new Map<string, { stamp: string; events: AnalyticsEvent[]; malformed: number }>();

  read(files: readonly string[]): { files: string[]; events: AnalyticsEvent[]; malformed: number } {
    const present: string[] = [];
    const events: AnalyticsEvent[] = [];
    let malformed = 0;
    for (const file of files) {
      const stat = existsSync(file) ? statSync(file, { throwIfNoEntry: false }) : undefined;
      if (!stat?.isFile()) {
        this.cache.delete(file);
        continue;
      }
      present.push(file);
      const stamp = `${stat.size}:${stat.mtimeMs}`;
      let entry = this.cache.get(file);
      if (entry?.stamp !== stamp) {
        entry = { stamp, ...readJsonlFile(file) };
        this.cache.set(file, entry);
      }
      for (const e of entry.events) events.push(e);
      malformed += entry.malformed;
    }
    return { files: present, events, malformed };
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
 * per skill per day over `days` days ending on the latest event's day, and
 * `skillhub stats`' summary (top skills, searches and requests without a hit). Pure.
 */
export function usageView(
  read: { files: string[]; events: readonly AnalyticsEvent[]; malformed: number },
  catalogNames: readonly string[],
  days = 30,
): UsageView {
  const summary = summarize(read.events, { catalog: catalogNames, limit: 10 });
  const loads = read.events.filter((e) => e.type === "skill_loaded" || e.type === "skill_served");
  const lastMs = loads.reduce((max, e) => Math.max(max, Date.parse(e.timestamp) || 0), 0);
  const end = lastMs > 0 ? Math.floor(lastMs / DAY_MS) : Math.floor(Date.now() / DAY_MS);
  const first = end - days + 1;
  const dayList = Array.from({ length: days }, (_, i) => new Date((first + i) * DAY_MS).toISOString().slice(0, 10));
  const bySkill = new Map<string, number[]>();
  for (const e of loads) {
    const day = Math.floor((Date.parse(e.timestamp) || 0) / DAY_MS);
    if (day < first || day > end) continue;
    const skill = skillOf(e.data);
    if (!skill) continue;
    let counts = bySkill.get(skill);
    if (!counts) {
      counts = new Array(days).fill(0);
      bySkill.set(skill, counts);
    }
    counts[day - first] = (counts[day - first] ?? 0) + 1;
  }
  const ranked = [...bySkill.entries()]
    .map(([skill, counts]) => ({ skill, counts, total: counts.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || a.skill.localeCompare(b.skill));
  const series = ranked.slice(0, SERIES_SHOWN);
  const rest = ranked.slice(SERIES_SHOWN);
  if (rest.length > 0) {
    const counts = dayList.map((_, i) => rest.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0));
    series.push({ skill: `${rest.length} other skills`, counts, total: counts.reduce((a, b) => a + b, 0) });
  }
  return { files: read.files, events: read.events.length, malformed: read.malformed, days: dayList, series, summary };
}

function skillOf(data: Record<string, unknown>): string | undefined {
  for (const k of ["skill_path", "skill", "name"]) {
    const v = data[k];
    if (typeof v === "string" && v.trim() !== "") return v.trim();
  }
  return undefined;
}
