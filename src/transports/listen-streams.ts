import { PeerPlaces, type Place } from "./peer-places.ts";
import { onStreamEnd } from "./stream-end.ts";

/**
 * 1,024: the most subscriptions/listen streams open at once (the SDK's own ceiling, which it answers with
 * a bare "Subscription limit reached").
 */
export const MAX_LISTENS = 1024;

export interface ListenStreamsOptions {
  /** Most streams in all. Default MAX_LISTENS. */
  max?: number;
  /**
   * Most streams from one address. Default a quarter of `max` (256 of 1,024): a client needs one for all
   * its change notifications, but every client behind a reverse proxy has the proxy's address, so the
   * share is large; what it guarantees is that one machine cannot take every stream.
   */
  maxPerPeer?: number;
}

/**
 * The 2026-07-28 subscriptions/listen streams open now, counted by the address they come from.
 * Security: these requests carry no session, and every client holds the same token; without a count of
 * its own, one client could open every stream the SDK allows, and each client after it would be refused.
 */
export class ListenStreams {
  private readonly places: PeerPlaces;

  constructor(options: ListenStreamsOptions = {}) {
    this.places = new PeerPlaces(options.max ?? MAX_LISTENS, options.maxPerPeer);
  }

  get max(): number {
    return this.places.max;
  }

  /** Streams open, and places taken by listen requests still being answered. */
  get size(): number {
    return this.places.size;
  }

  /**
   * A place for one more stream from `peer`, taken now (before the request awaits anything), or why it is
   * refused: a sentence for the client.
   */
  take(peer: string): Place | string {
    const place = this.places.take(peer);
    if (place === "peer-full")
      return `Too many subscriptions: this client's address already holds ${this.places.maxPerPeer} open subscriptions/listen streams, the most one address may hold. One stream carries every kind of change notification: close the ones no longer read, then listen again.`;
    if (place === "full")
      return `Too many subscriptions: the server holds ${this.places.max} open subscriptions/listen streams, the most it keeps. Retry later; meanwhile list tools and resources again to see changes.`;
    return place;
  }

  /** `body`, holding `place` until it ends or the client goes away; returns what to send. */
  track(place: Place, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    return onStreamEnd(body, place.release);
  }
}
