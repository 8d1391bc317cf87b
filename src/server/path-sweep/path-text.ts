import { oncePer } from "../../util/once.ts";
import type { ServerPaths } from "../server-paths.ts";

/**
 * How paths are found and compared here. POSIX: as they are. Windows: without regard to case, with `/`
 * taken for `\\` and any run of them for one (`c:/hub//skills`, `C:\\\\hub\\\\skills` escaped by a
 * program, are `C:\\hub\\skills`): each folder is looked for by a pattern, and skill folders by a key.
 */
export interface Matcher {
  /** What separates a path's folders here (ServerPaths.separator). */
  separator: "/" | "\\";
  /** The next place `folder` (its index in `paths.folders`) is written in `text`, from `from` on. */
  find(index: number, text: string, from: number): { at: number; end: number } | undefined;
  /** A path as the skill folders are keyed. */
  key(path: string): string;
  /** ServerPaths.skills, keyed by `key`. */
  skills: ReadonlyMap<string, string>;
  /** Whether a character separates folders. */
  isSeparator(char: string | undefined): boolean;
  /** Where a character ends a path past its skill folder (see `endsPath`). */
  end: RegExp;
}

/** Lower case, one `\\` for any run of slashes, and one sigma: the same Windows path, however written. */
function windowsKey(path: string): string {
  return path
    .toLowerCase()
    .replace(/[\\/]+/g, "\\")
    .replaceAll("ς", "σ");
}

