import { afterEach } from "bun:test";

/** What ends one thing a test started: a session, a server, a process. */
export type Closer = () => unknown;

/**
 * A list for a test file's tests to put their closers in: after each test every closer is awaited, first
 * put first (`unshift` one that must run before the others: a client before its server), and the list
 * emptied. Call once at the top level of the file. `ignoringErrors`: a closer that fails is passed over,
 * for files whose tests may already have ended what a closer ends (a client whose server went first).
 * `lastFirst`: the last put is run first (what a test started last depends on what it started before).
 */
export function closeAfterEach(options: { ignoringErrors?: boolean; lastFirst?: boolean } = {}): Closer[] {
  const closers: Closer[] = [];
  afterEach(async () => {
    const due = closers.splice(0);
    for (const close of options.lastFirst ? due.reverse() : due) {
      if (options.ignoringErrors)
        await Promise.resolve()
          .then(close)
          .catch(() => undefined);
      else await close();
    }
  });
  return closers;
}
