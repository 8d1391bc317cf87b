import { NO_URI, type ServerPaths } from "../server-paths.ts";
import { type Matcher, sentenceEnd } from "./path-text.ts";

/** Characters no skill folder's path holds here: where the search for one ends. */
export const FOLDER_END = { "/": /[\n\r\t"'`<>|\\]/, "\\": /[\n\r\t"'`<>|]/ };

/**
 * Past the longest skill folder that the path at `at` names, spaces and all (else `end`). Looks no further
 * than the longest skill folder reaches, so a line of many paths costs as many short scans.
 */
export function skillFolderEnd(text: string, at: number, end: number, paths: ServerPaths, m: Matcher): number {
  const limit = Math.min(text.length, at + paths.longest);
  let found = end;
  for (let i = end + 1; i <= limit; i++) {
    if (FOLDER_END[paths.separator].test(text[i - 1] as string)) break;
    const next = text[i];
    const ends = next === undefined || m.isSeparator(next) || m.end.test(next);
    if (ends && m.skills.has(m.key(text.slice(at, i)))) found = i;
  }
  return found;
}

/**
 * `path` (its first `folderLength` characters name a folder of `paths.folders`) as a skill:// URI when a
 * skill's folder holds it, else undefined.
 */
export function inSkill(path: string, folderLength: number, paths: ServerPaths, m: Matcher): string | undefined {
  const trimmed = path.slice(0, sentenceEnd(path, 0, path.length));
  // No skill folder is longer, however its slashes are written (doubled, escaped twice): looked for within.
  const reach = folderLength + 4 * paths.longest;
  let dir = trimmed.length <= reach ? trimmed : parentOf(trimmed.slice(0, reach + 1), m);
  while (dir.length >= folderLength && dir !== "") {
    const uri = m.skills.get(m.key(dir));
    if (uri === NO_URI) return undefined;
    if (uri !== undefined) return uri + encodeRest(trimmed.slice(dir.length), m) + path.slice(trimmed.length);
    dir = parentOf(dir, m);
  }
  return undefined;
}

/** The folder holding `dir`: its last name and the separators before it dropped (or its trailing separators). */
function parentOf(dir: string, m: Matcher): string {
  let cut = dir.length;
  while (cut > 0 && m.isSeparator(dir[cut - 1])) cut--;
  if (cut < dir.length) return dir.slice(0, cut);
  while (cut > 0 && !m.isSeparator(dir[cut - 1])) cut--;
  while (cut > 0 && m.isSeparator(dir[cut - 1])) cut--;
  return dir.slice(0, cut);
}

/** The rest of a path past a skill's folder, as the rest of its URI: `/`-separated, each name encoded. */
function encodeRest(rest: string, m: Matcher): string {
  let out = "";
  let name = "";
  for (const char of rest) {
    if (!m.isSeparator(char)) name += char;
    else if (name !== "" || out === "") {
      out += `${encodeURIComponent(name)}/`;
      name = "";
    }
  }
  return out + encodeURIComponent(name);
}
