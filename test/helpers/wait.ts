/**
 * How long a test waits for something that must happen before calling it a hang: never a speed budget
 * (a loaded 2-core machine can be very slow), only a bound that names what never came, under the
 * per-test timeout (`make test`: 120 s).
 */
export const HANG_MS = 100_000;

/**
 * Poll until `check` returns a truthy value or `ms` elapse; returns as soon as the check holds. The cap
 * only detects a hang (HANG_MS).
 */
export async function eventually<T>(check: () => T | Promise<T>, ms = HANG_MS, step = 20): Promise<T> {
  const end = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await check();
    if (last) return last;
    await Bun.sleep(step);
  }
  throw new Error(`condition not met within ${ms} ms (last value: ${String(last)})`);
}

/** Reject when `promise` has not settled within `ms` (a hang, HANG_MS), naming what never came. */
export function within<T>(promise: Promise<T>, what = "the call", ms = HANG_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
