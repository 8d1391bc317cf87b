import type { AnalyticsEvent } from "./event.ts";

/** The derived usage metrics that local events support. */
export interface UsageSummary {
  period: { from: string | null; to: string | null };
  events: number;
  by_type: Record<string, number>;
  /** Most consulted skills (skill_served + skill_loaded), with the average get_skill score. */
  most_used: { skill: string; uses: number; served: number; loaded: number; average_score: number | null }[];
  /** Catalog skills never served or loaded: candidates for removal. */
  never_used: string[];
  /** get_skill contexts with no match: gaps in the tree. */
  no_match: { context: string; count: number; closest: string | null }[];
  /** Searches that returned nothing. */
  failed_searches: { query: string; count: number }[];
  ambiguous: { context: string; count: number; candidates: string[] }[];
  /** Per skill: how often it was useful, and the latest comments of negative reports (at most COMMENTS_KEPT). */
  feedback: { skill: string; useful: number; not_useful: number; not_useful_rate: number; comments: string[] }[];
  assets: { skill: string; file: string; count: number }[];
  scripts: {
    skill: string;
    file: string;
    runs: number;
    failures: number;
    failure_rate: number;
    average_duration_ms: number | null;
  }[];
  /** run_script executions by mode (server vs claude). */
  execution_modes: Record<string, number>;
}

export interface SummaryOptions {
  /** Names (and tree paths) of every skill in the catalog, for `never_used`. */
  catalog?: readonly string[];
  /** Longest list kept per metric. Default 20. */
  limit?: number;
}

/** Comments of negative feedback kept per skill, the latest ones: a tally holds counts, not every event's text. */
export const COMMENTS_KEPT = 100;
/**
 * Distinct texts a list of requests that found nothing keeps (failed searches, unmatched and ambiguous
 * `get_skill` contexts): their words come from clients, so each is new as often as a client likes. Past
 * twice this many, the least counted are dropped; a dropped text counted again starts from one.
 */
export const TEXTS_KEPT = 10_000;
const DAY_MS = 86_400_000;

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const key = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** Which skill an event is about: a tree tool's `skill_path`, or the `skill` name of the hub tools and `skill`. */
export function skillOf(data: Record<string, unknown>): string | undefined {
  return str(data.skill_path) ?? str(data.skill) ?? str(data.name);
}

/** A running sum and how many numbers went into it (an average without keeping the numbers). */
interface Mean {
  sum: number;
  n: number;
}

interface Used {
  skill: string;
  served: number;
  loaded: number;
  score: Mean;
}
interface Script {
  skill: string;
  file: string;
  runs: number;
  failures: number;
  duration: Mean;
}
interface Feedback {
  skill: string;
  useful: number;
  not_useful: number;
  comments: string[];
}

function entry<T>(map: Map<string, T>, k: string, make: () => T): T {
  let v = map.get(k);
  if (v === undefined) {
    v = make();
    map.set(k, v);
  }
  return v;
}

/**
 * Usage aggregates, folded one event at a time: what `skillhub stats` prints and the page's usage view
 * draws, kept current by adding the events appended to a file instead of reading it all again. Holds
 * counts per skill, query, file and day, never the events themselves. Events may come in any order.
 */
export class UsageTally {
  events = 0;
  private byType: Record<string, number> = {};
  private from: string | null = null;
  private to: string | null = null;
  private used = new Map<string, Used>();
  private noMatch = new Map<string, { context: string; count: number; closest: string | null }>();
  private searches = new Map<string, { query: string; count: number }>();
  private ambiguous = new Map<string, { context: string; count: number; candidates: string[] }>();
  private feedback = new Map<string, Feedback>();
  private assets = new Map<string, { skill: string; file: string; count: number }>();
  private scripts = new Map<string, Script>();
  private modes: Record<string, number> = {};
  /** Loads (skill_loaded, skill_served) per skill as named, per day (days since 1970-01-01 UTC). */
  readonly daily = new Map<string, Map<number, number>>();
  /** The latest load's time (ms since 1970), 0 before the first. */
  lastLoadMs = 0;

