/**
 * How long a stream the server sends (an answer, a download) waits for its reader to take the next part
 * (ms): 120 s. The reader is the socket, which asks for more only once its buffers (the kernel's at both
 * ends, a proxy's: several MB on loopback) have room, so a client that reads slowly takes nothing in the
 * server's eyes while it drains them: one reading at least about (bytes buffered) / 120 s is never stopped
 * by this limit (4 MiB buffered: 35 KiB/s; its rate is READER_MIN_BYTES_PER_SECOND's to judge). Security: a
 * client that stops reading would otherwise hold what its stream holds (an answer's bytes, a download's
 * place) for as long as its connection stays open.
 */
export const READER_IDLE_MS = 120_000;

/**
 * 64 KiB/s (512 kbit/s): the least a reader must average over the time the server waits for it, once it has
 * waited READER_GRACE_MS. Security: the idle limit stops only a reader that takes nothing; one that takes a
 * part now and then would hold a download's place, or an answer's bytes, for as long as it pleased, and two
 * such clients keep every other client of their address from downloading. A slower link still gets whole
 * what it receives within the grace period (plus what the socket's buffers took), any normal skill; past
 * it, a link under this rate loses a large download or answer.
 */
export const READER_MIN_BYTES_PER_SECOND = 64 * 1024;

/** 30 s: how long the server waits for a reader before its rate is judged (READER_MIN_BYTES_PER_SECOND). */
export const READER_GRACE_MS = 30_000;

/**
 * 64 KiB: the most bytes handed to the reader at once (a larger part of `body` is handed over in slices of
 * it, not copied). An answer is one part of up to tens of MB: handed to the socket whole, it would sit in
 * the socket's own buffer, and neither its client's reading nor its stopping would show until all of it
 * had been written.
 */
const MAX_PART_BYTES = 64 * 1024;

/** Why a stream was stopped for its idle limit of `ms`: the end of a log line (after "stopped: "). */
export function idleReason(ms: number): string {
  return `its client read nothing for ${ms / 1000} s, or read too slowly`;
}

/** Why a stream was stopped for its rate: `bytes` taken in `ms` of waiting; the end of a log line. */
function slowReason(bytes: number, ms: number): string {
  return `its client read too slowly: ${Math.floor(bytes / 1024)} KiB in ${Math.round(ms / 1000)} s, under the ${READER_MIN_BYTES_PER_SECOND / 1024} KiB/s it must average after ${READER_GRACE_MS / 1000} s`;
}

/** A stream's limits on a reader that stops taking what it is sent, or takes it too slowly (onStreamEnd's `limit`). */
export interface ReaderLimit {
  /** Most milliseconds from one part taken by the reader to its asking for the next. */
  ms: number;
  /** Told once, with why (the end of a log line), when the stream is stopped for a limit, before `end`. */
  stopped: (why: string) => void;
  /** Starts a timer; returns its cancel. Default setTimeout. */
  timer?: (fire: () => void, ms: number) => () => void;
  /** The clock the reader's rate is measured by (ms). Default Date.now. */
  now?: () => number;
  /**
   * Whether the rate limit applies now: the stream holds what a slow reader must not keep (a download's
   * place, an answer's bytes). Default: always. An event stream that only waits for events is judged by the
   * idle limit alone: what it sends is little, and its rate says nothing.
   */
  rated?: () => boolean;
}

function startTimer(fire: () => void, ms: number): () => void {
  const handle = setTimeout(fire, ms);
  return () => clearTimeout(handle);
}

/**
 * `body`, passed through as it is read (in parts of at most MAX_PART_BYTES), with `end` called once when
 * it ends: read to its end, failed, or cancelled by the reader (the client went away). Pull-based with a
 * high-water mark of 0: nothing is read ahead of the client, so `end` comes once the socket has written the
 * last chunk, not as soon as it took it (a client reading slowly holds that chunk in the server's memory
 * until then).
 * With `limit`, the stream is stopped (`body` cancelled, the reader's stream failed: a slow client cannot
 * hold what `end` frees for ever) when the reader asks for nothing more for `limit.ms` after its last part
 * (or for its first), or, when it asks for a part to come, has taken less than READER_MIN_BYTES_PER_SECOND
 * on average over the time the server waited for it, once that is READER_GRACE_MS. Both count only while
 * the reader has not asked: while `body` has nothing to give (an event stream with no event, a call still
 * running) no timer runs and no time is counted.
 * With `closed`, the stream fails as soon as it aborts (its owner closed it): a failed answer's connection is
 * closed with it, where one that ended is kept open, silent, for its client's next request.
 */
