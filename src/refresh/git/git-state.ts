import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readNamedText } from "../../util/named-file.ts";
import type { RepoTarget } from "./git-target.ts";

/** What SkillHub keeps in a repository copy about its syncs, beside git's own files. */

/** What the last successful sync left behind, in `.git/skillhub-sync.json` (no credentials). */
export interface RepoState {
  url: string;
  branch: string;
  /** The pinned tag or commit, when one is configured. */
  ref?: string;
  commit: string;
  last_sync: string;
  /** The last sync's failure, when the last sync failed (cleared by a successful one). */
  last_error?: { code: string; message: string; at: string };
}

function stateFile(dir: string): string {
  return join(dir, ".git", "skillhub-sync.json");
}

/** Record a successful sync of `target`'s copy at `commit`. */
export function writeState(target: RepoTarget, commit: string, now: () => number): void {
  const state: RepoState = {
    url: target.spec.url,
    branch: target.branch,
    ...(target.ref ? { ref: target.ref } : {}),
    commit,
    last_sync: new Date(now()).toISOString(),
  };
  try {
    writeFileSync(stateFile(target.dir), `${JSON.stringify(state, null, 2)}\n`);
  } catch {
    // Only `doctor` and last_sync after a restart read it.
  }
}

/**
 * Record a failed sync in the copy's state (for `doctor`): the state of the last successful sync stays.
 * Without a copy there is nowhere to keep it: `doctor` says there is no copy.
 */
export function recordFailure(dir: string, error: { code: string; message: string }, now: () => number): void {
  const state = readState(dir);
  if (!state) return;
  const last_error = { code: error.code, message: error.message, at: new Date(now()).toISOString() };
  try {
    writeFileSync(stateFile(dir), `${JSON.stringify({ ...state, last_error }, null, 2)}\n`);
  } catch {
    // Only `doctor` reads it.
  }
}

/** The state of the last successful sync of a copy, if any. */
export function readState(dir: string): RepoState | undefined {
  // Bounded and non-blocking, as every file SkillHub reads by name (util/named-file.ts).
  const read = readNamedText({ path: stateFile(dir), maxBytes: 65_536 });
  if (!read.ok) return undefined;
  try {
    const value = JSON.parse(read.text) as RepoState;
    return typeof value.commit === "string" && typeof value.last_sync === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The ref (pinned tag or commit, else branch) the copy in `dir` was last synced for, if it was. */
export function fetchedFor(dir: string): string | undefined {
  const state = readState(dir);
  return state && (state.ref ?? state.branch);
}
