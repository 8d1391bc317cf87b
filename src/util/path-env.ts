import { delimiter, isAbsolute } from "node:path";

/**
 * The absolute entries of a PATH value, in order, joined again; "" when there is none. Pure.
 *
 * Security: an empty or relative entry ("", ".", "bin") is looked up from the working folder of the
 * process that searches PATH, which SkillHub often does not choose: a skill's folder for
 * run_skill_command, a repository copy for git (whose files whoever can write the copy chooses).
 */
export function absolutePathEntries(path: string | undefined): string {
  return (path ?? "")
    .split(delimiter)
    .filter((entry) => entry !== "" && isAbsolute(entry))
    .join(delimiter);
}
