/**
 * A search of /proc as a series of small steps, run within a time budget. Both searches for a run's
 * processes (those carrying its marker: exec/process-tree.ts; those holding its output:
 * exec/process-pipe-writers.ts) read other processes' files one small part at a time, and a script can
 * leave processes that make either long (thousands of them, tens of thousands of descriptors each,
 * environments of megabytes). As steps, a search gives the event loop a turn every few milliseconds, so
 * the server goes on answering while it runs.
 */

/**
 * A search's steps (a generator): each yields a pid found, or undefined between two looks. Ending a search
 * early calls `return()`, so a generator's `finally` runs (closing what it opened, finishing what it
 * began).
 */
export type SearchSteps = Iterator<number | undefined, unknown>;

/** How a search ended: every process looked at, stopped by the caller, or out of time. */
export type SearchEnd = "searched" | "stopped" | "out of time";

export interface SearchOptions {
  /** Most milliseconds the search runs, pauses included. */
  budgetMs: number;
  /** Checked between two turns of the event loop: true ends the search (what it looks for has gone). */
  stop?: () => boolean;
  /** Clock, in milliseconds. Default performance.now. */
  now?: () => number;
  /** Gives the event loop a turn. Default: the next turn (setImmediate). */
  pause?: () => Promise<void>;
}

/** Most milliseconds of search between two turns of the event loop. */
const SLICE_MS = 5;

/**
 * Run a search's `steps` until they end, `stop()` says so, or the budget is spent, giving the event loop
 * a turn every few milliseconds; `found` gets each pid as it is found.
 */
export async function runSearch(
  steps: SearchSteps | undefined,
  found: (pid: number) => void,
  options: SearchOptions,
): Promise<SearchEnd> {
  if (!steps) return "searched";
  const now = options.now ?? (() => performance.now());
  const pause = options.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const deadline = now() + options.budgetMs;
  let sliceEnd = now() + SLICE_MS;
  let end: SearchEnd = "searched";
  try {
    for (let step = steps.next(); !step.done; step = steps.next()) {
      if (step.value !== undefined) found(step.value);
      const at = now();
      if (at >= deadline) {
        end = "out of time";
        break;
      }
      if (at >= sliceEnd) {
        await pause();
        if (options.stop?.()) {
          end = "stopped";
          break;
        }
        sliceEnd = now() + SLICE_MS;
      }
    }
  } finally {
    if (end !== "searched") steps.return?.();
  }
  return end;
}

/**
 * The same search without pauses, until `deadline` (a time of `now`): for a server that is closing,
 * whose event loop has nothing left to serve.
 */
export function runSearchNow(
  steps: SearchSteps | undefined,
  found: (pid: number) => void,
  deadline: number,
  now: () => number = () => performance.now(),
): SearchEnd {
  if (!steps) return "searched";
  for (let step = steps.next(); !step.done; step = steps.next()) {
    if (step.value !== undefined) found(step.value);
    if (now() >= deadline) {
      steps.return?.();
      return "out of time";
    }
  }
  return "searched";
}
