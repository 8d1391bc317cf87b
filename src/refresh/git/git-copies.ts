import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../../config/schema.ts";
import { inVersionControl } from "../../sources/version-control.ts";
import { isInside } from "../../util/safe-path.ts";
import { configRepoTargets, targetKey } from "../repo-targets.ts";
import { foreignCopy } from "./git-origin.ts";

/** Where the configured repositories' local copies keep their skills and settings. */

/**
 * The `config.yaml` of each configured repository's local copy (read at start-up; the file may be missing), and
 * whether a project's skillhub.yaml named the repository (then its file may set less than a skills folder's).
 * The copies are those `lock` pins (repo-targets.ts): the project's, as the server's at start.
 * Security: with trust.allowed_signers, only those of copies `verified` (GitSync.servesCopy) passed: a
 * copy that is not served (unsigned, signed by a key since removed, changed on disk) must not choose where
 * usage events and search queries are sent, nor how skills are matched. None before the check at start.
 * Nor may a copy that is another repository's (git-origin.ts), whatever the setting: it is not served.
 */
export function repoConfigFiles(
  config: Config,
  verified: (copy: string) => boolean = () => false,
  lock?: string,
): { file: string; project: boolean; label: string; url: string; key: string; branch: string }[] {
  return (
    configRepoTargets(config, lock)
      .filter((target) => !config.trust.allowed_signers || verified(target.dir))
      .filter((target) => foreignCopy(target.dir, target.spec.url) === undefined)
      .map((target) => ({
        file: join(target.dir, "config.yaml"),
        project: target.project === true,
        label: target.label,
        url: target.spec.url,
        key: targetKey(target),
        branch: target.branch,
      }))
      // Each copy's, whether or not the file is there: frozen, one the lock records but the copy lacks is named
      // (config/load.ts), not passed over; otherwise a missing file sets nothing.
      .filter(({ file }) => existsSync(dirname(file)))
  );
}

/**
 * `<copy>/skills` when it is a folder of the copy, else the copy itself. Security: a `skills`
 * committed as a link to a folder elsewhere (~/.claude/skills) is not the repository's: the copy's root
 * is walked instead, where the walker refuses that link with a `symlink-outside` diagnostic.
 */
export function skillsDir(copy: string): string {
  const skills = join(copy, "skills");
  try {
    if (statSync(skills).isDirectory() && ofCopy(realpathSync(copy), realpathSync(skills))) return skills;
  } catch {
    // No skills/ folder: the root holds the skills.
  }
  return copy;
}

/**
 * A copy's skills folder: `path` inside it when one is configured, else skillsDir. Undefined when
 * `path` leads outside the copy, or into its `.git`, through a link. Security: a repository cannot make a
 * folder elsewhere on the machine a source by committing a link where its skills should be.
 */
export function repoSkillsDir(copy: string, path: string | undefined): string | undefined {
  if (!path) return skillsDir(copy);
  const dir = join(copy, path);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return dir; // Not there (yet): nothing to serve, nothing to escape to.
  }
  return ofCopy(realpathSync(copy), real) ? dir : undefined;
}

/**
 * Whether the real path `real` is a folder of the copy whose real path is `copy`: inside it, and not in
 * version-control metadata. Security: what `.git` holds is no file of the commit, whoever can write the
 * copy writes it, and no check of a signed copy looks at it; a committed `skills` link into it would
 * serve that.
 */
function ofCopy(copy: string, real: string): boolean {
  return isInside(copy, real) && !inVersionControl(copy, real);
}
