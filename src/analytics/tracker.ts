import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { scrubSecretText } from "../util/secret-env.ts";
import type { AnalyticsEvent, EventType } from "./event.ts";
import { FeedbackWatch } from "./feedback-watch.ts";

export interface TrackerOptions {
  /** Off: track() only watches feedback and keeps nothing. */
  enabled: boolean;
  /** Most events held in memory; further ones are dropped and counted (analytics.max_queue). */
  maxQueue: number;
  /** `dev-<user>`. */
  serverId: string;
  logger: Logger;
  /** Clock for timestamps. Default Date.now. */
  now?: () => number;
  /** "Not useful" reports on one skill before a warning. Default 3. */
  negativeFeedbackThreshold?: number;
  /** Secret values the server holds: scrubbed from every text an event carries (feedback comments). */
  secrets?: readonly string[];
}

/**
 * The in-memory event queue. `track` is synchronous and cheap and never
 * throws, so a tool call never waits on analytics; the publisher drains the
 * queue on its own timer.
 */
export class Tracker {
  private queue: AnalyticsEvent[] = [];
  private droppedTotal = 0;
  private droppedSinceDrain = 0;
  private readonly now: () => number;
  private readonly feedback: FeedbackWatch;

  constructor(private readonly options: TrackerOptions) {
    this.now = options.now ?? Date.now;
    this.feedback = new FeedbackWatch({ logger: options.logger, threshold: options.negativeFeedbackThreshold });
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Events waiting for the publisher. */
  get pending(): number {
    return this.queue.length;
  }

  /** Events dropped because the queue was full, since start. */
  get dropped(): number {
    return this.droppedTotal;
  }

  track(type: EventType, input: Record<string, unknown>): void {
    try {
      // Security: a comment may quote a token (pasted by a model that saw it); nothing secret is queued or written.
      const data = scrubStrings(input, this.options.secrets ?? []);
      if (type === "skill_feedback" && typeof data.skill_path === "string") {
        this.feedback.record(
          data.skill_path,
          data.useful !== false,
          typeof data.comment === "string" ? data.comment : undefined,
        );
      }
      if (!this.options.enabled) return;
      if (this.queue.length >= this.options.maxQueue) {
        if (this.droppedSinceDrain === 0) {
          this.options.logger.warn(
            `analytics queue is full (${this.options.maxQueue} events; analytics.max_queue); dropping new events until the next flush.`,
          );
        }
        this.droppedSinceDrain++;
        this.droppedTotal++;
        return;
      }
      this.queue.push({
        type,
        timestamp: new Date(this.now()).toISOString(),
        server_id: this.options.serverId,
        data: { ...data },
      });
    } catch (error) {
      // Analytics must never break a tool call.
      this.options.logger.debug(`analytics event ${type} not recorded: ${errorMessage(error)}`);
    }
  }

  /** Take every queued event (oldest first) and empty the queue. */
  drain(): AnalyticsEvent[] {
    const events = this.queue;
    this.queue = [];
    if (this.droppedSinceDrain > 0)
      this.options.logger.warn(`analytics: ${this.droppedSinceDrain} events were dropped while the queue was full.`);
    this.droppedSinceDrain = 0;
    return events;
  }
}

/** A copy of `data` whose top-level strings are scrubbed of `secrets` and URL credentials. */
function scrubStrings(data: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data))
    out[key] = typeof value === "string" ? scrubSecretText(value, secrets) : value;
  return out;
}
