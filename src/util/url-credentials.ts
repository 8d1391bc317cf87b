/**
 * Credentials written inside URLs (`https://user:TOKEN@host`, `https://TOKEN@host`,
 * `ssh://user:PASS@host`, `git+https://…`, `ftp://…`), hidden in any text:
 * logs, `sync --json`, `doctor`, error messages, children's environments.
 *
 * Rules: a password is always hidden (`ssh://user:***@`); an http(s) URL's
 * user name is hidden too, because hosts accept a token there
 * (`https://***@`); a plain user name elsewhere (`ssh://git@host`) is kept.
 *
 * Security: the pattern is linear: the scheme and user-info parts have
 * bounded lengths, so no run of characters is rescanned from every position.
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s/@'"<>`]{1,1024})@/gi;

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
