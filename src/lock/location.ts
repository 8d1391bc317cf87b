import { isAbsolute, join, resolve } from "node:path";
import { LOCKFILE_NAME } from "./lockfile.ts";

/**
 * Where the lock lives: `lock.file` (SKILLHUB_LOCK) when set; else in the
 * project root, committed beside the project's skills; else, for a machine
 * with global sources only, in SkillHub's home (~/.skillhub/skillhub.lock).
 */
export function lockPath(input: { file?: string; projectDir: string | null; home: string; cwd: string }): string {
  if (input.file) return isAbsolute(input.file) ? input.file : resolve(input.cwd, input.file);
  return join(input.projectDir ?? input.home, LOCKFILE_NAME);
}
