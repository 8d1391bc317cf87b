import { stat } from "node:fs/promises";
import { errorMessage } from "../util/errors.ts";
import type { Logger } from "../util/logger.ts";
import { EventBuffer } from "./buffer.ts";
import type { AnalyticsEvent } from "./event.ts";
import { appendJsonl } from "./jsonl.ts";
import type { Tracker } from "./tracker.ts";

/**
 * 1 GiB: analytics.file stops growing here, and new events are dropped (counted, with a warning) until it
 * is rotated. Security: over HTTP, every client of a shared hub adds events (feedback comments of 4,000
 * characters), so without a ceiling one of them could fill the disk.
 */
export const MAX_ANALYTICS_FILE_BYTES = 1024 ** 3;

export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

export interface PublisherOptions {
  tracker: Tracker;
  logger: Logger;
  /** POST `{ events }` here (analytics.endpoint). */
  endpoint?: string;
  /** Append events as JSONL here (analytics.file). */
  file?: string;
  /** Size at which `file` stops growing (bytes). Default MAX_ANALYTICS_FILE_BYTES. */
  maxFileBytes?: number;
  /** Failed POSTs go here until the next success (`<home>/analytics-buffer.jsonl`). */
  bufferFile: string;
  /** Milliseconds between flushes (analytics.flush_seconds × 1000). */
  flushMs: number;
  /** Per-request timeout in milliseconds. Default 10,000; the close grace for the final flush. */
  timeoutMs?: number;
  /** How long shutdown waits for the final flush (close's default grace), in milliseconds. Default 2,000. */
  closeGraceMs?: number;
  /** Most events per POST. Default 500. */
  batchSize?: number;
  fetch?: FetchFn;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (handle: unknown) => void;
  /** Injected for tests (process id and liveness for the shared buffer). */
  buffer?: EventBuffer;
}

export interface FlushResult {
  /** Events taken from the tracker. */
  drained: number;
  /** Events POSTed successfully (buffered ones included). */
  sent: number;
  /** Events appended to the buffer file after a failure. */
  buffered: number;
  /** Events lost because the buffer file was full. */
  dropped: number;
}

const EMPTY: FlushResult = { drained: 0, sent: 0, buffered: 0, dropped: 0 };

/**
 * Sends the tracker's events on a timer: to a local JSONL
 * file and/or an HTTP endpoint; on failure into the buffer file, which goes
 * out with the next success. Flushes never overlap and never run inside a
 * tool call.
 */
export class Publisher {
  private timer: unknown;
  private inFlight?: Promise<FlushResult>;
  private failing = false;
  /** The analytics file is at its ceiling: said once, until it is rotated. */
  private fileFull = false;
  private closed = false;
  private readonly buffer: EventBuffer;
  private readonly fetch: FetchFn;

