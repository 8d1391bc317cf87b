import { onStreamEnd } from "./stream-end.ts";

/**
 * 1,024: the most subscriptions/listen streams open at once (the SDK's own ceiling, which it answers with
 * a bare "Subscription limit reached").
 */
export const MAX_LISTENS = 1024;

/**
 * 256, a quarter of MAX_LISTENS: the most listen streams one address may hold. A client needs one for all
 * its change notifications, but every client behind a reverse proxy has the proxy's address, so the share
 * is large; what it guarantees is that one machine cannot take every stream.
 */
export const MAX_LISTENS_PER_PEER = MAX_LISTENS / 4;

export interface ListenStreamsOptions {
  /** Most streams in all. Default MAX_LISTENS. */
  max?: number;
  /** Most streams from one address. Default MAX_LISTENS_PER_PEER. */
  maxPerPeer?: number;
}

/**
 * The 2026-07-28 subscriptions/listen streams open now, counted by the address they come from.
 * Security: these requests carry no session, and every client holds the same token; without a count of
 * its own, one client could open every stream the SDK allows, and each client after it would be refused.
 */
export class ListenStreams {
  readonly max: number;
  readonly maxPerPeer: number;
  private readonly byPeer = new Map<string, number>();
  private total = 0;

  constructor(options: ListenStreamsOptions = {}) {
    this.max = options.max ?? MAX_LISTENS;
    this.maxPerPeer = options.maxPerPeer ?? MAX_LISTENS_PER_PEER;
  }

  get size(): number {
    return this.total;
  }

  /** Why one more stream from `peer` is refused (a sentence for the client), or undefined. */
  refusal(peer: string): string | undefined {
    if ((this.byPeer.get(peer) ?? 0) >= this.maxPerPeer)
      return `Too many subscriptions: this client's address already holds ${this.maxPerPeer} open subscriptions/listen streams, the most one address may hold. One stream carries every kind of change notification: close the ones no longer read, then listen again.`;
    if (this.total >= this.max)
      return `Too many subscriptions: the server holds ${this.max} open subscriptions/listen streams, the most it keeps. Retry later; meanwhile list tools and resources again to see changes.`;
    return undefined;
  }

  /** Count `body` as a stream of `peer` until it ends or the client goes away; returns what to send. */
  track(peer: string, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    this.total++;
    this.byPeer.set(peer, (this.byPeer.get(peer) ?? 0) + 1);
    return onStreamEnd(body, () => {
      this.total--;
      const left = (this.byPeer.get(peer) ?? 1) - 1;
      if (left > 0) this.byPeer.set(peer, left);
      else this.byPeer.delete(peer);
    });
  }
}
