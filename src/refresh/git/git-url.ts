import { isAbsolute, normalize, resolve } from "node:path";
import { scrubUrlCredentials, splitUserInfo } from "../../util/url-credentials.ts";

/** One configured repository (SKILLS_REPO entry or `repos:` item). */
export interface RepoSpec {
  /** The URL with any password removed: safe to log, to show and to store. */
  url: string;
  /** Repository name (last path segment without `.git`), lower-cased: the source label. */
  name: string;
  /**
   * Folder under `<home>/repos`: `<name>-<8 hex of the normalised URL>`. It names copies only: whether two
   * URLs name one repository is sameRepository's to say (two spellings of one may have two slugs).
   */
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
 * `git@host:org/repo.git`, or a local path. `hash` is sha256 in hex (tests inject one that collides).
 */
export function parseRepo(raw: string, hash: (text: string) => string = sha256Hex): RepoSpec {
  const { identity, ...spec } = readRepo(raw);
  return { ...spec, slug: `${spec.name}-${hash(identity).slice(0, 8)}` };
}

/**
 * What a copy's folder name is made from (its hash): the URL as written, with only its credentials, the
 * host's case and a final `/` or `.git` folded. Two entries of one copy identity share a copy; two of
 * different ones never do, even when their folder names' 8 hex are the same (repoTargets).
 */
export function copyIdentity(raw: string): string {
  return readRepo(raw).identity;
}

/** sha256 of `text`, in hex. */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

function readRepo(raw: string): Omit<RepoSpec, "slug"> & { identity: string } {
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
  return { url, name, https, credentials, identity: normalised };
}

/**
 * Whether `a` and `b` name the same repository, for the decisions that go by repository: a project's entry
 * of a repository the user configured is the user's entry, a lock's pin and this machine's verified
 * records are the repository's whatever URL spells it. Their repoIdentity is the same.
 */
export function sameRepository(a: string, b: string): boolean {
  return repoIdentity(a) === repoIdentity(b);
}

/**
 * What names the repository `raw` points to: equal for two spellings of one repository. Folded, and
 * nothing else (so that two repositories are never taken for one):
 * - the transport: https, http, ssh, git, `git+…` of them and scp-like `user@host:path` are one;
 * - the user name and any credentials, `?query` and `#fragment`;
 * - the host's case, a `www.` before it and a dot after it; a port only when the transport's default
 *   (443, 80, 22, 9418), so `:8443` stays apart;
 * - repeated and trailing slashes, a final `.git`, and (in a `scheme://` URL, which git decodes)
 *   percent-escapes of letters, digits and `-._~`;
 * - the path's case on hosts whose paths ignore it (CASE_BLIND_HOSTS); elsewhere it is kept as written;
 * - `file://` and the plain path it names, absolute paths with `.` and `..` resolved (no link is followed).
 * A remote helper's address (`codecommit::…`) stays apart from every other kind; another scheme's URL, or
 * one that does not parse, is folded only as its copy's folder name is (asWritten).
 */
export function repoIdentity(raw: string): string {
  // Security: only the blanks git drops around a config value. JavaScript's trim also drops a no-break or
  // ideographic space, a vertical tab or a form feed, which git keeps as part of the URL: another path.
  const input = raw.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, "");
  const helper = HELPERS.exec(input)?.[0];
  // Each kind of address has its own prefix (`helper:`, `as-written:`, `//`, `file:`), so none is read as another.
  if (helper) return `helper:${helper.toLowerCase()}${repoIdentity(input.slice(helper.length))}`;
  if (SCHEME.test(input)) return urlIdentity(input) ?? `as-written:${asWritten(input)}`;
  const scp = DRIVE.test(input) ? null : SCP_LIKE.exec(input);
  // scp-like paths are given to the server as written: no escape is decoded.
  if (scp) return hostPathIdentity(asciiLower(scp[2] ?? ""), "", `/${scp[3] ?? ""}`);
  return localIdentity(input);
}

/**
 * `text` with its ASCII letters in lower case, and only those. Security: JavaScript lower-cases a Kelvin
 * sign to `k` and a dotted capital I to `i̇`; a host or a server reading the name takes them for other letters.
 */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * Hosts where `Org/Team` and `org/team` are one repository. Security: only hosts known to ignore the case;
 * on another (a self-hosted server on a case-sensitive file system) they may be two.
 */
const CASE_BLIND_HOSTS: ReadonlySet<string> = new Set(["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"]);

/** The schemes that name one repository whatever the transport: `https`, `git+ssh`, `ssh+git` … → the transport. */
const TRANSPORT = /^(?:git\+)?(https?|ssh|git)$|^ssh\+git$/;

/** Each transport's default port: naming it or not is the same server. */
const DEFAULT_PORT: Readonly<Record<string, string>> = { https: "443", http: "80", ssh: "22", git: "9418" };

function urlIdentity(input: string): string | undefined {
  const colon = input.indexOf(":");
  const scheme = input.slice(0, colon).toLowerCase();
  if (scheme === "file") {
    // The path as git reads it: decoded, on this machine only (no node:url before a server starts).
    const url = safeUrl(input);
    if (!url || !["", "localhost"].includes(url.hostname) || /%2f/i.test(url.pathname)) return undefined;
    return localIdentity(safeDecode(url.pathname));
  }
  const match = TRANSPORT.exec(scheme);
  if (!match) return undefined;
  const transport = match[1] ?? "ssh";
  const rest = input.slice(colon);
  // Host and path as an https URL's, so that every transport's are read alike (case, escapes, `..`); the
  // port as the transport's own, whose default it may be.
  const own = safeUrl(`${transport}${rest}`);
  const web = safeUrl(`https${rest}`);
  if (!own || !web) return undefined;
  const port = own.port === DEFAULT_PORT[transport] ? "" : own.port;
  return hostPathIdentity(web.hostname, port, unescapeUnreserved(web.pathname));
}

/**
 * A URL of another scheme, or one that does not parse, folded only as its copy's folder name folds it
 * (parseRepo): two URLs that would share a copy are never two repositories.
 */
function asWritten(input: string): string {
  const parsed = safeUrl(input);
  const url = parsed ? `${parsed.protocol}//${parsed.host.toLowerCase()}${parsed.pathname}` : withoutCredentials(input);
  return url.replace(/\/+$/, "").replace(/\.git$/i, "");
}

/** A network repository's identity: `host` (in lower case), `port` (none for the default), `path`. */
function hostPathIdentity(host: string, port: string, path: string): string {
  const name = host.replace(/^www\./, "").replace(/\.$/, "");
  const folded = path
    .replace(/\/+/g, "/")
    .replace(/\/$/, "")
    .replace(/\.git$/i, "");
  return `//${name}${port ? `:${port}` : ""}${CASE_BLIND_HOSTS.has(name) ? asciiLower(folded) : folded}`;
}

function localIdentity(path: string): string {
  const folder = isAbsolute(path) ? resolve(path) : normalize(path);
  return `file:${folder.replace(/[\\/]+$/, "").replace(/\.git$/i, "")}`;
}

/** `%61` → `a`: an escape of a letter, digit or `-._~` names the same path. Others are upper-cased. */
function unescapeUnreserved(path: string): string {
  return path.replace(/%[0-9a-f]{2}/gi, (encoded) => {
    const char = String.fromCharCode(Number.parseInt(encoded.slice(1), 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : encoded.toUpperCase();
  });
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
