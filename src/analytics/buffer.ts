import { existsSync, readdirSync, statSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { AnalyticsEvent } from "./event.ts";
import { appendJsonl, readJsonlFile } from "./jsonl.ts";

/** The buffer file stops growing past this size; further failed events are dropped and counted. */
export const MAX_BUFFER_BYTES = 10 * 1024 * 1024;

/** Most bytes of a buffer file read back (several servers may each have appended a little past the cap). */
const MAX_BUFFER_READ_BYTES = 2 * MAX_BUFFER_BYTES;

export interface Claim {
  /** The private file the buffer was moved to while it is being sent. */
  path: string;
  events: AnalyticsEvent[];
}

/**
 * `<home>/analytics-buffer.jsonl`: events that could not be sent. Several
 * servers (one per MCP client) may share it, so sending
 * first moves it aside under a per-process name: an event appended by another
 * process meanwhile lands in a fresh buffer instead of being cleared unsent.
 */
export class EventBuffer {
  constructor(
    readonly file: string,
    private readonly pid: number = process.pid,
    private readonly isAlive: (pid: number) => boolean = processAlive,
  ) {}

  /** Append events unless the buffer is already at its cap. Returns how many were dropped. */
  async append(events: readonly AnalyticsEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    if (this.size() >= MAX_BUFFER_BYTES) return events.length;
    await appendJsonl(this.file, events);
    return 0;
  }

  /** Bytes in the buffer now. */
  size(): number {
    try {
      return statSync(this.file).size;
    } catch {
      return 0;
    }
  }

  /** Move the buffer (and files left by servers that died while sending) aside and read them. */
  async claim(): Promise<Claim | undefined> {
    const path = `${this.file}.sending-${this.pid}`;
    const events: AnalyticsEvent[] = [];
    // Left from an earlier attempt of this process, or by a process that is gone.
    // Bounded (util/named-file.ts): a buffer that is a FIFO or a link to a device gives no event, never a hang.
    for (const orphan of this.orphans()) {
      events.push(...readJsonlFile(orphan, MAX_BUFFER_READ_BYTES).events);
      await rm(orphan, { force: true });
    }
    if (existsSync(this.file)) {
      try {
        await rename(this.file, path);
        events.push(...readJsonlFile(path, MAX_BUFFER_READ_BYTES).events);
      } catch {
        // Another process claimed it first: it will send those events.
      }
    }
    return events.length > 0 || existsSync(path) ? { path, events } : undefined;
  }

  /** The claimed events were sent: forget them. */
  async release(claim: Claim): Promise<void> {
    await rm(claim.path, { force: true });
  }

  private orphans(): string[] {
    const dir = dirname(this.file);
    const prefix = `${basename(this.file)}.sending-`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.startsWith(prefix))
      .filter((n) => {
        const pid = Number(n.slice(prefix.length));
        return Number.isInteger(pid) && (pid === this.pid || !this.isAlive(pid));
      })
      .map((n) => join(dir, n));
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as { code?: string }).code === "EPERM";
  }
}
