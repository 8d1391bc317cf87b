import { statSync } from "node:fs";

/**
 * Why `dir` cannot be read as a folder of skills: it does not exist, or it is a file (often a SKILL.md
 * given for its folder). Undefined when it is a folder, or when that cannot be told (the scan reports it).
 */
export function folderProblem(dir: string): string | undefined {
  try {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (!stats) return "does not exist";
    return stats.isDirectory() ? undefined : "is a file, not a folder: give the folder that holds the skill folders";
  } catch {
    return undefined;
  }
}
