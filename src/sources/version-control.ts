import { relative, sep } from "node:path";

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
 * isVersionControl(name) for the first name of a place, read no further than its first `:`, `=` or `@`, and
 * not at all when it starts with four letters or digits. Security: the same answer, as a version-control
 * name (`.git`, `git~1`, any case) holds before a `:` (an NTFS stream, which it ignores) only `.git` or
 * `git~`, digits, dots, spaces and code points HFS+ ignores, none of which is `=` or `@`, and does not start
 * with four letters or digits. So the places in a run of option letters (`-aaaa…`) cost a step each, and
 * one after `=` or `@` reads no further than the next: the places of one name are each other's ends.
 */
export function isVersionControlHead(name: string): boolean {
  if (/^[A-Za-z0-9]{4}/.test(name)) return false;
  const stop = name.search(/[:=@]/);
  if (stop < 0) return isVersionControl(name);
  return name[stop] === ":" && isVersionControl(name.slice(0, stop));
}

/**
 * Whether `real`, inside `base`, lies in version-control metadata (a `.git` folder, spelled any way).
 * Security: what git keeps there is no file of any commit, whoever can write the copy writes it, and no
 * check of a signed copy (trust.allowed_signers) looks at it: a link into it must never serve it. Pure.
 */
export function inVersionControl(base: string, real: string): boolean {
  return relative(base, real).split(sep).some(isVersionControl);
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