/** The Matcher of `paths`, made once per ServerPaths (an answer's strings are swept one by one). */
export const matcher = oncePer((paths: ServerPaths): Matcher => {
  if (paths.separator === "/")
    return {
      separator: "/",
      find: (index, text, from) => {
        const folder = paths.folders[index]?.[0] ?? "";
        const at = text.indexOf(folder, from);
        return at < 0 ? undefined : { at, end: at + folder.length };
      },
      key: (path) => path,
      skills: paths.skills,
      isSeparator: (char) => char === "/",
      end: /[\s"'`‘’“”«»<>()[\]{},;|\\…]/,
    };
  // A pattern that begins with a run of slashes (a UNC folder) never starts inside one: it would
  // otherwise try again from each slash of a long run.
  const patterns = paths.folders.map(([folder]) => {
    const body = folder
      .split(/[\\/]+/)
      .map((segment) => segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\\\/]+");
    return new RegExp(/^[\\/]/.test(folder) ? `(?<![\\\\/])${body}` : body, "giu");
  });
  return {
    separator: "\\",
    find: (index, text, from) => {
      const pattern = patterns[index];
      if (!pattern) return undefined;
      pattern.lastIndex = from;
      const found = pattern.exec(text);
      return found ? { at: found.index, end: found.index + found[0].length } : undefined;
    },
    key: windowsKey,
    skills: windowsSkills(paths.skills),
    isSeparator: (char) => char === "\\" || char === "/",
    end: /[\s"'`‘’“”«»<>()[\]{},;|…]/,
  };
});

/** Skill folders keyed as Windows paths are compared (windowsKey), made once per map (a hub's ServerPaths share one). */
const windowsSkills = oncePer(
  (skills: ReadonlyMap<string, string>) => new Map([...skills].map(([dir, uri]) => [windowsKey(dir), uri])),
);

/**
 * Whether the character at `i` ends a path in running text, past the skill folder it is in (a space may
 * be in a folder's name): a quote, a bracket, a space…; and `:` or `=` when the next path starts there
 * (`PATH=/a:/b`, `--out=/x`), not inside a name (`a=b.txt`, `pdf:extra`).
 */
export function endsPath(text: string, i: number, m: Matcher): boolean {
  const char = text[i];
  if (char === undefined || m.end.test(char)) return true;
  if (char !== ":" && char !== "=") return false;
  const rest = text.slice(i + 1, i + 4);
  // A line number (`x.py:10:`) ends it too.
  return m.isSeparator(rest[0]) || (char === ":" && /^\d/.test(rest)) || (char === "=" && /^[A-Za-z]:[\\/]/.test(rest));
}

/** A character of a folder's name: the name goes on past a folder written before it (`/home/ana` in `/home/anabel`). */
export const NAME_CHAR = /[\p{L}\p{N}_~+-]/u;

/** Longest name walked back over before a folder (NAME_MAX): a longer run of name characters is no folder's name. */
export const NAME_MAX = 255;

/**
 * Whether the folder written at `at` is the end of a longer path, not a path of its own: the name right
 * before it follows a separator (`/backup` in `/backup/home/ana`), or is only dots (`./home/ana`). A name
 * glued on with no separator before it is an option's or a word's (`-I/home/ana/include`), and the folder
 * is the server's.
 */
function continuesPath(text: string, at: number, m: Matcher): boolean {
  let start = at;
  while (start > 0 && at - start < NAME_MAX) {
    const char = text[start - 1] as string;
    if (!NAME_CHAR.test(char) && char !== ".") break;
    start--;
  }
  if (start === at) return false;
  return m.isSeparator(text[start - 1]) || /^\.+$/.test(text.slice(start, at));
}

/**
 * What may stand right before a path and belongs with it: a file URL's `file://` (`file:///srv/x`,
 * `file://localhost/srv/x`, `file:` before a UNC path's own slashes), and on Windows the long-path and
 * device prefixes (`\\?\C:\x`, `\\.\C:\x`, `\\?\UNC` before a UNC path's `\server\share`).
 */
const LEAD = {
  "/": /file:(?:\/\/(?:localhost)?)?$/i,
  "\\": /(?:file:(?:[\\/]{2,}(?:localhost)?[\\/]?)?|[\\/]{2,}[?.][\\/]+(?:UNC)?)$/i,
};

/** Most characters a LEAD prefix has (`file://localhost/`, an escaped `\\?\UNC`). */
const LEAD_CHARS = 24;

/** How many characters of a LEAD prefix stand right before `at`, none of them before `from`. */
export function leadLength(text: string, at: number, from: number, m: Matcher): number {
  return LEAD[m.separator].exec(text.slice(Math.max(from, at - LEAD_CHARS), at))?.[0].length ?? 0;
}

/**
 * Where a folder is written: `at` to `end`, and `lead`, where a prefix that makes it a URL or a long path
 * starts; `inner` when it ends a longer path (a folder of `paths.anywhere`).
 */
export interface Hit {
  lead: number;
  at: number;
  end: number;
  inner?: boolean;
}

/**
 * Where the path that `folder` (of `paths.folders`), written at `at`, starts, if it starts one there: `lead`
 * before a LEAD prefix, `inner` where a folder of `paths.anywhere` ends a longer path; undefined where it
 * is only part of a longer path or a word (see nextHit).
 */
export function pathStart(
  text: string,
  at: number,
  folder: string,
  paths: ServerPaths,
  m: Matcher,
): { lead: number; inner?: true } | undefined {
  if (paths.relative?.has(folder)) {
    // Only where a word starts: `myhome/ana` or `x/home/ana` is another path (the latter the home's, found whole).
    const prior = text[at - 1];
    return prior === undefined || !(NAME_CHAR.test(prior) || prior === "." || m.isSeparator(prior))
      ? { lead: at }
      : undefined;
  }
  const lead = leadLength(text, at, 0, m);
  if (lead > 0) return { lead: at - lead };
  if (!continuesPath(text, at, m)) return { lead: at };
  // Security: the user's home ending a longer path (`/backup/home/ana`) still names the user.
  if (paths.anywhere?.has(folder) && m.isSeparator(folder[0])) return { lead: at, inner: true };
  return undefined;
}

/** Where the path going on at `from` ends in running text (endsPath), without a sentence's dots or colons after it. */
export function pathEnd(text: string, from: number, m: Matcher): number {
  let end = from;
  while (!endsPath(text, end, m)) end++;
  return sentenceEnd(text, from, end);
}

/**
 * `end`, or before the dots and colons of a sentence's end that the text from `from` to `end` ends with.
 * Walked back: a regex anchored at the end would retry from every dot of a long run.
 */
export function sentenceEnd(text: string, from: number, end: number): number {
  let stop = end;
  while (stop > from && (text[stop - 1] === "." || text[stop - 1] === ":")) stop--;
  return stop;
}

/** The first place of a string at or after a place in one text; -1: none. */
export type NextIndex = (search: string, from: number) => number;

/**
 * NextIndex for `text`, each string's place found again only once passed: asked from places that go
 * forward (a sweep's, left to right), it reads the text once per string, however many paths ask.
 */
export function nextIndex(text: string): NextIndex {
  const found = new Map<string, { from: number; at: number }>();
  return (search, from) => {
    const known = found.get(search);
    if (known && from >= known.from && (known.at < 0 || from <= known.at)) return known.at;
    const at = text.indexOf(search, from);
    found.set(search, { from, at });
    return at;
  };
}
