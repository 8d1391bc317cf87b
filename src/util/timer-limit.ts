/** The longest delay a timer takes (2^31 − 1 ms, about 24.8 days); a longer one fires at once, over and over. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
