import { constants } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { errnoCode, errorMessage } from "../util/errors.ts";
import type { AnalyticsEvent } from "./event.ts";
import { parseJsonl } from "./jsonl.ts";
import { MAX_ANALYTICS_FILE_BYTES } from "./publisher.ts";
import { UsageTally } from "./stats.ts";

/**
 * Most bytes of one analytics file folded into a tally: twice the size SkillHub stops writing at, so its
 * own file (which the last batch may push a little past its ceiling) is always read whole. Past it, the
 * file is said to be cut.
 */
export const MAX_TALLIED_BYTES = 2 * MAX_ANALYTICS_FILE_BYTES;
/** A line longer than this is not an event (the longest event is a few KiB): it is skipped as malformed. */
export const MAX_LINE_BYTES = 1_048_576;
/** Bytes of the file's start remembered to notice a file rewritten in place (copy-truncate rotation). */
const HEAD_BYTES = 256;

export interface UsageFileOptions {
  /** Bytes read at a time; other requests are answered between two reads. Default 64 KiB. */
  chunkBytes?: number;
  /** Most bytes read. Default MAX_TALLIED_BYTES. */
  maxBytes?: number;
  /** Which events count (`stats --since`). Default: all. */
  accept?: (event: AnalyticsEvent) => boolean;
  /**
   * A one-shot read (`skillhub stats`): a last line without its newline is read as a line. Default false:
   * a file being followed may hold an event half written, which is read once its newline is there.
   */
  final?: boolean;
}

/**
 * One analytics file (JSONL) followed: `update()` reads only the bytes appended since the last call and
 * folds their events into `tally`, so that the cost of a change follows the change, not the file. It
 * starts over when the file was replaced (another inode: rotated, moved aside), truncated (smaller than
 * what was read) or rewritten in place (its first bytes differ). A line still being written (no newline
 * yet) waits for the next update: never lost, never counted twice. Memory: the tally's counts, one chunk
 * and one part line, whatever the file's size.
 */
export class UsageFile {
  /** The aggregates of the events read so far. Replaced (not cleared) when the file starts over. */
  tally = new UsageTally();
  /** Lines that are not events (not JSON, not an event's shape, too long): skipped and counted. */
  malformed = 0;
  /** Whether the file was there, a regular file, at the last update. */
  present = false;
  /** A sentence naming the file and what is wrong (not a regular file, cut at the cap…); absent when all is well. */
  problem: string | undefined;
  /** Bytes read and folded: the end of the last whole line. */
  offset = 0;
  private identity: { dev: number; ino: number } | undefined;
  private head: Buffer = Buffer.alloc(0);
  /** Inside a line longer than MAX_LINE_BYTES: its rest, up to the next newline, is dropped. */
  private skipping = false;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    readonly path: string,
    private readonly options: UsageFileOptions = {},
  ) {}

  /**
   * Fold what was appended since the last update (the whole file the first time). A call during a read
   * waits for one more read after it, which sees what was appended since that read began; calls meanwhile
   * share that one.
   */
  update(): Promise<void> {
    if (this.running) {
      this.queued ??= this.running.then(() => {
        this.queued = undefined;
        return this.update();
      });
      return this.queued;
    }
    this.running = this.read().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async read(): Promise<void> {
    // Security: the path is stat'ed first: a FIFO, a socket or a device is never opened (opening some has
    // effects, reading a FIFO waits for a writer), then the descriptor is checked again (a swap in between).
    let handle: FileHandle;
    try {
      if (!(await stat(this.path)).isFile()) return this.absent(undefined);
      handle = await open(this.path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
    } catch (error) {
      return this.absent(error);
    }
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return this.absent(undefined);
      const moved = this.identity && (this.identity.dev !== opened.dev || this.identity.ino !== opened.ino);
      if (moved || opened.size < this.offset || !(await this.sameHead(handle))) this.restart();
      this.identity = { dev: opened.dev, ino: opened.ino };
      this.present = true;
      this.problem = undefined;
      await this.readFrom(handle, opened.size);
    } finally {
      await handle.close();
    }
  }

  /** No file, or one that is not read: no events; a problem unless there is simply nothing there. */
  private absent(error: unknown): void {
    this.restart();
    this.identity = undefined;
    this.present = false;
    const code = error === undefined ? undefined : errnoCode(error);
    this.problem =
      code === "ENOENT" || code === "ENOTDIR"
        ? undefined
        : error === undefined
          ? `'${this.path}' is not a regular file (a folder, FIFO, socket or device); it is not read.`
          : `'${this.path}' cannot be read: ${errorMessage(error)}.`;
  }

  private restart(): void {
    this.tally = new UsageTally();
    this.malformed = 0;
    this.offset = 0;
    this.head = Buffer.alloc(0);
    this.skipping = false;
  }

  /** Whether the file still starts with the bytes it started with when it was read. */
  private async sameHead(handle: FileHandle): Promise<boolean> {
    if (this.head.length === 0) return true;
    const now = Buffer.alloc(this.head.length);
    const { bytesRead } = await handle.read(now, 0, now.length, 0);
    return bytesRead === now.length && now.equals(this.head);
  }

  private async readFrom(handle: FileHandle, size: number): Promise<void> {
    const max = this.options.maxBytes ?? MAX_TALLIED_BYTES;
    const end = Math.min(size, max);
    const chunk = Buffer.allocUnsafe(this.options.chunkBytes ?? 65_536);
    // The bytes from `offset` on that hold no newline yet: a line being written, or cut by a chunk's end.
    let part: Buffer = Buffer.alloc(0);
    let position = this.offset;
    while (position < end) {
      // Awaited: the server answers other requests between two chunks.
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, end - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const bytes =
        part.length > 0 ? Buffer.concat([part, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      const last = bytes.lastIndexOf(10);
      if (last < 0) {
        part = Buffer.from(bytes);
        if (this.skipping || part.length > MAX_LINE_BYTES) {
          this.dropLongLine(part.length);
          part = Buffer.alloc(0);
        }
        continue;
      }
      this.fold(bytes.subarray(0, last + 1));
      part = Buffer.from(bytes.subarray(last + 1));
    }
    // A one-shot read takes a last line without its newline, unless the cap cut it.
    if (this.options.final && part.length > 0 && size <= max) this.fold(part);
    if (this.head.length < Math.min(this.offset, HEAD_BYTES)) {
      this.head = Buffer.alloc(Math.min(this.offset, HEAD_BYTES));
      await handle.read(this.head, 0, this.head.length, 0);
    }
    if (size > max)
      this.problem = `'${this.path}' is ${size} bytes; only its first ${max} were read (rotate it to see the rest).`;
  }

  /** Fold whole lines (the rest of a too-long line first, when one is being skipped), and move past them. */
  private fold(bytes: Buffer): void {
    this.offset += bytes.length;
    let text = bytes.toString("utf8");
    if (this.skipping) {
      const newline = text.indexOf("\n");
      if (newline < 0) return;
      text = text.slice(newline + 1);
      this.skipping = false;
    }
    const { events, malformed } = parseJsonl(text);
    this.malformed += malformed;
    const accept = this.options.accept;
    for (const e of events) if (!accept || accept(e)) this.tally.add(e);
  }

  /** A line grew past MAX_LINE_BYTES without a newline: count it once, move past what was read, skip its rest. */
  private dropLongLine(length: number): void {
    if (!this.skipping) this.malformed++;
    this.skipping = true;
    this.offset += length;
  }
}
