import { oncePer } from "../../util/once.ts";
import { SERVER_PATH } from "../../util/shown-arg.ts";
import type { ServerPaths } from "../server-paths.ts";
import { leadLength, type Matcher, matcher, NAME_MAX, type NextIndex, nextIndex, pathEnd } from "./path-text.ts";

/**
 * Security: `value`, its folders already named (hidePaths), with every other path of this server as
 * `<server path>`, a file URL's `file://` with it: a link's target outside every folder the sweep knows, a
 * repository in a local folder, a file a program names. A path from a root (not one in a word or a URL:
 * OTHER_BEFORE, or an option glued to it: afterOption) with at least two names, which on POSIX starts with a
 * name in the root folder (`/api/v1/x` is no path here). Nothing else on the disk decides it: what an answer
 * makes of a caller's text it quotes tells no more than a listing of the root folder. Where it ends
 * (otherEnd), a name may hold spaces (`/Users/Jane Doe/…`, `C:\\Program Files (x86)\\…`).
 */
export function hideOtherPaths(value: string, paths: ServerPaths): string {
  const m = matcher(paths);
  const roots = OTHER_ROOT[paths.separator];
  // The root folder's names, one of which starts each POSIX path.
  const rootNames = paths.separator === "/" ? paths.others?.roots : undefined;
  const next = nextIndex(value);
  roots.lastIndex = 0;
  let out = "";
  let pos = 0;
  for (let hit = roots.exec(value); hit; hit = roots.exec(value)) {
    const at = hit.index;
    const lead = at - leadLength(value, at, pos, m);
    const prior = value[lead - 1];
    if (prior !== undefined && !OTHER_BEFORE.test(prior) && !afterOption(value, lead)) continue;
    if (prior === ">" && givenName(value, lead - 1, paths)) continue;
    // A URL's `//host` (`https://host/x`): a UNC path's slashes, but after a scheme.
    if (prior === ":" && lead === at && m.isSeparator(value[at + 1])) continue;
    const from = at + hit[0].length;
    const stop = otherEnd(value, lead, pathEnd(value, from, m), m, next);
    // Its names as far as it goes: `C:\\Program Files\\x` has two, `/Volumes/My Drive` starts with `Volumes`.
    const names = value.slice(from, stop);
    if (!TWO_NAMES[paths.separator].test(names)) continue;
    if (rootNames && !rootNames.has(names.slice(0, names.indexOf("/")))) continue;
    out += value.slice(pos, lead) + SERVER_PATH;
    pos = stop;
    roots.lastIndex = stop;
  }
  return out + value.slice(pos);
}

