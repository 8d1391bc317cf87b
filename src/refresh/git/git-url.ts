import { scrubUrlCredentials, splitUserInfo } from "../../util/url-credentials.ts";

/** One configured repository (SKILLS_REPO entry or `repos:` item). */
export interface RepoSpec {
  /** The URL with any password removed: safe to log, to show and to store. */
  url: string;
  /** Repository name (last path segment without `.git`), lower-cased: the source label. */
  name: string;
  /** Folder under `<home>/repos`: `<name>-<8 hex of the normalised URL>`. */
  slug: string;
  /** Only https:// URLs ever receive a token. */
  https: boolean;
  /** Credentials written in the configured URL, moved out so git never stores them. */
  credentials?: { username: string; password: string };
}

const SCP_LIKE = /^(?:([^@/\s]+)@)?([^:/\s]+):(?!\/\/)(.+)$/;

/**
 * Whether `raw` carries credentials a file would keep in plain text: a password in any scheme
 * (`https://u:PASS@`, `ssh://git:PASS@`, `u:PASS@host:path`) or a user name in an http(s) one, which
 * hosts accept a token in. A URL the parser refuses counts when it holds any user information.
 */
export function carriesCredentials(raw: string): boolean {
  const input = raw.trim();
  const helper = HELPERS.exec(input)?.[0];
  if (helper) return carriesCredentials(input.slice(helper.length));
  if (!SCHEME.test(input)) return !DRIVE.test(input) && (SCP_LIKE.exec(input)?.[1]?.includes(":") ?? false);
  const parsed = safeUrl(input);
  if (parsed) return parsed.password !== "" || (parsed.username !== "" && HTTPISH.test(parsed.protocol));
  const split = splitUserInfo(input);
  return split !== undefined && (split.userinfo.includes(":") || HTTPISH.test(split.scheme.slice(0, -2)));
}

/**
 * `raw` without the credentials it carries (carriesCredentials): safe to print and to give git. A user
 * name stays where it is no credential (`ssh://git@…`, `git@host:…`), and so does the rest (`#v1`).
 */
export function withoutCredentials(raw: string): string {
  const input = raw.trim();
  const helper = HELPERS.exec(input)?.[0];
  if (helper) return `${helper}${withoutCredentials(input.slice(helper.length))}`;
  if (!carriesCredentials(input)) return input;
  if (!SCHEME.test(input)) {
    const user = SCP_LIKE.exec(input)?.[1] ?? "";
    return `${user.slice(0, user.indexOf(":"))}@${input.slice(user.length + 1)}`;
  }
  const parsed = safeUrl(input);
  if (parsed) {
    parsed.password = "";
    if (HTTPISH.test(parsed.protocol)) parsed.username = "";
    return parsed.href;
  }
  const split = splitUserInfo(input);
  if (!split) return input;
  const user = HTTPISH.test(split.scheme.slice(0, -2)) ? "" : split.userinfo.split(":")[0];
  return `${split.scheme}${user ? `${user}@` : ""}${split.rest}`;
}

/** A remote helper's URL (`codecommit::https://…`): its prefix, and the address the helper is given. */
const HELPERS = /^(?:[a-z][a-z0-9+.-]*::)+/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const DRIVE = /^[A-Za-z]:[\\/]/;

/** Schemes in which a user name alone can be a token. */
const HTTPISH = /^(?:[a-z0-9.-]+\+)?https?:$/i;

/**
 * Parse a repository URL: https://, http://, ssh://, file://, scp-like
 * `git@host:org/repo.git`, or a local path.
 */
export function parseRepo(raw: string): RepoSpec {
  const input = raw.trim();
  let url = input;
  let https = false;
  let credentials: RepoSpec["credentials"];
  let path = input;
  let identity = input;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) {
    const parsed = safeUrl(input);
    if (parsed) {
      https = parsed.protocol === "https:";
      // Security: a user:password (or a bare token) in an http(s) URL would end up in .git/config
      // and in git's messages; it is taken out and sent as a header instead (see git-auth.ts).
      if ((parsed.protocol === "https:" || parsed.protocol === "http:") && (parsed.username || parsed.password)) {
        credentials = { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) };
        parsed.username = "";
        parsed.password = "";
      } else if (parsed.password) {
        // Security: ssh:// (and other) URLs cannot carry a password to git anyway (ssh asks for it);
        // keep the user name, drop the password so it is never shown, logged or stored.
        parsed.password = "";
      }
      url = parsed.href;
      path = parsed.pathname;
      identity = `${parsed.protocol}//${parsed.host.toLowerCase()}${parsed.pathname}`;
    } else {
      // Security: a URL the parser refuses (`https://u:PASS@[bad/…`) is still shown by `sync` and
      // `doctor` and logged: its credentials are taken out the same way (git will refuse the URL).
      const split = splitUserInfo(input);
      if (split) {
        const colon = split.userinfo.indexOf(":");
        const username = colon < 0 ? split.userinfo : split.userinfo.slice(0, colon);
        const password = colon < 0 ? "" : split.userinfo.slice(colon + 1);
        https = /^https:/i.test(split.scheme);
        const httpish = /^https?:/i.test(split.scheme);
        if (httpish || password) credentials = { username: safeDecode(username), password: safeDecode(password) };
        url = `${split.scheme}${httpish || !username ? "" : `${username}@`}${split.rest}`;
        identity = url;
      }
    }
  } else {
    const scp = SCP_LIKE.exec(input);
    if (scp && !/^[A-Za-z]:[\\/]/.test(input)) {
      path = scp[3] ?? "";
      identity = `ssh://${(scp[2] ?? "").toLowerCase()}/${path}`;
      // Security: ssh asks for a password itself; one written as `user:PASS@host:path` is dropped.
      const user = scp[1] ?? "";
      if (user.includes(":")) url = `${user.slice(0, user.indexOf(":"))}@${input.slice(user.length + 1)}`;
    }
  }
  // Security: whatever the spelling (a remote helper's address, `git+https://TOKEN@`), the URL that is
  // shown, logged and stored holds no credential.
  url = withoutCredentials(url);
  const name = repoName(path);
  const normalised = identity.replace(/\/+$/, "").replace(/\.git$/i, "");
  const hash = new Bun.CryptoHasher("sha256").update(normalised).digest("hex").slice(0, 8);
  return { url, name, slug: `${name}-${hash}`, https, credentials };
}

/** Last path segment without `.git`, restricted to [a-z0-9._-]; "repo" when nothing is left. */
export function repoName(path: string): string {
  const segment =
    path
      .replace(/[\\/]+$/, "")
      .split(/[\\/:]/)
      .pop() ?? "";
  const name = segment
    .replace(/\.git$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[.-]+|-+$/g, "");
  return name.slice(0, 64) || "repo";
}

/**
 * Security: hide credentials in any text (git's stderr, error messages,
 * logs): the given secrets wherever they appear, and the credentials of
 * every URL (http(s), ssh, git+…: util/url-credentials.ts).
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("***");
  return scrubUrlCredentials(out);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
