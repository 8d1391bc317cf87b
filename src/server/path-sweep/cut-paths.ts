import { oncePer } from "../../util/once.ts";
import { NO_URI, type ServerPaths } from "../server-paths.ts";
import { type Hit, type Matcher, matcher, pathStart } from "./path-text.ts";
import { FOLDER_END } from "./skill-file-uri.ts";

/**
 * What ends a text cut short (util/shown-arg.ts, excerpts, a description shortened to fit): a path there may
 * stop inside a folder's name, and then names no folder whole.
 */
export const CUT = "…";

/** A path's root, as a key writes it (`/`, `c:\\`, `\\` before a UNC server): no folder's first name. */
const ROOT_START = /^(?:[a-z]:)?[\\/]*/;

/** `paths.folders`' keys in order, and how far before a cut one may start. */
interface CutIndex {
  keys: string[];
  /** Each key's folder: its index in `paths.folders`. */
  folders: number[];
  /** The keys' first characters: where a folder's path may start. */
  firsts: ReadonlySet<string>;
  /** Most characters a folder's path is written with. */
  reach: number;
}

/** The CutIndex of `paths`, made once per ServerPaths (an answer's strings are swept one by one). */
const cutIndex = oncePer((paths: ServerPaths): CutIndex => {
  const m = matcher(paths);
  const keyed = paths.folders.map(([folder], i): [string, number] => [m.key(folder), i]);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const keys = keyed.map(([key]) => key);
  const longest = Math.max(0, ...paths.folders.map(([folder]) => folder.length));
  return {
    keys,
    folders: keyed.map(([, i]) => i),
    firsts: new Set(keys.map((key) => key[0] ?? "")),
    reach: writtenLength(longest, paths),
  };
});

/**
 * Most characters a path of `length` characters is written with: as many on POSIX; on Windows, where any
 * run of slashes is one (doubled, escaped twice), four times as many.
 */
function writtenLength(length: number, paths: ServerPaths): number {
  return paths.separator === "/" ? length : 4 * length;
}

/**
 * The first path cut short inside a folder's name, from `from` on: the text right before a cut is the start
 * of a folder of `paths.folders` (the longest such text, from where a path starts as that folder's would:
 * pathStart), past that folder's first name (`/home/an…`, `C:\\Users\\a…`; not `/ho…` nor `C:\\Us…`, the
 * start of a thousand paths). Its `end` is the cut. In a skill's own text, only one that may go on into a
 * skill's folder: any other is the author's path, kept as a whole one is.
 */
export function nextCut(
  text: string,
  from: number,
  paths: ServerPaths,
  m: Matcher,
  skillText: boolean,
): Hit | undefined {
  const index = cutIndex(paths);
  let after = from;
  for (let cut = text.indexOf(CUT, from); cut >= 0; cut = text.indexOf(CUT, cut + 1)) {
    for (let at = Math.max(after, cut - index.reach); at < cut - 1; at++) {
      if (!index.firsts.has(m.key(text[at] as string))) continue;
      const key = m.key(text.slice(at, cut));
      if (!key.replace(ROOT_START, "").includes(paths.separator)) continue;
      for (let i = firstNotBefore(index.keys, key); index.keys[i]?.startsWith(key); i++) {
        const start = pathStart(text, at, paths.folders[index.folders[i] as number]?.[0] ?? "", paths, m);
        if (!start || (skillText && (start.inner || !startsAny(sortedSkillKeys(m.skills), key)))) continue;
        return { ...start, at, end: cut };
      }
    }
    // A path cut short holds no earlier cut.
    after = cut + 1;
  }
  return undefined;
}

/**
 * In a skill's own text, `cut` (the first cut from `at` on; -1: none) where the path at `at` (a folder of
 * `paths.folders` starts it) is cut short inside the name of a skill's folder (`/srv/skills/Bad Na…`): the
 * text up to the cut, before `bound` and holding no character a skill folder's path never holds, starts a
 * skill folder's path. Else undefined.
 */
export function cutInSkill(
  text: string,
  at: number,
  cut: number,
  bound: number,
  paths: ServerPaths,
  m: Matcher,
): number | undefined {
  if (cut < 0 || cut > bound || cut - at > writtenLength(paths.longest, paths)) return undefined;
  const path = text.slice(at, cut);
  return !FOLDER_END[paths.separator].test(path) && startsAny(sortedSkillKeys(m.skills), m.key(path)) ? cut : undefined;
}

/** The keys of the skill folders that have a URI (a Matcher's `skills`), in order. */
const sortedSkillKeys = oncePer((skills: ReadonlyMap<string, string>) =>
  [...skills]
    .filter(([, uri]) => uri !== NO_URI)
    .map(([key]) => key)
    .sort(),
);

/** The first place in `sorted` (ordered as strings) of a string not before `text`. */
function firstNotBefore(sorted: readonly string[], text: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as string) < text) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Whether a string of `sorted` starts with `text`. */
function startsAny(sorted: readonly string[], text: string): boolean {
  return sorted[firstNotBefore(sorted, text)]?.startsWith(text) ?? false;
}
