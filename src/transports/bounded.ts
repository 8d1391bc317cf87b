/**
 * Seconds a signal-triggered shutdown may take before the server gives up on
 * what is left (a client holding a stream, a half-sent body, a slow analytics
 * endpoint): SIGTERM and SIGINT must end the process within 5 s whatever the
 * clients are doing.
 */
export const SHUTDOWN_BUDGET_MS = 3000;

/** Wait for `work`, but no longer than `ms`; never throws. Returns whether it finished in time. */
export async function bounded(work: Promise<unknown>, ms: number = SHUTDOWN_BUDGET_MS): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
