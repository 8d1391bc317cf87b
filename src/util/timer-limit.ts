/** The longest delay a timer takes (2^31 − 1 ms, about 24.8 days); a longer one fires at once, over and over. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a timer takes it: at most MAX_TIMER_MS, so a delay some setting makes huge waits, not fires. */
export function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}
