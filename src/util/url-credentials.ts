/**
 * Credentials written inside URLs (`https://user:TOKEN@host`, `https://TOKEN@host`,
 * `ssh://user:PASS@host`, `git+https://…`, `ftp://…`), hidden in any text:
 * logs, `sync --json`, `doctor`, error messages, children's environments.
 *
 * Rules: a password is always hidden (`ssh://user:***@`); an http(s) URL's
 * user name is hidden too, because hosts accept a token there
 * (`https://***@`); a plain user name elsewhere (`ssh://git@host`) is kept.
 * The user information ends at the last `@` before the path (`/`, `?`, `#`),
 * white space or `<`/`>`, as URL parsers read it, so a password holding an
 * `@` is hidden whole, however long (a 2 KB access token as a password); and
 * the URL need not be valid (`https://u:PASS@[bad/…` is hidden too).
 * A quote (`'`, `"`, `` ` ``) may be part of a password (`postgres://app:it'sme@db`),
 * except the quote written just before the URL: that one ends it, so in
 * `'https://host','a@b'` nothing of the next word is taken for user information.
 *
 * Security: one pass over the text: the characters after each `://` are read
 * once, up to where its user information ends, and a scheme is looked for at
 * most 32 characters back, so no text, however long or hostile, takes more
 * than linear time; and the user information has no length limit, so no long
 * password is let through.
 */

/** At most this many characters before `://` are read as its scheme (`git+https`, `mongodb+srv`). */
const SCHEME_MAX = 32;
const SCHEME_CHAR = /^[a-z0-9+.-]$/i;
const LETTER = /^[a-z]$/i;
/** What ends the user information besides the URL's opening quote. */
const USERINFO_END = /^[\s/?#<>]$/;
const QUOTES = new Set(["'", '"', "`"]);
const HTTPISH = /(^|\+)https?:\/\/$/i;

/** `text` with the credentials of every URL in it replaced by `***`. Pure. */
export function scrubUrlCredentials(text: string): string {
  if (!text.includes("://")) return text;
  let out = "";
  let copied = 0;
  for (let sep = text.indexOf("://"); sep >= 0; ) {
    const start = schemeStart(text, sep);
    const info = sep + 3;
    const before = start > 0 ? (text[start - 1] as string) : "";
    const opening = QUOTES.has(before) ? before : undefined;
    let end = info;
    let at = -1;
    for (; end < text.length; end++) {
      const c = text[end] as string;
      if (c === "@") at = end;
      else if (c === opening || USERINFO_END.test(c)) break;
    }
    if (start >= 0 && at > info) {
      const hidden = hiddenUserInfo(text.slice(start, info), text.slice(info, at));
      if (hidden !== undefined) {
        out += text.slice(copied, info) + hidden;
        copied = at;
      }
    }
    // The next `://` may begin on the character that ended this one (`a://b@c://d@e`).
    sep = text.indexOf("://", Math.max(end - 1, sep + 1));
  }
  return out + text.slice(copied);
}

/** Where the scheme ending at `sep` (the `://`) begins: a letter, then up to 31 scheme characters; -1 when none. */
function schemeStart(text: string, sep: number): number {
  let first = sep;
  while (first > 0 && sep - first < SCHEME_MAX && SCHEME_CHAR.test(text[first - 1] as string)) first--;
  while (first < sep && !LETTER.test(text[first] as string)) first++;
  return first < sep ? first : -1;
}

/** What replaces the user information `info` of a URL with scheme `scheme` (`https://`); undefined to keep it. */
function hiddenUserInfo(scheme: string, info: string): string | undefined {
  if (HTTPISH.test(scheme)) return "***";
  const colon = info.indexOf(":");
  return colon >= 0 ? `${info.slice(0, colon)}:***` : undefined;
}

/**
 * The user information of one URL the URL parser refused (`https://u:PASS@[bad/x`), and the URL
 * without it: everything between `://` and the last `@`. For a single configured URL that is the
 * safe reading: a password holding `/` or `@` is taken whole (a path holding `@` loses text before
 * it instead, and such a URL is broken anyway). Undefined when there is none. Pure.
 */
export function splitUserInfo(url: string): { userinfo: string; rest: string; scheme: string } | undefined {
  const start = url.indexOf("://");
  if (start < 0) return undefined;
  const at = url.lastIndexOf("@");
  if (at <= start + 3) return undefined;
  return { scheme: url.slice(0, start + 3), userinfo: url.slice(start + 3, at), rest: url.slice(at + 1) };
}
