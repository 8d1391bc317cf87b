import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

/**
 * Why the skills folder `path` (absolute) cannot be named as one, in words, or undefined: it lies in
 * SkillHub's repository copies (`<home>/repos`), as written or with its links followed (`realPath`;
 * default: as written only).
 * Security: a copy is served as its repository only once its origin, its config and (with
 * trust.allowed_signers) its commit's signature and files are checked (refresh/git); named as a plain
 * skills folder, its files would be served with none of that.
 */
export function inRepositoryCopies(
  path: string,
  home: string,
  realPath: (path: string) => string = (p) => p,
): string | undefined {
  const copies = join(home, "repos");
  if (!within(path, copies) && !within(realPath(path), realPath(copies))) return undefined;
  return `a folder in SkillHub's repository copies (${copies}) is served only as its repository, whose copy is checked first (its origin, and its signatures with trust.allowed_signers). Name the repository instead: \`skillhub add URL\`, SKILLS_REPO or git.repos (an entry's \`path\` picks a folder of it).`;
}

/** Whether `path` is `folder` or inside it (both absolute), as written. */
function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * `path` (absolute) with its links followed: the real path of its longest part that exists, the rest as
 * written (a folder not made yet under a link to a copy is in that copy).
 */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPathOf(parent), basename(path));
  }
}
