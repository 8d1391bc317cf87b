/**
 * 60 s: the least time between two fetches of one repository that refresh_skills asks for. Security: every
 * call used to fetch, so one client calling in a loop made the hub fetch many times a second from the
 * team's host, with the team's token, until its rate limit refused everyone. A call within the interval
 * rescans the folders and says when the next fetch may happen; the background sync (refresh.interval_minutes)
 * and `skillhub sync` are not held back by it.
 */
export const FORCED_FETCH_INTERVAL_MS = 60_000;

/** Why a repository was not fetched: a forced refresh fetched it a moment ago. */
export interface FetchRest {
  /** Whole seconds since that fetch started. */
  fetched_seconds_ago: number;
  /** Whole seconds (at least 1) until a forced refresh fetches it again. */
  next_fetch_in_seconds: number;
}

/** The fetches forced refreshes made: when each copy (by folder) was last fetched by one, and its failure. */
export class ForcedFetches {
  private readonly last = new Map<string, { at: number; error?: { code: string; message: string } }>();

  constructor(
    private readonly now: () => number,
    private readonly intervalMs = FORCED_FETCH_INTERVAL_MS,
  ) {}

  /** A forced refresh fetched the copy in `dir` from `at` (ms), failing with `error` if it did. */
  fetched(dir: string, at: number, error?: { code: string; message: string }): void {
    this.last.set(dir, { at, ...(error ? { error } : {}) });
  }

  /**
   * The copy in `dir` when a forced refresh fetched it less than the interval ago: how long ago, when the next
   * may happen, and that fetch's failure (it still stands); undefined when it may be fetched now.
   */
  resting(dir: string): { rest: FetchRest; error?: { code: string; message: string } } | undefined {
    const last = this.last.get(dir);
    if (!last) return undefined;
    const elapsed = Math.max(0, this.now() - last.at);
    if (elapsed >= this.intervalMs) return undefined;
    return {
      rest: {
        fetched_seconds_ago: Math.floor(elapsed / 1000),
        next_fetch_in_seconds: Math.max(1, Math.ceil((this.intervalMs - elapsed) / 1000)),
      },
      ...(last.error ? { error: last.error } : {}),
    };
  }
}
