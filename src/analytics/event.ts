/**
 * Analytics events: what a tool reports and the
 * envelope every event travels in, to an endpoint or a local JSONL file.
 */

/** The tree tools' types, plus skill_loaded and search for the hub tools and `skill`. */
export const EVENT_TYPES = [
  "skill_served",
  "no_match",
  "ambiguous",
  "asset_served",
  "script_executed",
  "skill_feedback",
  "refresh",
  "skill_loaded",
  "search",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface AnalyticsEvent {
  type: EventType;
  /** ISO 8601. */
  timestamp: string;
  /** `dev-<user>`. */
  server_id: string;
  data: Record<string, unknown>;
}

/** `dev-<user>` from USER / USERNAME; characters outside [A-Za-z0-9._-] become "-". */
export function serverId(env: Record<string, string | undefined>): string {
  const user = (env.USER || env.USERNAME || env.LOGNAME || "unknown").trim() || "unknown";
  return `dev-${user.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 64)}`;
}

const TYPES = new Set<string>(EVENT_TYPES);

/** A parsed JSONL line that has the envelope's shape (files may hold anything). */
export function isAnalyticsEvent(value: unknown): value is AnalyticsEvent {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.type === "string" &&
    TYPES.has(v.type) &&
    typeof v.timestamp === "string" &&
    typeof v.server_id === "string" &&
    typeof v.data === "object" &&
    v.data !== null &&
    !Array.isArray(v.data)
  );
}
