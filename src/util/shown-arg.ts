/** Most characters of a caller's string that an answer repeats; the rest is cut to "…". */
export const SHOWN_ARG_CHARS = 80;

/**
 * Characters an answer never repeats as they are: controls (NUL, newlines, escape), format characters
 * (bidirectional marks and overrides reorder the text around them; zero-width ones make two different names
 * look the same), and lone surrogates (they turn into U+FFFD on the way out, so the model could not tell
 * what it sent).
 */
const UNSHOWABLE = /[\p{Cc}\p{Cf}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

/**
 * A name, path or other string the caller sent, as an answer (a tool's, a reader's reason) quotes it: at most SHOWN_ARG_CHARS characters
 * (code points; a longer one is cut and ends with "…", from a path on, which it would leave unfinished), with
 * unshowable characters written as `\uXXXX`.
 * Security: a megabyte sent as a skill's name would otherwise come back in full, in the message and again in
 * its details, so that a model pays twice for its own mistake; a right-to-left override would reverse the
 * sentence around it.
 */
export function shownArg(text: string): string {
  let kept = "";
  let count = 0;
  for (const char of text) {
    if (count === SHOWN_ARG_CHARS) return `${shownText(kept.replace(CUT_PATH, ""))}…`;
    kept += char;
    count++;
  }
  return shownText(kept);
}

/**
 * What an answer to a client on another machine says in place of a path of the server that no name it has
 * stands for (server/path-sweep/): a path no folder it knows starts, or one cut short inside a folder's name.
 */
export const SERVER_PATH = "<server path>";

/**
 * What a cut text leaves out besides its end: all from the first word holding a `/` or `\` (a path, which
 * may hold spaces), or from a path hidden as SERVER_PATH (what followed it may be the rest of its names).
 * Security: a path cut where the caller chose would let the answers of a server that hides its own folders
 * from remote clients say, for each character a caller adds, whether the text so far starts one of them.
 */
const CUT_PATH = new RegExp(`(?:[^\\s'"\`]*[\\\\/]|${SERVER_PATH})[\\s\\S]*$`, "u");

/** A text a file or caller wrote, whole, with the characters shownArg escapes written as `\uXXXX`. */
export function shownText(text: string): string {
  return text.replace(UNSHOWABLE, escaped);
}

/** What ends a line or rewrites it: every control character but tab, and Unicode's line and paragraph separators. */
const LINE_BREAKING = /(?!\t)[\p{Cc}\u2028\u2029]/gu;

/**
 * `text` as one line: every control character but tab (line feed, carriage return, escape…) and the line and
 * paragraph separators written as `\uXXXX`. Security: a log line quotes outside text (a copy's origin, git's
 * messages, a file's name); raw, a line break in it would start a line that reads as the log's own.
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKING, escaped);
}

/** `\uXXXX` per UTF-16 unit, as JSON writes it: a character past U+FFFF as its two surrogates. */
function escaped(char: string): string {
  let out = "";
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/**
 * What a terminal must not receive as it is: controls (escape sequences start with one; C1 controls
 * included), bidirectional overrides and isolates (they reorder what is shown), lone surrogates. Joiners,
 * soft hyphens and marks that Persian, Indic or emoji text needs are kept.
 */
const TERMINAL_UNSAFE =
  /[\p{Cc}\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

/**
 * Text a command prints, as a terminal should receive it: whole, its tabs and line breaks (`\n`, `\r\n`)
 * kept, every other control character, bidirectional override and lone surrogate written as `\uXXXX`.
 * Security: a skill's name and description, a SKILL.md shown by `skillhub show`, a label from a cloned
 * project's skillhub.yaml or a name in an analytics file are anyone's text; raw, an escape sequence in them
 * would reach the terminal of whoever runs the command: rewrite the screen and the window's title, set
 * the clipboard (OSC 52), or show a link whose text is not its target.
 */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (char, at: number) =>
    char === "\n" || char === "\t" || (char === "\r" && text[at + 1] === "\n") ? char : escaped(char),
  );
}

/**
 * A reader's reason that names the file first, quoted as it was asked for (sources/skill-files.ts,
 * lock/checked-read.ts): that name as shownArg shows it. Any other reason, one already quoting it so
 * (util/confined-read.ts, util/safe-path.ts) included, is returned as it is.
 */
export function shownReason(reason: string, path: string): string {
  const quoted = `'${path}'`;
  return reason.startsWith(quoted) ? `'${shownArg(path)}'${reason.slice(quoted.length)}` : reason;
}

/**
 * The first `most` of `names`, each as shownText writes it, and how many more there are: "a, b, c, and 2
 * more". Security: a file name may hold a line break, written as `\uXXXX` so that no name adds a line.
 */
export function shownNames(names: readonly string[], most = 3): string {
  const shown = names.slice(0, most).map(shownText).join(", ");
  return shown + (names.length > most ? `, and ${names.length - most} more` : "");
}