/** Where a path no folder names may be in an answer, as its JSON writes it (any slash, on Windows a drive's too). */
export const OTHER_HINT = { "/": /\//, "\\": /[A-Za-z]:[\\/]|[\\/]{2}/ };

/**
 * A path's root, a name after it: POSIX `/`; Windows a drive's (`C:\\`, `c:/`, its long form's `\\\\?\\`
 * a LEAD before it) or a UNC path's `\\\\` (`\\\\?\\UNC\\` in long form), the server's name after it.
 */
const OTHER_ROOT = {
  "/": /\/(?=[^\s/])/g,
  "\\": /(?:[A-Za-z]:[\\/]+|[\\/]{2,}[?.][\\/]+UNC[\\/]+|[\\/]{2,}(?![?.][\\/]))(?=[^\s\\/])/gi,
};

/**
 * What may stand before a path of its own (before its LEAD prefix, if any): a space, a quote, a bracket, a
 * list's or a setting's separator (`PATH=/a:/b`), a tag's or a redirection's `>` (`<dir>/srv/x</dir>`,
 * `2>/tmp/err.log`) but the one ending a name the sweep gave (givenName); nothing, at a text's start. Not a
 * name's character (a path in a word or a URL: `and/or`, `https://host/a/b`), nor a slash (`skill://pdf/a`).
 * Each ends a path too (Matcher.end, endsPath): no path starts inside another, so each is read once.
 */
const OTHER_BEFORE = /[\s"'`‘“«([{<>=:,;|]/;

/** Most letters of an option's name a path is glued to (`-I/usr/include`, `-isystem/usr/x`). */
const OPTION_MAX = 16;

/**
 * Whether a program's option ends right before `at`, the path glued to it (`cc -I/usr/x -L/opt/y`): a dash
 * and letters, where a word starts (after a space, a quote, a bracket or a comma: `-Wl,-rpath,-L/x`), each
 * of which ends a path too (as OTHER_BEFORE's do).
 */
function afterOption(text: string, at: number): boolean {
  let start = at;
  while (start > 0 && at - start < OPTION_MAX && /[A-Za-z]/.test(text[start - 1] as string)) start--;
  if (start === at || text[start - 1] !== "-") return false;
  const before = text[start - 2];
  return before === undefined || /[\s"'`(,]/.test(before);
}

/** After its root, a path of at least two names (`srv/x`): a root folder's name alone (`/proc`) says little. */
const TWO_NAMES = { "/": /^[^/]+\/+[^/]/, "\\": /^[^\\/]+[\\/]+[^\\/]/ };

/** The quotes a path may be written in, each with the mark that closes it. */
const CLOSING: Readonly<Record<string, string>> = { "'": "'", '"': '"', "`": "`", "‘": "’", "“": "”", "«": "»" };

/** Most characters a quoted path holds (PATH_MAX): a closing mark further on closes something else. */
const QUOTED_MAX = 4096;

/**
 * Where a path of the server that no folder names, written from `lead` and in running text ending at `end`
 * (pathEnd), ends, a name holding a space included. Quoted (`'/tmp/my skills/x'`, as most programs quote a
 * path), at the closing mark on the same line: the path is taken to fill its quotes (`"/srv/a is gone"` goes
 * whole), but for what ends a quote and is no path's (a sentence's dot or colon, a line number, a cut: `…`).
 * Bare, past a space where the text after it goes on to a separator within a few words (spacedEnd). Neither
 * asks the disk: its answer would tell a caller which of its paths exist.
 */
function otherEnd(text: string, lead: number, end: number, m: Matcher, next: NextIndex): number {
  const opening = text[lead - 1];
  const closing = opening === undefined ? undefined : CLOSING[opening];
  if (closing !== undefined) {
    let close = next(closing, lead);
    const line = Math.min(...["\n", "\r"].map((eol) => next(eol, lead)).filter((at) => at >= 0));
    if (close >= 0 && close - lead <= QUOTED_MAX && close < line) {
      // The path's end as a JSON string's text holds it (`\"/srv/a b\"`): its escape is the quote's.
      if (text[close - 1] === "\\" && text[lead - 2] === "\\") close--;
      return quoteEnd(text, lead, close);
    }
  }
  return spacedEnd(text, end, m);
}

/**
 * The end of a quoted path from `lead` to `close`, but for a sentence's dots and colons, a line number and a
 * cut after it. Walked back: a regex anchored at the end would retry from every dot of a long run.
 */
function quoteEnd(text: string, lead: number, close: number): number {
  let stop = close;
  for (;;) {
    const before = stop;
    while (stop > lead && /[.:…]/.test(text[stop - 1] as string)) stop--;
    let digits = stop;
    while (digits > lead && /\d/.test(text[digits - 1] as string)) digits--;
    if (digits < stop && text[digits - 1] === ":") stop = digits - 1;
    if (stop === before) return stop;
  }
}

/** Most words a name holding spaces is taken to have past a path's first space (`Program Files (x86)`: three). */
const SPACED_WORDS = 3;

/** What a name holding a space does not hold, as running text writes one: a quote, a list's or a setting's mark, a line. */
const SPACED_STOP = { "/": /[\s"'`‘’“”«»<>|,;:=…[\]{}\\]/, "\\": /[\s"'`‘’“”«»<>|,;:=…[\]{}]/ };

/**
 * Where a bare path ending at `end` ends, its names holding spaces included: past a space, it goes on when
 * the next separator comes within SPACED_WORDS words and NAME_MAX characters, written right after a name's
 * word (`/Users/Jane Doe/Library`, `/Volumes/My Drive/x`), not where a path of its own starts (after a space,
 * a bracket or an option: `cp /a/b /c/d`, `cc /a/b -I/c`) nor after only dots or a tilde (a relative path:
 * `/a/b ./c`). No path that hideOtherPaths would look at lies inside what it reads. A name holding a space that ends the path
 * (`cd: /Users/Jane Doe: no such file`) cannot be told from the words after it: those are kept. Each look
 * ahead stops where the next path starts, so an answer of many paths costs its length.
 */
function spacedEnd(text: string, end: number, m: Matcher): number {
  const stops = SPACED_STOP[m.separator];
  let stop = end;
  while (text[stop] === " ") {
    const limit = Math.min(text.length, stop + 1 + NAME_MAX);
    let words = 1;
    let word = stop + 1;
    let found = -1;
    for (let i = stop + 1; i < limit; i++) {
      const char = text[i] as string;
      if (m.isSeparator(char)) {
        // Not where a path of its own starts (` /c`, `(/c`, `-I/c`), nor a relative one (`./c`, `~/c`).
        const own = OTHER_BEFORE.test(text[i - 1] as string) || afterOption(text, i);
        if (i > word && !own && !/^[.~]+$/.test(text.slice(word, i))) found = i;
        break;
      }
      if (char === " ") {
        if (++words > SPACED_WORDS) break;
        word = i + 1;
      } else if (stops.test(char)) break;
    }
    if (found < 0) break;
    stop = pathEnd(text, found, m);
  }
  return stop;
}

/**
 * Whether the `>` at `at` ends a name the sweep gave (`<project>`, `<server path>`): what follows it is the
 * rest of that path (`<home>/tmp/x`), not one from the root.
 */
function givenName(text: string, at: number, paths: ServerPaths): boolean {
  return givenNames(paths).some((name) => text.endsWith(name, at + 1));
}

/** The names the sweep gives in place of `paths`' folders, and `<server path>`. */
const givenNames = oncePer((paths: ServerPaths) => [
  ...new Set([SERVER_PATH, ...paths.folders.map(([, name]) => name)]),
]);
