/** Milliseconds `fn` takes (the best of `runs`): for comparing costs measured side by side in one test. */
export function timed(fn: () => void, runs = 1): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}
