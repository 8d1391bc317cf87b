import type { VerifyPlan } from "../sources/walk-record.ts";

/**
 * The timer's stat check covers every entry once in this many ticks (5 minutes
 * at the default 30 s). See timerPlan for what is statted at every tick.
 */
export const SWEEP_TICKS = 10;

/**
 * What one timer tick stats (Walker.verify). Folders outside skills, where new
 * skills appear, every tick.
 *
 * With a working watcher, which reports edits, skill folders and files are
 * statted all at once every SWEEP_TICKS-th tick (the sweep still finds an edit
 * the watcher missed: a network file system, a watch limit), and not at the
 * other ticks. One sweep rather than a slice every tick, for the same stats:
 * a tick that allocates thousands of stat results puts Bun's collection timer
 * back to one collection a second for the next 30 s (it slows down only after
 * 30 s of a steady heap), so slices kept an idle server collecting every
 * second for good (issue 16: idle CPU).
 *
 * Without one, files every tick, so that an edit is seen within one interval
 * as the design promises, and skill folders (a folder created inside a skill)
 * one slice a tick.
 */
export function timerPlan(tick: number, watcherHealthy: boolean): VerifyPlan {
  if (watcherHealthy) {
    const sweep = tick % SWEEP_TICKS === SWEEP_TICKS - 1 ? "all" : "none";
    return { skillDirs: sweep, files: sweep, slices: 1, phase: 0 };
  }
  return { skillDirs: "slice", files: "all", slices: SWEEP_TICKS, phase: tick % SWEEP_TICKS };
}

/** Every entry of the last scan, at once: the check that follows setting up the watchers. */
export const FULL_CHECK: VerifyPlan = { skillDirs: "all", files: "all", slices: 1, phase: 0 };
