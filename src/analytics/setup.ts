import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import { configSecrets } from "../exec/env.ts";
import type { Logger } from "../util/logger.ts";
import { knownSecretValues } from "../util/secret-env.ts";
import { timerDelay } from "../util/timer-limit.ts";
import { serverId } from "./event.ts";
import { Publisher, type PublisherOptions, safeOrigin } from "./publisher.ts";
import { Tracker } from "./tracker.ts";

export interface Analytics {
  tracker: Tracker;
  /** Present when events go somewhere (an endpoint or a file). */
  publisher?: Publisher;
  /** One line for logs and `doctor`. */
  describe: string;
  /**
   * `describe` without the user the server runs as (events' `server_id`, `dev-<user>`): the line the page
   * shows a client (ui/client-view.ts).
   */
  describeForClients: string;
}

/** What `describeForClients` says in place of `dev-<user>`. */
export const SERVER_USER = "<server user>";

export interface AnalyticsOverrides extends Partial<Omit<PublisherOptions, "tracker" | "logger">> {
  now?: () => number;
}

/** `<home>/analytics-buffer.jsonl`. */
export function bufferFile(config: Config): string {
  return join(config.home, "analytics-buffer.jsonl");
}

/**
 * The local JSONL file: `analytics.file`, else `<home>/analytics.jsonl` when
 * analytics is enabled without an endpoint (events must go somewhere).
 */
export function localFile(config: Config): string | undefined {
  const a = config.analytics;
  if (a.file) return a.file;
  return a.enabled && !a.endpoint ? join(config.home, "analytics.jsonl") : undefined;
}

/** Tracker and publisher from the configuration (off unless configured). */
export function createAnalytics(
  config: Config,
  env: Record<string, string | undefined>,
  logger: Logger,
  overrides: AnalyticsOverrides = {},
): Analytics {
  const a = config.analytics;
  const enabled = a.enabled;
  // The values scrubbed from comments: the server's secrets and every credential-looking variable's.
  const secrets = knownSecretValues(env, configSecrets(config));
  const tracker = new Tracker({
    enabled,
    maxQueue: a.max_queue,
    serverId: serverId(env),
    logger,
    now: overrides.now,
    secrets,
  });
  if (!enabled) {
    const off = "off (set ANALYTICS_ENDPOINT, SKILLHUB_ANALYTICS_FILE or analytics.file to turn it on)";
    return { tracker, describe: off, describeForClients: off };
  }
  const endpoint = a.endpoint || undefined;
  const file = localFile(config);
  const publisher = new Publisher({
    tracker,
    logger,
    endpoint,
    file,
    bufferFile: bufferFile(config),
    // A longer delay would fire at once, over and over.
    flushMs: timerDelay(a.flush_seconds * 1000),
    ...overrides,
  });
  const where = [endpoint ? `POST to ${safeOrigin(endpoint)}` : "", file ? `file ${file}` : ""]
    .filter(Boolean)
    .join(" and ");
  const line = (user: string) => `on: ${where}, every ${a.flush_seconds} s, as ${user}`;
  return { tracker, publisher, describe: line(serverId(env)), describeForClients: line(SERVER_USER) };
}
