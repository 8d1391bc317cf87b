import type { ServerPaths } from "../server-paths.ts";
import { CUT } from "./cut-paths.ts";
import { hidePaths } from "./named-folders.ts";
import { hideOtherPaths, OTHER_HINT } from "./other-paths.ts";
import { matcher } from "./path-text.ts";
import { inSkill } from "./skill-file-uri.ts";

/**
 * A string of an answer as it leaves: its percent-encoded paths decoded and swept, then every other folder;
 * then, with `others`, any path of the server left (hideOtherPaths). `skillText`: a skill's own text, where a
 * path into a skill becomes its URI and any other is its author's (hidePaths). On POSIX, a text
 * holding slashes escaped as some JSON writers escape them (`\/home\/ana\/x`, PHP's json_encode) is swept
 * once more for those: its own slashes held aside (a regular expression, a sed command keep theirs) and the
 * escaped ones given back escaped. Security: what that leaves is read once more with every slash
 * unescaped; where that still finds a path (one half escaped: `\/tmp/x`), the text is swept that way.
 */
export function hideInText(value: string, paths: ServerPaths, skillText: boolean, others: boolean): string {
  const decodedSwept = (text: string) => sweptText(text, paths, skillText, others);
  const swept = (text: string) => sweptText(decodedEscapes(text, paths, decodedSwept), paths, skillText, others);
  const once = swept(value);
  if (paths.separator !== "/" || !once.includes(ESCAPED_SLASH)) return once;
  const unescaped = (text: string) => text.replaceAll(ESCAPED_SLASH, "/");
  if (!once.includes(OWN_SLASH)) {
    const marked = once.replaceAll("/", OWN_SLASH).replaceAll(`\\${OWN_SLASH}`, "/");
    const again = swept(marked);
    const kept = again === marked ? once : again.replaceAll("/", ESCAPED_SLASH).replaceAll(OWN_SLASH, "/");
    const plain = unescaped(kept);
    if (swept(plain) === plain) return kept;
  }
  const plain = unescaped(once);
  const whole = swept(plain);
  return whole === plain ? once : whole;
}

/**
 * Whether `json` (an answer as JSON writes it) may hold a path that hideInText hides: a folder written as
 * the JSON writes it (a path holding a backslash or a quote is escaped there; on Windows, by the sweep's own
 * patterns, which take any run of slashes for a separator), a percent escape, an escaped slash, a cut (a
 * text cut short may end inside a folder's name, then nowhere written whole) or, with `others`, a root.
 */
export function mayHoldPath(json: string, paths: ServerPaths, others: boolean): boolean {
  const m = matcher(paths);
  const written = (path: string, index: number) =>
    paths.separator === "/" ? json.includes(JSON.stringify(path).slice(1, -1)) : m.find(index, json, 0) !== undefined;
  return (
    paths.folders.some(([path], index) => written(path, index)) ||
    hasEscapes(json) ||
    (paths.separator === "/" && json.includes(JSON.stringify(ESCAPED_SLASH).slice(1, -1))) ||
    json.includes(CUT) ||
    (others && paths.others !== undefined && OTHER_HINT[paths.separator].test(json))
  );
}

/** `text` with its folders named (hidePaths), then with `others` any other path of the server hidden. */
function sweptText(text: string, paths: ServerPaths, skillText: boolean, others: boolean): string {
  const named = hidePaths(text, paths, skillText);
  return others && paths.others ? hideOtherPaths(named, paths) : named;
}

/** Stands for a text's own (unescaped) slash while its escaped ones are swept: a private-use character. */
const OWN_SLASH = "\uE000";

/** A slash as JSON may escape it. */
const ESCAPED_SLASH = "\\/";

/** A percent escape (`%C3`, `%2f`). */
const ESCAPE = /%[0-9A-Fa-f]{2}/;

/** Whether a text may hold a percent-encoded path (decodedEscapes has work to do). */
function hasEscapes(text: string): boolean {
  return text.includes("%") && ESCAPE.test(text);
}

/** Where a word of running text (a URL, a path) ends. */
const WORD_END = /[\s"'`<>]/;

/**
 * `value` with each word holding percent escapes that names a path of this server once decoded
 * (`file:///home/zo%C3%AB/My%20Skills/x`, `?path=%2Fhome%2Fzo%C3%AB%2Fx`, Python's `quote(os.getcwd())`)
 * replaced by that path swept (by `swept`); a word naming none is kept as written. A path written this way
 * holds no folder's name as the server has it.
 */
function decodedEscapes(value: string, paths: ServerPaths, swept: (decoded: string) => string): string {
  if (!hasEscapes(value)) return value;
  const escapes = new RegExp(ESCAPE.source, "g");
  let out = "";
  let pos = 0;
  for (let hit = escapes.exec(value); hit; hit = escapes.exec(value)) {
    let start = hit.index;
    while (start > pos && !WORD_END.test(value[start - 1] as string)) start--;
    let end = hit.index;
    while (end < value.length && !WORD_END.test(value[end] as string)) end++;
    // A sentence's or a Markdown link's end is not the word's, nor a line number (`x.py:3:`).
    while (end > hit.index + 3 && /[.,;:!?)\]}]/.test(value[end - 1] as string)) end--;
    end -= /(?::\d+)+$/.exec(value.slice(Math.max(hit.index + 3, end - 24), end))?.[0].length ?? 0;
    const word = value.slice(start, end);
    // A file URL starts a path (`[log](file:///…)`); any other word may be one.
    const from = Math.max(0, word.search(/file:/i));
    out += value.slice(pos, start) + word.slice(0, from) + decodedWord(word.slice(from), paths, swept);
    pos = end;
    escapes.lastIndex = end;
  }
  return out + value.slice(pos);
}

/**
 * A word with percent escapes (a file URL, a path, a query) as the sweep leaves it: the URI of the skill
 * file its decoded path names (the whole word is that path, spaces and all), else its decoded form `swept`
 * (`?path=%2Fsrv%2Fdata%2Fx`), else (naming nothing of this server) as written. Security: a query's `&` or
 * `#` after a path is no end of it (a name may hold them), so what follows a path in the word goes with it.
 */
function decodedWord(url: string, paths: ServerPaths, swept: (decoded: string) => string): string {
  const decoded = percentDecoded(url);
  if (decoded === url) return url;
  const path = decoded.replace(URL_LEAD[paths.separator], "");
  const uri = inSkill(path, 1, paths, matcher(paths));
  if (uri !== undefined) return uri;
  const hidden = swept(decoded);
  return hidden === decoded ? url : hidden;
}

/** A file URL's start before its path (LEAD, anchored at the start); nothing in a word that is no file URL. */
const URL_LEAD = {
  "/": /^file:(?:\/\/(?:localhost)?)?/i,
  "\\": /^file:(?:[\\/]{2,}(?:localhost)?[\\/]?)?/i,
};

/** Each run of percent escapes decoded as UTF-8; a run that is not UTF-8 is kept as written. */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
