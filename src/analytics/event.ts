/**
 * Analytics events: what a tool reports and the
 * envelope every event travels in, to an endpoint or a local JSONL file.
 */

import { readFileSync } from "node:fs";

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

/**
 * `dev-<user>` from USER / USERNAME / LOGNAME, else the system's name for the user the process runs as
 * (a service or a container often sets none of them); characters outside [A-Za-z0-9._-] become "-".
 */
export function serverId(env: Record<string, string | undefined>, osUser: () => string = systemUser): string {
  const named = (env.USER || env.USERNAME || env.LOGNAME || "").trim();
  let user = named;
  if (!user) {
    try {
      user = osUser().trim();
    } catch {
      // No name for this user id (a container's arbitrary uid).
    }
  }
  return `dev-${(user || "unknown").replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 64)}`;
}

/**
 * The user name of the process's user id, as `id -un` gives it: its /etc/passwd entry (Bun's userInfo()
 * takes the name from USER, so says "unknown" without it), else userInfo()'s. node:os only when asked:
 * not at start-up.
 */
function systemUser(): string {
  const uid = process.getuid?.();
  if (uid !== undefined) {
    let passwd = "";
    try {
      passwd = readFileSync("/etc/passwd", "utf8");
    } catch {
      // Not every system keeps its users there.
    }
    for (const line of passwd.split("\n")) {
      const [name, , id] = line.split(":");
      if (name && id === String(uid)) return name;
    }
  }
  const name = (require("node:os") as typeof import("node:os")).userInfo().username;
  return name === "unknown" ? "" : name;
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
