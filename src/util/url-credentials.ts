/**
 * Credentials written inside URLs (`https://user:TOKEN@host`, `https://TOKEN@host`,
 * `ssh://user:PASS@host`, `git+https://…`, `ftp://…`), hidden in any text:
 * logs, `sync --json`, `doctor`, error messages, children's environments.
 *
 * Rules: a password is always hidden (`ssh://user:***@`); an http(s) URL's
 * user name is hidden too, because hosts accept a token there
 * (`https://***@`); a plain user name elsewhere (`ssh://git@host`) is kept.
 * The user information ends at the last `@` before the path (`/`, `?`, `#`),
 * as URL parsers read it, so a password holding an `@` is hidden whole; and
 * the URL need not be valid (`https://u:PASS@[bad/…` is hidden too).
 *
 * Security: the pattern is linear: the scheme and user-info parts have
 * bounded lengths, so no run of characters is rescanned from every position.
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s/?#'"<>`]{1,1024})@/gi;

/** `text` with the credentials of every URL in it replaced by `***`. Pure. */
export function scrubUrlCredentials(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_USERINFO, (whole, scheme: string, info: string) => {
    const colon = info.indexOf(":");
    const httpish = /(^|\+)https?:\/\/$/i.test(scheme);
    if (colon >= 0) return `${scheme}${httpish ? "***" : `${info.slice(0, colon)}:***`}@`;
    return httpish ? `${scheme}***@` : whole;
  });
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