export function onStreamEnd(
  body: ReadableStream<Uint8Array>,
  end: () => void,
  limit?: ReaderLimit,
  closed?: AbortSignal,
): ReadableStream<Uint8Array> {
  let ended = false;
  /** What the reader has not been handed yet of `body`'s last part. */
  let rest: Uint8Array | undefined;
  let stopTimer: (() => void) | undefined;
  const now = limit?.now ?? Date.now;
  /** Bytes handed to the reader; when it asks for more, it has taken them all. */
  let handed = 0;
  /** Milliseconds the server has waited for the reader to ask, and since when it waits now. */
  let waited = 0;
  let waitingSince: number | undefined;
  const disarm = () => {
    stopTimer?.();
    stopTimer = undefined;
    if (waitingSince !== undefined) waited += Math.max(0, now() - waitingSince);
    waitingSince = undefined;
  };
  /** Stops listening to `closed`. */
  let unlisten: (() => void) | undefined;
  const finish = () => {
    disarm();
    unlisten?.();
    // A stopped stream's socket may stay open (a client that reads nothing), and with it this stream.
    rest = undefined;
    if (ended) return;
    ended = true;
    end();
  };
  const reader = body.getReader();
  /** Fails the reader's stream and cancels `body` with `reason`. */
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, reason: string) => {
    if (ended) return;
    finish();
    // No reason: Bun writes a failed answer's reason to stderr (for a limit, beside the line `stopped` logs).
    controller.error();
    reader.cancel(new Error(reason)).catch(() => undefined);
  };
  const stop = (controller: ReadableStreamDefaultController<Uint8Array>, why: string) => {
    if (ended) return;
    limit?.stopped(why);
    fail(controller, `stopped: ${why}`);
  };
  /** Fails the stream when `closed` aborts, or at once if it has. */
  const listen = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!closed) return;
    const cut = () => fail(controller, "closed");
    if (closed.aborted) return cut();
    closed.addEventListener("abort", cut, { once: true });
    unlisten = () => closed.removeEventListener("abort", cut);
  };
  /** Counts `limit.ms`, and the time waited, until the reader asks for the next part (or its first). */
  const arm = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!limit || ended) return;
    waitingSince = now();
    stopTimer = (limit.timer ?? startTimer)(() => stop(controller, idleReason(limit.ms)), limit.ms);
  };
  /** The reader has asked for a part to come: whether it took what it was handed too slowly. */
  const tooSlow = () =>
    limit !== undefined &&
    waited >= READER_GRACE_MS &&
    handed * 1000 < READER_MIN_BYTES_PER_SECOND * waited &&
    (limit.rated?.() ?? true);
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        arm(controller);
        listen(controller);
      },
      async pull(controller) {
        disarm();
        try {
          let part = rest;
          if (!part) {
            const { done, value } = await reader.read();
            if (done) {
              finish();
              controller.close();
              return;
            }
            part = value;
          }
          // Judged only when there is more to send: a reader that took the last part gets the end.
          if (tooSlow()) return stop(controller, slowReason(handed, waited));
          rest = part.byteLength > MAX_PART_BYTES ? part.subarray(MAX_PART_BYTES) : undefined;
          const next = part.byteLength > MAX_PART_BYTES ? part.subarray(0, MAX_PART_BYTES) : part;
          handed += next.byteLength;
          controller.enqueue(next);
          arm(controller);
        } catch (error) {
          finish();
          controller.error(error);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The body of a streaming (server-sent events) response, else undefined. */
export function eventStream(response: Response): ReadableStream<Uint8Array> | undefined {
  return response.headers.get("content-type")?.startsWith("text/event-stream")
    ? (response.body ?? undefined)
    : undefined;
}
