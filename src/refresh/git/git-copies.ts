import { existsSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config/schema.ts";
import { isInside } from "../../util/safe-path.ts";
import { parseRepo } from "./git-url.ts";

/** Where the configured repositories' local copies keep their skills and settings. */

/** The `config.yaml` of each configured repository's local copy that exists (read at start-up). */
export function repoConfigFiles(config: Config): string[] {
  return config.git.repos
    .filter((raw) => !raw.trim().startsWith("-"))
    .map((raw) => join(config.home, "repos", parseRepo(raw).slug, "config.yaml"))
    .filter((file) => existsSync(file));
}

/**
 * `<copy>/skills` when it is a folder inside the copy, else the copy itself. Security: a `skills`
 * committed as a link to a folder elsewhere (~/.claude/skills) is not the repository's: the copy's root
 * is walked instead, where the walker refuses that link with a `symlink-outside` diagnostic.
 */
export function skillsDir(copy: string): string {
  const skills = join(copy, "skills");
  try {
    if (statSync(skills).isDirectory() && isInside(realpathSync(copy), realpathSync(skills))) return skills;
  } catch {
    // No skills/ folder: the root holds the skills.
  }
  return copy;
}
