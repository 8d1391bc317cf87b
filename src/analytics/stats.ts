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
  /** Per skill: how often it was useful, and the comments of negative reports. */
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

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const key = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** Which skill an event is about: a tree tool's `skill_path`, or the `skill` name of the hub tools and `skill`. */
function skillOf(data: Record<string, unknown>): string | undefined {
  return str(data.skill_path) ?? str(data.skill) ?? str(data.name);
}

function count<T>(map: Map<string, T>, k: string, make: () => T): T {
  let v = map.get(k);
  if (v === undefined) {
    v = make();
    map.set(k, v);
  }
  return v;
}

/** Aggregate events (any order) into the summary `skillhub stats` prints. Pure. */
export function summarize(events: readonly AnalyticsEvent[], options: SummaryOptions = {}): UsageSummary {
  const limit = options.limit ?? 20;
  const byType: Record<string, number> = {};
  const used = new Map<string, { skill: string; served: number; loaded: number; scores: number[] }>();
  const noMatch = new Map<string, { context: string; count: number; closest: string | null }>();
  const searches = new Map<string, { query: string; count: number }>();
  const ambiguous = new Map<string, { context: string; count: number; candidates: string[] }>();
  const feedback = new Map<string, { skill: string; useful: number; not_useful: number; comments: string[] }>();
  const assets = new Map<string, { skill: string; file: string; count: number }>();
  const scripts = new Map<
    string,
    { skill: string; file: string; runs: number; failures: number; durations: number[] }
  >();
  const modes: Record<string, number> = {};
  let from: string | null = null;
  let to: string | null = null;

  for (const e of events) {
    byType[e.type] = (byType[e.type] ?? 0) + 1;
    if (from === null || e.timestamp < from) from = e.timestamp;
    if (to === null || e.timestamp > to) to = e.timestamp;
    const d = e.data;
    const skill = skillOf(d);
    switch (e.type) {
      case "skill_served":
      case "skill_loaded": {
        if (!skill) break;
        const u = count(used, key(skill), () => ({ skill, served: 0, loaded: 0, scores: [] as number[] }));
        if (e.type === "skill_served") u.served++;
        else u.loaded++;
        const score = num(d.score);
        if (score !== undefined) u.scores.push(score);
        break;
      }
      case "no_match": {
        const context = str(d.context);
        if (!context) break;
        const n = count(noMatch, key(context), () => ({
          context,
          count: 0,
          closest: str(d.closest_candidate) ?? null,
        }));
        n.count++;
        break;
      }
      case "search": {
        const query = str(d.query);
        const results =
          num(d.results) ?? num(d.result_count) ?? (Array.isArray(d.results) ? d.results.length : undefined);
        if (!query || results !== 0) break;
        count(searches, key(query), () => ({ query, count: 0 })).count++;
        break;
      }
      case "ambiguous": {
        const context = str(d.context);
        if (!context) break;
        const candidates = Array.isArray(d.candidates)
          ? d.candidates.filter((c): c is string => typeof c === "string")
          : [];
        count(ambiguous, key(context), () => ({ context, count: 0, candidates })).count++;
        break;
      }
      case "skill_feedback": {
        if (!skill) break;
        const f = count(feedback, key(skill), () => ({ skill, useful: 0, not_useful: 0, comments: [] as string[] }));
        if (d.useful === false) {
          f.not_useful++;
          const comment = str(d.comment);
          if (comment) f.comments.push(comment);
        } else f.useful++;
        break;
      }
      case "asset_served": {
        const file = str(d.file);
        if (!skill || !file) break;
        count(assets, `${key(skill)}\u0000${file}`, () => ({ skill, file, count: 0 })).count++;
        break;
      }
      case "script_executed": {
        const file = str(d.file);
        if (!skill || !file) break;
        const s = count(scripts, `${key(skill)}\u0000${file}`, () => ({
          skill,
          file,
          runs: 0,
          failures: 0,
          durations: [] as number[],
        }));
        s.runs++;
        if (d.success === false) s.failures++;
        const ms = num(d.duration_ms);
        if (ms !== undefined) s.durations.push(ms);
        const mode = str(d.execution_mode) ?? "server";
        modes[mode] = (modes[mode] ?? 0) + 1;
        break;
      }
      default:
        break;
    }
  }

  const average = (xs: number[]) =>
    xs.length === 0 ? null : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000;
  const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000);
  const byCount = <T extends { count: number }>(xs: Iterable<T>) =>
    [...xs].sort((a, b) => b.count - a.count).slice(0, limit);

  const mostUsed = [...used.values()]
    .map((u) => ({
      skill: u.skill,
      uses: u.served + u.loaded,
      served: u.served,
      loaded: u.loaded,
      average_score: average(u.scores),
    }))
    .sort((a, b) => b.uses - a.uses || a.skill.localeCompare(b.skill))
    .slice(0, limit);
  const neverUsed = (options.catalog ?? []).filter((name) => !used.has(key(name))).sort();
  const feedbackList = [...feedback.values()]
    .map((f) => ({
      skill: f.skill,
      useful: f.useful,
      not_useful: f.not_useful,
      not_useful_rate: rate(f.not_useful, f.useful + f.not_useful),
      comments: f.comments,
    }))
    .sort((a, b) => b.not_useful - a.not_useful || b.not_useful_rate - a.not_useful_rate)
    .slice(0, limit);
  const scriptList = [...scripts.values()]
    .map((s) => ({
      skill: s.skill,
      file: s.file,
      runs: s.runs,
      failures: s.failures,
      failure_rate: rate(s.failures, s.runs),
      average_duration_ms: average(s.durations),
    }))
    .sort((a, b) => b.failure_rate - a.failure_rate || b.runs - a.runs)
    .slice(0, limit);

  return {
    period: { from, to },
    events: events.length,
    by_type: byType,
    most_used: mostUsed,
    never_used: neverUsed,
    no_match: byCount(noMatch.values()),
    failed_searches: byCount(searches.values()),
    ambiguous: byCount(ambiguous.values()),
    feedback: feedbackList,
    assets: byCount(assets.values()),
    scripts: scriptList,
    execution_modes: modes,
  };
}
