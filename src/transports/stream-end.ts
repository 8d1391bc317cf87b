/**
 * `body`, passed through as it is read, with `end` called once when it ends: read to its end, failed,
 * or cancelled by the reader (the client went away). Pull-based with a high-water mark of 0: nothing is
 * read ahead of the client, so `end` comes once the socket has written the last chunk, not as soon as it
 * took it (a client reading slowly holds that chunk in the server's memory until then).
 */
export function onStreamEnd(body: ReadableStream<Uint8Array>, end: () => void): ReadableStream<Uint8Array> {
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    end();
  };
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish();
            controller.close();
          } else controller.enqueue(value);
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
