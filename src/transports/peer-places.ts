/** A place taken in a PeerPlaces table, held until `release` gives it back (later calls do nothing). */
export interface Place {
  /** What its holder is counted as (peerKey). */
  readonly peer: string;
  release(): void;
}

/** Why a place was not given: the address holds its share, or the table is full. */
export type PlaceRefusal = "peer-full" | "full";

/** A quarter of `max`, at least 1: what one address may hold of a table of `max` places. */
export function peerShare(max: number): number {
  return Math.max(1, Math.floor(max / 4));
}

/** What every address of this machine counts as: 127.0.0.0/8, `::1` and `::ffff:127.x.y.z`. */
export const LOOPBACK_PEER = "loopback";

/**
 * What an address is counted as: an IPv4 address as itself (also written as IPv6, `::ffff:10.0.0.1`), an
 * IPv6 address by its /64 network, every loopback address as one (LOOPBACK_PEER). Security: a machine on
 * IPv6 is given a whole /64 and may use any address in it, so counted by address it would take every
 * place; a /64 is one network, as an IPv4 address behind NAT is. Likewise any process of this machine may
 * connect from any address of 127.0.0.0/8, or from ::1. Pure.
 */
export function peerKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  const ipv4 = mapped ?? (address.includes(":") ? undefined : address);
  if (ipv4 !== undefined) return ipv4.startsWith("127.") ? LOOPBACK_PEER : ipv4;
  const groups = ipv6Groups(address);
  if (groups.join(":") === "0:0:0:0:0:0:0:1") return LOOPBACK_PEER;
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/** An IPv6 address's groups, `::` expanded, in lower-case hex without leading zeros (a zone dropped). */
function ipv6Groups(address: string): string[] {
  const [head = "", tail] = (address.split("%")[0] ?? "").toLowerCase().split("::");
  const groups = (text: string | undefined) => (text ? text.split(":") : []);
  // An IPv4 address at the end (`64:ff9b::10.0.0.1`) stands for two groups.
  const width = (list: string[]) => list.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const left = groups(head);
  const right = groups(tail);
  const zeros = tail === undefined ? [] : Array(Math.max(0, 8 - width(left) - width(right))).fill("0");
  return [...left, ...zeros, ...right].map((g) => Number.parseInt(g, 16).toString(16));
}

/**
 * Places in a bounded table (sessions, listen streams), counted by the address that holds them (peerKey).
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

  /** A place for the client at address `from`, or why it gets none. */
  take(from: string): Place | PlaceRefusal {
    const peer = peerKey(from);
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
