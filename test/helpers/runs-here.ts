/**
 * Whether a group of tests can run here; when it cannot, one line on stderr says which, why and how to
 * run them, so that a skip never reads as a pass.
 */
export function runsHere(can: boolean, tests: string, why: string): boolean {
  if (!can) console.warn(`skipping ${tests}: ${why}`);
  return can;
}

/** Root reads every file: a permission case cannot be made as root (said once per run). */
export const notRoot = runsHere(
  process.getuid?.() !== 0,
  "the unreadable-file tests",
  "running as root, which reads every file (run the tests as another user)",
);
