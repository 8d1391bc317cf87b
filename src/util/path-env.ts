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

/**
 * Keep only the absolute entries of each variable of `env` that `names` lists (upper case; matched in any
 * case, as Windows spells `Path`), in place; a variable with none left is removed, since an empty PATH is
 * itself read as the working folder by sh, bash and Python.
 */
export function keepAbsoluteEntries(env: Record<string, string | undefined>, names: ReadonlySet<string>): void {
  for (const name of Object.keys(env)) {
    if (!names.has(name.toUpperCase())) continue;
    const kept = absolutePathEntries(env[name]);
    if (kept === "") delete env[name];
    else env[name] = kept;
  }
}
