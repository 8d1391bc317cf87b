import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { plural } from "../util/plural.ts";
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
 * What became of an event: `queued` for the next flush; `off`, analytics being off (nothing is kept, a
 * feedback report is only watched); or dropped: `over_share` (its address had queued its share since the
 * last flush), `queue_full` (analytics.max_queue events wait) or `failed` (a fault, logged at debug level).
 */
export type TrackOutcome = "queued" | "off" | "over_share" | "queue_full" | "failed";

/**
 * Events one client address may have queued between two flushes: a tenth of the queue (1,000 of 10,000), at
 * least 1. Ten addresses sending at once could fill it only together; a model's tool calls (an event or two
 * each) stay far below.
 */
function addressShare(maxQueue: number): number {
  return Math.max(1, Math.floor(maxQueue / 10));
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
  /** Events queued since the last drain, by the address they came from. */
  private readonly queuedBy = new Map<string, number>();
  /** Events dropped since the last drain because their address had queued its share, by address. */
  private readonly overShare = new Map<string, number>();
  private readonly maxPerAddress: number;
  private readonly now: () => number;
  private readonly feedback: FeedbackWatch;

  constructor(private readonly options: TrackerOptions) {
    this.now = options.now ?? Date.now;
    this.maxPerAddress = addressShare(options.maxQueue);
    this.feedback = new FeedbackWatch({ logger: options.logger, threshold: options.negativeFeedbackThreshold });
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Events waiting for the publisher. */
  get pending(): number {
    return this.queue.length;
  }

  /** Events dropped since start: the queue was full, or their address had queued its share. */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** Whether the client address `from` has queued its share since the last flush. */
  private shareSpent(from: string): boolean {
    return (this.queuedBy.get(from) ?? 0) >= this.maxPerAddress;
  }

  /**
   * Queue an event; `from` is the client's address (peerKey), undefined for none. Returns what became of
   * it, so a tool that tells its caller the event was kept (report_usage) can tell the truth. Security: the
   * queue is shared, and a client that opens new sessions escapes every limit per session: past its
   * address's share, that address's events are dropped, and no other address's.
   */
  track(type: EventType, input: Record<string, unknown>, from?: string): TrackOutcome {
    try {
      // No address (stdio: one user) has no share.
      if (this.options.enabled && from !== undefined && this.shareSpent(from)) {
        this.overShare.set(from, (this.overShare.get(from) ?? 0) + 1);
        this.droppedTotal++;
        return "over_share";
      }
      // A dropped report is not counted either: its caller is told to send it again.
      if (this.options.enabled && this.queue.length >= this.options.maxQueue) {
        if (this.droppedSinceDrain === 0) {
          this.options.logger.warn(
            `analytics queue is full (${this.options.maxQueue} events; analytics.max_queue); dropping new events until the next flush.`,
          );
        }
        this.droppedSinceDrain++;
        this.droppedTotal++;
        return "queue_full";
      }
      // Security: a comment may quote a token (pasted by a model that saw it); nothing secret is queued or written.
      const data = scrubStrings(input, this.options.secrets ?? []);
      // Made before the report is counted, so an event that cannot be made counts nothing.
      const event: AnalyticsEvent | undefined = this.options.enabled
        ? { type, timestamp: new Date(this.now()).toISOString(), server_id: this.options.serverId, data: { ...data } }
        : undefined;
      if (type === "skill_feedback" && typeof data.skill_path === "string") {
        this.feedback.record(
          data.skill_path,
          data.useful !== false,
          typeof data.comment === "string" ? data.comment : undefined,
        );
      }
      if (event === undefined) return "off";
      if (from !== undefined) this.queuedBy.set(from, (this.queuedBy.get(from) ?? 0) + 1);
      this.queue.push(event);
      return "queued";
    } catch (error) {
      // Analytics must never break a tool call.
      this.options.logger.debug(`analytics event ${type} not recorded: ${errorMessage(error)}`);
      return "failed";
    }
  }

  /** Take every queued event (oldest first) and empty the queue. */
  drain(): AnalyticsEvent[] {
    const events = this.queue;
    this.queue = [];
    const full = this.droppedSinceDrain;
    if (full > 0)
      this.options.logger.warn(
        `analytics: ${plural(full, "event")} ${full === 1 ? "was" : "were"} dropped while the queue was full.`,
      );
    if (this.overShare.size > 0) {
      const counts = [...this.overShare].map(([from, n]) => `${n} from ${from || "an unknown address"}`);
      this.options.logger.warn(
        `analytics: events dropped since the last flush, their address past its share (${this.maxPerAddress} events between two flushes, a tenth of analytics.max_queue): ${counts.join(", ")}.`,
      );
    }
    this.droppedSinceDrain = 0;
    this.queuedBy.clear();
    this.overShare.clear();
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
