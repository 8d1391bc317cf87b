import type { VerifyPlan } from "../sources/walk-record.ts";

/**
 * The timer's stat check is spread over this many ticks: each tick stats one
 * slice, so every entry is statted once in SWEEP_TICKS ticks (5 minutes at the
 * default 30 s). See timerPlan for what is statted at every tick.
 */
export const SWEEP_TICKS = 10;

/**
 * What one timer tick stats (Walker.verify). Folders outside skills, where new
 * skills appear, every tick. Skill folders (a folder created inside a skill)
 * one slice a tick. Files: with a working watcher, which reports edits, one
 * slice a tick (the sweep still finds an edit the watcher missed: a network
 * file system, a watch limit); without one, every tick, so that an edit is
 * seen within one interval as the design promises.
 */
export function timerPlan(tick: number, watcherHealthy: boolean): VerifyPlan {
  return {
    skillDirs: "slice",
    files: watcherHealthy ? "slice" : "all",
    slices: SWEEP_TICKS,
    phase: tick % SWEEP_TICKS,
  };
}

/** Every entry of the last scan, at once: the check that follows setting up the watchers. */
export const FULL_CHECK: VerifyPlan = { skillDirs: "all", files: "all", slices: 1, phase: 0 };
