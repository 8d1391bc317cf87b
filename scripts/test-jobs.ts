/**
 * bun test's flags for TEST_JOBS test files at once, each in its own process (the Makefile's TEST_JOBS,
 * 2 by default); none for 1, which runs them one after another.
 */
export function parallelFlags(jobs = process.env.TEST_JOBS ?? "2"): string[] {
  return jobs === "1" ? [] : [`--parallel=${jobs}`];
}
