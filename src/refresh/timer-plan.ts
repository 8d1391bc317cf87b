import type { VerifyPlan } from "../sources/walk-record.ts";

/**
 * Without a working watcher, the timer's stat check is spread over this many ticks: each tick stats one
 * slice of the skill folders, so every one is statted once in SWEEP_TICKS ticks (5 minutes at the
 * default 30 s). See timerPlan for what is statted at every check.
 */
export const SWEEP_TICKS = 10;

/**
 * With a working watcher, which reports changes itself, one tick in this many runs the stat check
 * (10 minutes at the default 30 s); the others run no JavaScript at all, and the folders where new
 * skills appear are polled by the runtime instead (structure-polls.ts). Issue 16: any tick that ran
 * JavaScript, even one that statted nothing, kept Bun's collection timer collecting the server's heap
 * every second for the next 40–60 s, so a 30 s tick kept it there for good (idle CPU 40–46 ms per 31 s
 * against the floor's 22–26; the tick itself 1–4 ms of it).
 */
export const WATCHED_CHECK_TICKS = 20;

/**
 * With a working watcher, at most this many skill folders and files are statted a check: a larger
 * catalog takes more checks (4 at 10,000 skills, so 40 minutes for an edit the watcher missed).
 */
export const CHECK_STATS = 6000;

/**
 * The watch worker's check (a large folder watched from the worker, Linux: source-watchers.ts handCheck)
 * runs half as often as the server's and stats twice as many entries, so the sweep takes as long (40
 * minutes at 10,000 skills). Issue 16: each check cost the worker 22–25 ms of cold code and stats, then
 * 10–12 ms of Bun's collection timer over the next 30 s, whatever its size; over a 10-minute window the
 * check was most of what idle CPU spent above the floor's.
 */
export const WORKER_CHECK_TICKS = 2 * WATCHED_CHECK_TICKS;
export const WORKER_CHECK_STATS = 2 * CHECK_STATS;

/**
 * What one stat check (Walker.verify) stats, given how many skill folders and files the last scan
 * recorded (`sliced`) and how many a watched check may stat (`perCheck`); `check` counts the checks. Folders outside skills, where new skills appear,
 * every check. Without a working watcher: skill folders one slice of SWEEP_TICKS a check (a folder
 * created inside a skill), files all of them, so that an edit is seen within one interval as the design
 * promises. With one (checks WATCHED_CHECK_TICKS apart): skill folders and files in slices of at most
 * CHECK_STATS, which still finds an edit the watcher missed (a network file system, a watch limit).
 */
export function timerPlan(check: number, watcherHealthy: boolean, sliced: number, perCheck = CHECK_STATS): VerifyPlan {
  const slices = watcherHealthy ? Math.max(1, Math.ceil(sliced / perCheck)) : SWEEP_TICKS;
  return {
    skillDirs: "slice",
    files: watcherHealthy ? "slice" : "all",
    slices,
    phase: check % slices,
  };
}

/** Every entry of the last scan, at once: the check that follows setting up the watchers. */
export const FULL_CHECK: VerifyPlan = { skillDirs: "all", files: "all", slices: 1, phase: 0 };
