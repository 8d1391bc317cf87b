export interface RateLimitOptions {
  /** Most takes at once: what a bucket holds when full. */
  burst: number;
  /** Milliseconds for one take to come back. */
  refillMs: number;
  /** Most keys remembered; past it the least recently used is forgotten (as if full again). Default 10,000. */
  maxKeys?: number;
  /** The clock (ms). Default Date.now. */
  now?: () => number;
}

/**
 * A token bucket per key (a client): `burst` takes at once, then one per `refillMs`. The keys are bounded,
 * so clients that come and go cannot grow memory; a forgotten key starts full again, as an idle one would
 * be.
 */
export class RateLimit {
  /** Tokens per key when last taken from, and when; the least recently used first. */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly now: () => number;
  private readonly maxKeys: number;

  constructor(private readonly options: RateLimitOptions) {
    this.now = options.now ?? Date.now;
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  /** Most takes at once. */
  get burst(): number {
    return this.options.burst;
  }

  /** Takes per minute once the burst is spent. */
  get perMinute(): number {
    return 60_000 / this.options.refillMs;
  }

  /** One take for `key`: 0 when given, else the milliseconds until one is. */
  take(key: string): number {
    const { burst, refillMs } = this.options;
    const now = this.now();
    const known = this.buckets.get(key);
    const tokens = known ? Math.min(burst, known.tokens + Math.max(0, now - known.at) / refillMs) : burst;
    this.buckets.delete(key);
    const given = tokens >= 1;
    // A clock set back adds nothing, then or once it is past the last take again.
    this.buckets.set(key, { tokens: given ? tokens - 1 : tokens, at: Math.max(now, known?.at ?? now) });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    return given ? 0 : Math.ceil((1 - tokens) * refillMs);
  }
}
