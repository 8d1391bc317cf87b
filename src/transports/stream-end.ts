/**
 * How long a stream the server sends (an answer, a download) waits for its reader to take the next part
 * (ms): 120 s. The reader is the socket, which asks for more only once its buffers (the kernel's at both
 * ends, a proxy's: several MB on loopback) have room, so a client that reads slowly takes nothing in the
 * server's eyes while it drains them: one reading at least about (bytes buffered) / 120 s is never stopped
 * (4 MiB buffered: 35 KiB/s). Security: a client that stops reading would otherwise hold what its stream holds
 * (an answer's bytes, a download's place) for as long as its connection stays open, and one that trickles
 * cannot drain megabytes in time, so it is stopped too.
 */
export const READER_IDLE_MS = 120_000;

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

/** A stream's limit on a reader that stops taking what it is sent (onStreamEnd's `idle`). */
export interface IdleLimit {
  /** Most milliseconds from one part taken by the reader to its asking for the next. */
  ms: number;
  /** Told once when the stream is stopped for it, before `end`. */
  stopped: () => void;
  /** Starts a timer; returns its cancel. Default setTimeout. */
  timer?: (fire: () => void, ms: number) => () => void;
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
 * With `idle`, a reader that asks for nothing more for `idle.ms` after its last part (or for its first)
 * stops the stream: `body` is cancelled and the reader's stream fails (a slow client cannot hold what `end`
 * frees for ever). The limit counts only while the reader has not asked: while `body` has nothing to give
 * (an event stream with no event, a call still running) no timer runs.
 */
export function onStreamEnd(
  body: ReadableStream<Uint8Array>,
  end: () => void,
  idle?: IdleLimit,
): ReadableStream<Uint8Array> {
  let ended = false;
  /** What the reader has not been handed yet of `body`'s last part. */
  let rest: Uint8Array | undefined;
  let stopTimer: (() => void) | undefined;
  const disarm = () => {
    stopTimer?.();
    stopTimer = undefined;
  };
  const finish = () => {
    disarm();
    // A stopped stream's socket may stay open (a client that reads nothing), and with it this stream.
    rest = undefined;
    if (ended) return;
    ended = true;
    end();
  };
  const reader = body.getReader();
  /** Counts `idle.ms` until the reader asks for the next part (or its first). */
  const arm = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!idle || ended) return;
    stopTimer = (idle.timer ?? startTimer)(() => {
      if (ended) return;
      idle.stopped();
      finish();
      // No reason: Bun writes a failed answer's reason to stderr, beside the line `stopped` logs.
      controller.error();
      reader.cancel(new Error(`the reader took nothing for ${idle.ms} ms`)).catch(() => undefined);
    }, idle.ms);
  };
  return new ReadableStream<Uint8Array>(
    {
      start: arm,
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
          rest = part.byteLength > MAX_PART_BYTES ? part.subarray(MAX_PART_BYTES) : undefined;
          controller.enqueue(part.byteLength > MAX_PART_BYTES ? part.subarray(0, MAX_PART_BYTES) : part);
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
