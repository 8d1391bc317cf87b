import { statSync } from "node:fs";

/** Why a named skills folder cannot be read as one, as a kind and as the sentence's end. */
export interface FolderProblem {
  kind: "missing" | "file";
  says: string;
}

/**
 * Why `dir` cannot be read as a folder of skills: it does not exist, or it is a file (often a SKILL.md
 * given for its folder). Undefined when it is a folder, or when that cannot be told (the scan reports it).
 */
export function folderProblem(dir: string): FolderProblem | undefined {
  try {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (!stats) return { kind: "missing", says: "does not exist" };
    if (stats.isDirectory()) return undefined;
    return { kind: "file", says: "is a file, not a folder: give the folder that holds the skill folders" };
  } catch {
    return undefined;
  }
}

/**
 * Folders the user named (`--skills-dir`, `--project`) that are not there, each as a sentence: a typo more
 * often than not, said at start and by `doctor` rather than left a quiet "not present".
 */
export function namedFolderWarnings(sources: { dirs: readonly string[]; project?: string }): string[] {
  const warnings = sources.dirs.flatMap((dir) => {
    const problem = folderProblem(dir);
    return problem ? [`skills folder ${dir} ${problem.says}; it is skipped`] : [];
  });
  const project = sources.project === undefined ? undefined : folderProblem(sources.project);
  if (project)
    warnings.push(
      `project root ${sources.project} ${project.kind === "missing" ? "does not exist" : "is a file, not a folder"}`,
    );
  return warnings;
}
