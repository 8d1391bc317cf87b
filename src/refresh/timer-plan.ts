import type { VerifyPlan } from "../sources/walk-record.ts";

/**
 * The timer's stat check is spread over at least this many ticks: each tick stats one
 * slice, so every entry is statted once in SWEEP_TICKS ticks (5 minutes at the
 * default 30 s). See timerPlan for what is statted at every tick.
 */
export const SWEEP_TICKS = 10;

/**
 * With a working watcher, at most this many sliced entries (skill folders and files) are statted
 * a tick: more slices in a larger catalog. Issue 16: the 2,000 stats of a tick at 10,000 skills
 * allocated enough to wake Bun's collection timer (a collection a second for several seconds:
 * idle CPU 62 vs 26 ms per 31 s for the floor); 330 a tick left it asleep (31 vs 26).
 */
export const TICK_STATS = 300;

/**
 * What one timer tick stats (Walker.verify), given how many skill folders and
 * files the last scan recorded (`sliced`). Folders outside skills, where new
 * skills appear, every tick. Skill folders (a folder created inside a skill)
 * one slice a tick. Files: with a working watcher, which reports edits, one
 * slice a tick (the sweep still finds an edit the watcher missed: a network
 * file system, a watch limit); without one, every tick, so that an edit is
 * seen within one interval as the design promises. With a working watcher the
 * slices hold at most TICK_STATS entries (a sweep of 10,000 skills takes 67
 * ticks, 33 minutes); without one, SWEEP_TICKS slices.
 */
export function timerPlan(tick: number, watcherHealthy: boolean, sliced: number): VerifyPlan {
  const slices = watcherHealthy ? Math.max(SWEEP_TICKS, Math.ceil(sliced / TICK_STATS)) : SWEEP_TICKS;
  return {
    skillDirs: "slice",
    files: watcherHealthy ? "slice" : "all",
    slices,
    phase: tick % slices,
  };
}

/** Every entry of the last scan, at once: the check that follows setting up the watchers. */
export const FULL_CHECK: VerifyPlan = { skillDirs: "all", files: "all", slices: 1, phase: 0 };
