import { createHmac, timingSafeEqual } from "node:crypto";
import { shownArg } from "../util/shown-arg.ts";
import { pathOf } from "./http-responses.ts";
import type { TokenKey } from "./token-key.ts";

/**
 * How long a download link works: an hour. A model runs the command it was given within its task, often
 * minutes after loading the skill and sometimes much later; a refused link tells it to ask again, which
 * costs one call. Not longer: a link is a capability without the token, and it travels where the token
 * does not (a proxy's access log, a transcript a user shares). Not a setting: no operator choice changes
 * that balance enough to be worth a knob.
 */
export const ARCHIVE_LINK_SECONDS = 3600;

/** Where the archives are served: `/archive/<id>.<version>.<expires>.<mac>.tar.gz`. */
export const ARCHIVE_PREFIX = "/archive/";

const SUFFIX = ".tar.gz";

/**
 * A request's path as the log says it. Security: a download link is a capability, and logs travel
 * further than links should: of one, only its start and the skill it names are said, never its MAC.
 */
export function loggedPath(request: Request): string {
  const path = pathOf(request);
  if (!path.startsWith(ARCHIVE_PREFIX)) return path;
  const name = path.slice(ARCHIVE_PREFIX.length);
  const id = Buffer.from(name.split(".")[0] ?? "", "base64url").toString();
  return `${ARCHIVE_PREFIX}${name.slice(0, 8)}… (skill ${shownArg(id)})`;
}

/** What a link names once its MAC and its expiry check out. */
export type LinkCheck = { ok: true; id: string; version: string } | { ok: false; status: 403 | 404; message: string };

/**
 * Download links to one skill's archive, signed so that a client's shell can use one without the server's
 * token (the model and its shell do not have it). Security: the MAC (HMAC-SHA256, 128 bits kept, under a key
 * of its own derived from the token's: token-key.ts) covers the skill's id, the version of what it serves
 * (a digest of its files' bytes and modes) and the expiry, so a link grants that one skill's served files,
 * as they were, until it expires, and nothing else; an altered link, or one another server or token made,
 * fails the MAC. Servers that share a token accept each other's links, as they do session ids.
 */
export class ArchiveLinks {
  private key: Buffer | undefined;

  constructor(
    private readonly secret: TokenKey,
    private readonly now: () => number = Date.now,
  ) {}

  /** The path of a link to the archive of skill `id` as `version`, working for ARCHIVE_LINK_SECONDS from now. */
  path(id: string, version: string): string {
    const expires = Math.floor(this.now() / 1000) + ARCHIVE_LINK_SECONDS;
    const body = `${Buffer.from(id).toString("base64url")}.${version}.${expires}`;
    return `${ARCHIVE_PREFIX}${body}.${this.mac(body)}${SUFFIX}`;
  }

  /** The skill and version a link's path names, or why it is refused (a text for the one who holds it). */
  check(path: string): LinkCheck {
    const name = path.slice(ARCHIVE_PREFIX.length);
    const parts = name.endsWith(SUFFIX) ? name.slice(0, -SUFFIX.length).split(".") : [];
    const [id, version, expires, mac] = parts;
    if (parts.length !== 4 || !id || !version || !expires || !mac || !/^\d{1,12}$/.test(expires))
      return { ok: false, status: 404, message: `Not found: ${shownArg(path)} is no download link of this server.` };
    const given = Buffer.from(mac);
    const expected = Buffer.from(this.mac(`${id}.${version}.${expires}`));
    // Security: checked before anything the link says is looked at, in constant time.
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return {
        ok: false,
        status: 403,
        message:
          "Forbidden: this download link was not made by this server (it was altered, or made by a server with another token). Ask the server again for the skill: its answer gives a new link.",
      };
    if (Number(expires) * 1000 <= this.now())
      return {
        ok: false,
        status: 403,
        message: `Forbidden: this download link expired at ${new Date(Number(expires) * 1000).toISOString()} (links work for ${ARCHIVE_LINK_SECONDS / 60} minutes). Ask the server again for the skill: its answer gives a new link.`,
      };
    return { ok: true, id: Buffer.from(id, "base64url").toString(), version };
  }

  private mac(body: string): string {
    this.key ??= this.secret.keyFor("skillhub archive link");
    return createHmac("sha256", this.key).update(body).digest().subarray(0, 16).toString("base64url");
  }
}
