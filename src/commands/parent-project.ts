import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { PROJECT_CONFIG_FILE } from "../config/project-file.ts";
import { type ProjectRoot, WORKING_DIRECTORY } from "../sources/project-root.ts";

/**
 * The note `list` and `doctor` add when the project root is the working directory and a folder above it
 * (below the home folder and `/`) holds a skillhub.yaml: the command was most likely run in a subfolder of
 * that project, whose skills it does not read. The root itself is not changed (a client started in the
 * subfolder serves that subfolder too); the note names the project and how to read it. Undefined otherwise.
 * Security: the search stops at a folder another user may write or owns (`/tmp`): a skillhub.yaml planted
 * there is no project of the user's to be pointed at.
 */
export function parentProjectNote(root: ProjectRoot, homeDir: string): string | undefined {
  if (root.how !== WORKING_DIRECTORY || root.dir === null) return undefined;
  if (existsSync(join(root.dir, PROJECT_CONFIG_FILE))) return undefined;
  const home = resolve(homeDir);
  for (let dir = dirname(root.dir); dir !== dirname(dir) && dir !== home && ownFolder(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, PROJECT_CONFIG_FILE)))
      return `${dir} above holds a ${PROJECT_CONFIG_FILE}, so this is likely a subfolder of that project, whose skills are not read from here: run the command in ${dir}, or pass --project ${dir} (or set SKILLHUB_PROJECT_DIR=${dir}).`;
  }
  return undefined;
}

/** Whether `dir` is the user's own: owned by them, and not writable by every user. */
function ownFolder(dir: string): boolean {
  try {
    const stat = statSync(dir);
    const uid = process.getuid?.();
    return (uid === undefined || stat.uid === uid) && (stat.mode & 0o002) === 0;
  } catch {
    return false;
  }
}
