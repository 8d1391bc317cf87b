import { type Stats, statSync } from "node:fs";

/**
 * A path's stats (links followed), or undefined when it cannot be statted, whatever the reason: missing,
 * a link loop, a name too long, a file where a folder is named, no permission. Never throws: a path a
 * client or a skill names may be any of these, and each is an answer, not a failure.
 */
export function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
