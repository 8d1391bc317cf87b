/**
 * Whether a group of tests can run here; when it cannot, one line on stderr says which, why and how to
 * run them, so that a skip never reads as a pass.
 */
export function runsHere(can: boolean, tests: string, why: string): boolean {
  if (!can) console.warn(`skipping ${tests}: ${why}`);
  return can;
}

let unreadableFilesHere: boolean | undefined;

/**
 * Whether a permission case can be made here: root reads every file. Asked by the files that have
 * such tests, so that only they say so: once in a run of one process, once per asking file under
 * `bun test --parallel` (where each file runs apart and shares nothing with the others).
 */
export function notRoot(): boolean {
  unreadableFilesHere ??= runsHere(
    process.getuid?.() !== 0,
    "the unreadable-file tests",
    "running as root, which reads every file (run the tests as another user)",
  );
  return unreadableFilesHere;
}
