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
 * `body`, passed through as it is read, with `end` called once when it ends: read to its end, failed,
 * or cancelled by the reader (the client went away). Pull-based with a high-water mark of 0: nothing is
 * read ahead of the client, so `end` comes once the socket has written the last chunk, not as soon as it
 * took it (a client reading slowly holds that chunk in the server's memory until then).
 * With `idle`, a reader that asks for nothing more for `idle.ms` after its last part stops the stream:
 * `body` is cancelled and the reader's stream fails (a slow client cannot hold what `end` frees for ever).
 */
export function onStreamEnd(
  body: ReadableStream<Uint8Array>,
  end: () => void,
  idle?: IdleLimit,
): ReadableStream<Uint8Array> {
  let ended = false;
  let stopTimer: (() => void) | undefined;
  const disarm = () => {
    stopTimer?.();
    stopTimer = undefined;
  };
  const finish = () => {
    disarm();
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
          const { done, value } = await reader.read();
          if (done) {
            finish();
            controller.close();
            return;
          }
          controller.enqueue(value);
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
