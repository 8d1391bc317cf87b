import { relative, sep } from "node:path";

/** Path helpers of the walker: string work only, on paths it built itself. Pure. */

/** `dir/name` without path.join's normalisation: both parts are already clean (hot path at 10,000 skills). */
export function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/** `path` relative to `root`, with "/" separators. */
export function toRel(root: string, path: string): string {
  // Paths under the root are built by childPath, so a prefix cut is exact.
  const rel = path.startsWith(root + sep) ? path.slice(root.length + 1) : relative(root, path);
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** The system's own folders: processes, kernel objects and devices, never skills. */
const SYSTEM_FOLDERS = ["/proc", "/sys", "/dev"];

/**
 * Whether a real path is one of the system's own folders or inside one. Security: a walk reaching them
 * (a source at `/`, a link to /proc) would not end: /proc/<pid>/root and /proc/<pid>/fd lead back to the
 * whole disk, once per process. Pure.
 */
export function inSystemFolder(real: string): boolean {
  return sep === "/" && SYSTEM_FOLDERS.some((folder) => real === folder || real.startsWith(`${folder}/`));
}
