/** Version-control metadata: never a file of a skill. */
export const VCS_DIR = ".git";

/** Code points HFS+ ignores in file names (as git's own check of `.git` does). */
const IGNORED_BY_HFS = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * Whether a file name names version-control metadata on some file system. Security: where names ignore
 * case (macOS, Windows) `.GIT/config` opens `.git/config`, on HFS+ so does `.g\u200cit`, and on Windows
 * `.git.`, `.git::$INDEX_ALLOCATION` and the short name `GIT~1` do; the walker only ever meets `.git`, but
 * a path a client asks for may be spelled any of these ways. Git refuses the same names in a tree.
 */
export function isVersionControl(name: string): boolean {
  const plain = name.replace(IGNORED_BY_HFS, "").toLowerCase();
  const ntfs = trimDotsAndSpaces(plain.split(":")[0] ?? "");
  return plain === VCS_DIR || ntfs === VCS_DIR || /^git~\d+$/.test(ntfs);
}

/**
 * `name` without the dots and spaces at its end, as Windows drops them. Security: a loop, in one pass;
 * `/[. ]+$/` is tried again from every dot, and a client's name of a million `. ` took minutes.
 */
export function trimDotsAndSpaces(name: string): string {
  let end = name.length;
  while (end > 0 && (name[end - 1] === "." || name[end - 1] === " ")) end--;
  return name.slice(0, end);
}
