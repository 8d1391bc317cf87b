import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { TokenKey } from "./token-key.ts";

/** Ended ids remembered, so that a client using one is told its session is gone (the oldest are forgotten). */
const ENDED_KEPT = 4096;

/** The longest client name an id carries (bytes); a longer one is cut. */
const NAME_BYTES = 64;

/**
 * Session ids a restarted server still recognises: `<uuid>.<client name>.<mac>`, the name in base64url
 * and the MAC an HMAC-SHA256 of the rest under a key derived from the server's token.
 *
 * A client that is not told to initialize again loses a server for good when the server restarts or its
 * session expires: Gemini CLI and clients built on the SDK keep sending the old id to every 404. A
 * request naming an id this server issued (under the same token) opens that session again instead,
 * without asking the client to initialize; an id it never issued, or one a client ended (DELETE) or that
 * gave its place to another, is still 404.
 *
 * Security: the MAC proves only that a server holding this token issued the id. Anyone who could forge
 * one can initialize a session anyway, so the key derived from the token (token-key.ts) is enough, and
 * servers behind one load balancer that share the token resume each other's sessions.
 */
export class SessionIds {
  private readonly ended = new Set<string>();

  constructor(private readonly secret: TokenKey) {}

  /** A new id for a session opened by `clientName` (initialize's clientInfo.name). */
  issue(clientName: string): string {
    const body = `${randomUUID()}.${Buffer.from(clip(clientName)).toString("base64url")}`;
    return `${body}.${this.mac(body)}`;
  }

  /** The client name an id carries when this server issued it and it has not ended; else undefined. */
  resumable(id: string): { clientName: string } | undefined {
    const cut = id.lastIndexOf(".");
    if (cut < 0 || this.ended.has(id)) return undefined;
    const body = id.slice(0, cut);
    const given = Buffer.from(id.slice(cut + 1));
    const expected = Buffer.from(this.mac(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return { clientName: Buffer.from(body.slice(body.indexOf(".") + 1), "base64url").toString() };
  }

  /** The session ended for good (DELETE, or its place given to another): its id is not resumed. */
  end(id: string): void {
    this.ended.add(id);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.values().next().value as string);
  }

  private mac(body: string): string {
    return createHmac("sha256", this.secret.key).update(body).digest("base64url");
  }
}

/** `name` cut to at most NAME_BYTES of UTF-8, never inside a character. */
function clip(name: string): string {
  let out = "";
  for (const char of name) {
    if (Buffer.byteLength(out + char) > NAME_BYTES) break;
    out += char;
  }
  return out;
}