  add(e: AnalyticsEvent): void {
    this.events++;
    this.byType[e.type] = (this.byType[e.type] ?? 0) + 1;
    if (this.from === null || e.timestamp < this.from) this.from = e.timestamp;
    if (this.to === null || e.timestamp > this.to) this.to = e.timestamp;
    const d = e.data;
    const skill = skillOf(d);
    switch (e.type) {
      case "skill_served":
      case "skill_loaded": {
        const ms = Date.parse(e.timestamp) || 0;
        this.lastLoadMs = Math.max(this.lastLoadMs, ms);
        if (!skill) break;
        const days = entry(this.daily, skill, () => new Map<number, number>());
        const day = Math.floor(ms / DAY_MS);
        days.set(day, (days.get(day) ?? 0) + 1);
        const u = entry(this.used, key(skill), () => ({ skill, served: 0, loaded: 0, score: { sum: 0, n: 0 } }));
        if (e.type === "skill_served") u.served++;
        else u.loaded++;
        const score = num(d.score);
        if (score !== undefined) addMean(u.score, score);
        break;
      }
      case "no_match": {
        const context = str(d.context);
        if (!context) break;
        countText(this.noMatch, key(context), () => ({ context, count: 0, closest: str(d.closest_candidate) ?? null }));
        break;
      }
      case "search": {
        const query = str(d.query);
        const results =
          num(d.results) ?? num(d.result_count) ?? (Array.isArray(d.results) ? d.results.length : undefined);
        if (!query || results !== 0) break;
        countText(this.searches, key(query), () => ({ query, count: 0 }));
        break;
      }
      case "ambiguous": {
        const context = str(d.context);
        if (!context) break;
        const candidates = Array.isArray(d.candidates)
          ? d.candidates.filter((c): c is string => typeof c === "string")
          : [];
        countText(this.ambiguous, key(context), () => ({ context, count: 0, candidates }));
        break;
      }
      case "skill_feedback": {
        if (!skill) break;
        const f = entry(this.feedback, key(skill), () => ({ skill, useful: 0, not_useful: 0, comments: [] }));
        if (d.useful === false) {
          f.not_useful++;
          const comment = str(d.comment);
          if (comment) keepLatest(f.comments, [comment]);
        } else f.useful++;
        break;
      }
      case "asset_served": {
        const file = str(d.file);
        if (!skill || !file) break;
        entry(this.assets, `${key(skill)}\u0000${file}`, () => ({ skill, file, count: 0 })).count++;
        break;
      }
      case "script_executed": {
        const file = str(d.file);
        if (!skill || !file) break;
        const s = entry(this.scripts, `${key(skill)}\u0000${file}`, () => ({
          skill,
          file,
          runs: 0,
          failures: 0,
          duration: { sum: 0, n: 0 },
        }));
        s.runs++;
        if (d.success === false) s.failures++;
        const ms = num(d.duration_ms);
        if (ms !== undefined) addMean(s.duration, ms);
        const mode = str(d.execution_mode) ?? "server";
        this.modes[mode] = (this.modes[mode] ?? 0) + 1;
        break;
      }
      default:
        break;
    }
  }

  /**
   * Add another tally's counts (another file's), as if its events had been added after this one's: the
   * first name seen for a skill or query is kept, and ties keep first-seen order.
   */
  merge(other: UsageTally): this {
    this.events += other.events;
    addCounts(this.byType, other.byType);
    addCounts(this.modes, other.modes);
    if (other.from !== null && (this.from === null || other.from < this.from)) this.from = other.from;
    if (other.to !== null && (this.to === null || other.to > this.to)) this.to = other.to;
    this.lastLoadMs = Math.max(this.lastLoadMs, other.lastLoadMs);
    for (const [skill, days] of other.daily) {
      const mine = entry(this.daily, skill, () => new Map<number, number>());
      for (const [day, n] of days) mine.set(day, (mine.get(day) ?? 0) + n);
    }
    mergeInto(this.used, other.used, (a, b) => {
      a.served += b.served;
      a.loaded += b.loaded;
      a.score.sum += b.score.sum;
      a.score.n += b.score.n;
    });
    mergeTexts(this.noMatch, other.noMatch);
    mergeTexts(this.searches, other.searches);
    mergeTexts(this.ambiguous, other.ambiguous);
    mergeInto(this.assets, other.assets, addCount);
    mergeInto(this.feedback, other.feedback, (a, b) => {
      a.useful += b.useful;
      a.not_useful += b.not_useful;
      keepLatest(a.comments, b.comments);
    });
    mergeInto(this.scripts, other.scripts, (a, b) => {
      a.runs += b.runs;
      a.failures += b.failures;
      a.duration.sum += b.duration.sum;
      a.duration.n += b.duration.n;
    });
    return this;
  }

