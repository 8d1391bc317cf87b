import { createHmac, scryptSync } from "node:crypto";

/**
 * The server's secret for what it signs (session ids, download links), derived from its token, or from
 * nothing on a server that takes no token (and so listens on loopback only): no file has to survive a
 * restart or a redeploy, and servers behind one load balancer that share the token accept each other's.
 * Security: ids and links travel where tokens do not (a balancer's tables, access logs, a model's
 * context), and one of them lets a guess at the token be checked offline: the key is derived with scrypt
 * (16 MiB, some 40 ms, once per process, on first use), so a guess costs as much.
 */
export class TokenKey {
  private derived: Buffer | undefined;

  constructor(private readonly token: string | undefined) {}

  /** The session ids' key (the first use of this secret: it stays what it was, so issued ids stay valid). */
  get key(): Buffer {
    this.derived ??= scryptSync(this.token ?? "", "skillhub session id", 32, { N: 2 ** 14, r: 8, p: 1 });
    return this.derived;
  }

  /** A key for one other purpose, derived from `key`: a MAC made for one use is never valid for another. */
  keyFor(purpose: string): Buffer {
    return createHmac("sha256", this.key).update(purpose).digest();
  }
}
