import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { readNamedText } from "../../util/named-file.ts";
import { scrubUrlCredentials } from "../../util/url-credentials.ts";
import { configValues } from "./git-config-file.ts";
import { sameRepository } from "./git-url.ts";

/**
 * Whose copy a repository copy is: the repository its clone recorded as `origin` in the copy's own
 * `.git/config`, read from the file (no git is started: a server asks it of every copy it serves, at
 * start and at each rescan).
 *
 * Security: a copy's folder name does not make it the configured repository's. An earlier version gave
 * two repositories one folder name, and whoever can write the folder can write its `.git/config`. A copy
 * whose origin is another repository (sameRepository), or that records none, is never served, listed,
 * locked or verified as the configured entry: the sync clones it again (git-repo.ts), and every reader of a
 * copy (GitSync.sources and status, the repositories' config.yaml) asks this same question.
 */

/** A copy that is not the configured repository's. */
export interface ForeignCopy {
  /** The origin the copy records (credentials removed); undefined when it records none that can be read. */
  found?: string;
  /** Why, in words: a clause that follows "the copy in DIR is not served:". */
  why: string;
}

/** Largest `.git/config` read: SkillHub's clone writes a few hundred bytes. */
const MAX_GIT_CONFIG_BYTES = 65_536;

/**
 * Why the copy in `dir` is not a copy of the repository `url` names, or undefined when it is (its origin,
 * however spelt, is that repository) or when there is no copy at all. A folder there without a readable
 * `.git/config`, or one whose `remote.origin.url` is missing, empty or another repository's, is not.
 */
export function foreignCopy(dir: string, url: string): ForeignCopy | undefined {
  if (!existsSync(dir)) return undefined;
  const file = join(dir, ".git", "config");
  // Security: the copy's own file, as the sync's check wants it (git-copy-guard.ts): neither its .git nor
  // the file a link, which could lead to another repository's. Then read bounded: a FIFO is not waited on.
  const link = [join(dir, ".git"), file].find(isLink);
  if (link) return { why: `its .git/config cannot be read (${link} is a link)` };
  const read = readNamedText({ path: file, maxBytes: MAX_GIT_CONFIG_BYTES });
  if (!read.ok)
    return {
      why: read.missing
        ? "it is no git copy (it has no .git/config)"
        : `its .git/config cannot be read (${read.reason})`,
    };
  const origins = configValues(read.text, "remote.origin.url");
  if (origins === undefined) return { why: "its .git/config is not one git can read" };
  if (origins.length === 0 || origins.some((origin) => origin.trim() === ""))
    return { why: `it records no origin, so nothing says it is a copy of ${url}` };
  const other = origins.find((origin) => !sameRepository(origin, url));
  if (other === undefined) return undefined;
  const found = scrubUrlCredentials(other.trim());
  return { found, why: `its origin is ${found}, another repository than the configured ${url}` };
}

/** Whether `path` is a symbolic link; false when it cannot be looked at (then reading it says why). */
function isLink(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    return false;
  }
}