  /** The summary `skillhub stats` prints. */
  summary(options: SummaryOptions = {}): UsageSummary {
    const limit = options.limit ?? 20;
    const average = (m: Mean) => (m.n === 0 ? null : Math.round((m.sum / m.n) * 1000) / 1000);
    const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000);
    const byCount = <T extends { count: number }>(xs: Iterable<T>) =>
      [...xs]
        .sort((a, b) => b.count - a.count)
        .slice(0, limit)
        .map((x) => ({ ...x }));
    const mostUsed = [...this.used.values()]
      .map((u) => ({
        skill: u.skill,
        uses: u.served + u.loaded,
        served: u.served,
        loaded: u.loaded,
        average_score: average(u.score),
      }))
      .sort((a, b) => b.uses - a.uses || a.skill.localeCompare(b.skill))
      .slice(0, limit);
    const neverUsed = (options.catalog ?? []).filter((name) => !this.used.has(key(name))).sort();
    const feedbackList = [...this.feedback.values()]
      .map((f) => ({
        skill: f.skill,
        useful: f.useful,
        not_useful: f.not_useful,
        not_useful_rate: rate(f.not_useful, f.useful + f.not_useful),
        comments: [...f.comments],
      }))
      .sort((a, b) => b.not_useful - a.not_useful || b.not_useful_rate - a.not_useful_rate)
      .slice(0, limit);
    const scriptList = [...this.scripts.values()]
      .map((s) => ({
        skill: s.skill,
        file: s.file,
        runs: s.runs,
        failures: s.failures,
        failure_rate: rate(s.failures, s.runs),
        average_duration_ms: average(s.duration),
      }))
      .sort((a, b) => b.failure_rate - a.failure_rate || b.runs - a.runs)
      .slice(0, limit);
    return {
      period: { from: this.from, to: this.to },
      events: this.events,
      by_type: { ...this.byType },
      most_used: mostUsed,
      never_used: neverUsed,
      no_match: byCount(this.noMatch.values()),
      failed_searches: byCount(this.searches.values()),
      ambiguous: byCount(this.ambiguous.values()).map((a) => ({ ...a, candidates: [...a.candidates] })),
      feedback: feedbackList,
      assets: byCount(this.assets.values()),
      scripts: scriptList,
      execution_modes: { ...this.modes },
    };
  }
}

/** Aggregate events (any order) into the summary `skillhub stats` prints. Pure. */
export function summarize(events: Iterable<AnalyticsEvent>, options: SummaryOptions = {}): UsageSummary {
  const tally = new UsageTally();
  for (const e of events) tally.add(e);
  return tally.summary(options);
}

/** Count one more of a client's text in `map`, keeping the map within twice TEXTS_KEPT. */
function countText<T extends { count: number }>(map: Map<string, T>, k: string, make: () => T): void {
  entry(map, k, make).count++;
  keepMostCounted(map);
}

function addCount<T extends { count: number }>(a: T, b: T): void {
  a.count += b.count;
}

/** Merge another tally's texts of one list into this one's, within twice TEXTS_KEPT. */
function mergeTexts<T extends { count: number }>(into: Map<string, T>, from: Map<string, T>): void {
  mergeInto(into, from, addCount);
  keepMostCounted(into);
}

/**
 * Past 2 × TEXTS_KEPT entries, keep the TEXTS_KEPT most counted (ties: first seen), in first-seen order.
 * Amortised over the TEXTS_KEPT additions between two prunings, a sort of 20,000 counts is cheap.
 */
function keepMostCounted(map: Map<string, { count: number }>): void {
  if (map.size <= 2 * TEXTS_KEPT) return;
  const counts = Float64Array.from(map.values(), (v) => v.count).sort();
  const floor = counts[counts.length - TEXTS_KEPT] as number;
  let room = TEXTS_KEPT - counts.filter((c) => c > floor).length;
  for (const [k, v] of map) {
    if (v.count > floor) continue;
    if (v.count === floor && room > 0) room--;
    else map.delete(k);
  }
}

function addMean(m: Mean, x: number): void {
  m.sum += x;
  m.n++;
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

/** Add `more` to `list`, keeping the latest COMMENTS_KEPT. */
function keepLatest(list: string[], more: readonly string[]): void {
  list.push(...more);
  if (list.length > COMMENTS_KEPT) list.splice(0, list.length - COMMENTS_KEPT);
}

/** Merge `from`'s entries into `into`: `combine` for a key both hold, a copy for a new one. */
function mergeInto<T extends object>(into: Map<string, T>, from: Map<string, T>, combine: (a: T, b: T) => void): void {
  for (const [k, v] of from) {
    const mine = into.get(k);
    if (mine) combine(mine, v);
    else into.set(k, structuredClone(v));
  }
}
