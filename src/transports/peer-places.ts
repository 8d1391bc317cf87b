/** A place taken in a PeerPlaces table, held until `release` gives it back (later calls do nothing). */
export interface Place {
  readonly peer: string;
  release(): void;
}

/** Why a place was not given: the address holds its share, or the table is full. */
export type PlaceRefusal = "peer-full" | "full";

/** A quarter of `max`, at least 1: what one address may hold of a table of `max` places. */
export function peerShare(max: number): number {
  return Math.max(1, Math.floor(max / 4));
}

/**
 * Places in a bounded table (sessions, listen streams), counted by the address that holds them.
 * Security: a place is taken synchronously, before the request it is for awaits anything, and counts
 * until released; a check now and a count after an await would let a burst of requests from one
 * address, all checked before any is counted, take every place.
 */
export class PeerPlaces {
  /** Most places in all. */
  readonly max: number;
  /** Most places one address holds. Default peerShare(max). */
  readonly maxPerPeer: number;
  private readonly byPeer = new Map<string, number>();
  private total = 0;

  constructor(max: number, maxPerPeer = peerShare(max)) {
    this.max = max;
    this.maxPerPeer = maxPerPeer;
  }

  /** Places held now. */
  get size(): number {
    return this.total;
  }

  private refusal(peer: string): PlaceRefusal | undefined {
    if ((this.byPeer.get(peer) ?? 0) >= this.maxPerPeer) return "peer-full";
    if (this.total >= this.max) return "full";
    return undefined;
  }

  /** A place for `peer`, or why it gets none. */
  take(peer: string): Place | PlaceRefusal {
    const refused = this.refusal(peer);
    if (refused) return refused;
    this.total++;
    this.byPeer.set(peer, (this.byPeer.get(peer) ?? 0) + 1);
    let held = true;
    return {
      peer,
      release: () => {
        if (!held) return;
        held = false;
        this.total--;
        const left = (this.byPeer.get(peer) ?? 1) - 1;
        if (left > 0) this.byPeer.set(peer, left);
        else this.byPeer.delete(peer);
      },
    };
  }
}