  constructor(private readonly options: PublisherOptions) {
    this.buffer = options.buffer ?? new EventBuffer(options.bufferFile);
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  start(): void {
    if (this.timer !== undefined || this.closed) return;
    const set = this.options.setInterval ?? ((fn, ms) => setInterval(fn, ms).unref());
    this.timer = set(() => void this.flush(), this.options.flushMs);
  }

  /** One flush now; a flush already running is not repeated (its promise is returned). */
  flush(timeoutMs = this.options.timeoutMs ?? 10_000): Promise<FlushResult> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.run(timeoutMs)
      .catch((error) => {
        this.options.logger.warn(`analytics flush failed: ${errorMessage(error)}`);
        return EMPTY;
      })
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /**
   * Stop the timer and send what is left (shutdown), waiting at most about
   * twice `graceMs`. If an earlier flush is still stuck on the endpoint, the
   * remaining events go to the buffer file for the next start. Never rejects.
   */
  async close(graceMs = this.options.closeGraceMs ?? 2_000): Promise<FlushResult> {
    if (!this.closed) {
      this.closed = true;
      if (this.timer !== undefined)
        (this.options.clearInterval ?? ((h) => clearInterval(h as ReturnType<typeof setInterval>)))(this.timer);
      this.timer = undefined;
    }
    if (this.inFlight) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.inFlight, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    if (this.inFlight) {
      const events = this.options.tracker.drain();
      if (this.options.file) await this.writeFile(this.options.file, events).catch(() => undefined);
      const dropped = this.options.endpoint ? await this.buffer.append(events).catch(() => events.length) : 0;
      return {
        drained: events.length,
        sent: 0,
        buffered: this.options.endpoint ? events.length - dropped : 0,
        dropped,
      };
    }
    return this.flush(Math.min(this.options.timeoutMs ?? graceMs, graceMs));
  }

  private async run(timeoutMs: number): Promise<FlushResult> {
    const events = this.options.tracker.drain();
    const result: FlushResult = { ...EMPTY, drained: events.length };
    if (this.options.file && events.length > 0) {
      try {
        await this.writeFile(this.options.file, events);
      } catch (error) {
        this.options.logger.warn(`analytics: cannot write ${this.options.file}: ${errorMessage(error)}`);
      }
    }
    if (this.options.endpoint) await this.post(this.options.endpoint, events, result, timeoutMs);
    return result;
  }

  /** Append to the analytics file, unless it has reached its ceiling (then the events are dropped). */
  private async writeFile(file: string, events: readonly AnalyticsEvent[]): Promise<void> {
    const max = this.options.maxFileBytes ?? MAX_ANALYTICS_FILE_BYTES;
    const size = await stat(file).then(
      (s) => s.size,
      () => 0,
    );
    if (size < max) {
      this.fileFull = false;
      await appendJsonl(file, events);
      return;
    }
    const line = `analytics: ${file} holds ${size} bytes, the most SkillHub writes to it (${max}); ${events.length} new events were dropped. Rotate it (move it aside): new events then go to a fresh file.`;
    if (this.fileFull) this.options.logger.debug(line);
    else this.options.logger.warn(line);
    this.fileFull = true;
  }

  private async post(
    endpoint: string,
    events: AnalyticsEvent[],
    result: FlushResult,
    timeoutMs: number,
  ): Promise<void> {
    const claim = await this.buffer.claim();
    const all = claim ? [...claim.events, ...events] : events;
    if (all.length === 0) {
      if (claim) await this.buffer.release(claim);
      return;
    }
    const size = this.options.batchSize ?? 500;
    let sent = 0;
    let failure: string | undefined;
    while (sent < all.length) {
      const batch = all.slice(sent, sent + size);
      failure = await this.send(endpoint, batch, timeoutMs);
      if (failure) break;
      sent += batch.length;
    }
    result.sent = sent;
    const unsent = all.slice(sent);
    // Unsent events go back to the buffer before the claimed copy is removed, so a crash in between duplicates rather than loses them.
    if (unsent.length > 0) {
      result.dropped = await this.buffer.append(unsent).catch(() => unsent.length);
      result.buffered = unsent.length - result.dropped;
    }
    if (claim) await this.buffer.release(claim);
    const where = safeOrigin(endpoint);
    if (failure) {
      const lost = result.dropped > 0 ? `; ${result.dropped} dropped because ${this.buffer.file} is full` : "";
      const line = `analytics: cannot send to ${where} (${failure}); ${result.buffered} events kept in ${this.buffer.file} for the next try${lost}.`;
      if (this.failing) this.options.logger.debug(line);
      else this.options.logger.warn(line);
      this.failing = true;
    } else {
      if (this.failing || (claim?.events.length ?? 0) > 0)
        this.options.logger.info(
          `analytics: sent ${sent} events to ${where}, including ${claim?.events.length ?? 0} buffered ones.`,
        );
      this.failing = false;
    }
  }

  /** POST one batch; returns why it failed, or undefined on a 2xx answer. */
  private async send(endpoint: string, events: AnalyticsEvent[], timeoutMs: number): Promise<string | undefined> {
    try {
      const response = await this.fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ events }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.ok ? undefined : `HTTP ${response.status}`;
    } catch (error) {
      return errorMessage(error);
    }
  }
}

/**
 * Security: webhook URLs often carry a secret in their path or query, so logs
 * show only the scheme, host and port.
 */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(the analytics endpoint)";
  }
}
