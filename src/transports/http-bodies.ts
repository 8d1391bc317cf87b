import { peerKey, peerShare } from "./peer-places.ts";

/** 64 MiB: the most bytes of request bodies held at once while they arrive, for all HTTP clients. */
export const MAX_READING_BYTES = 64 * 1024 * 1024;

/**
 * 60 s: the longest a request's body may take to arrive whole, from when its headers did. A body at the
 * 4 MiB limit arrives in time at 70 KiB/s, about the least the server asks of a client reading an answer
 * (stream-end.ts); a real request of a few KiB arrives in time on any link. Bun's silence limit (http.ts),
 * which it counts from the headers whatever parts of the body arrive, ends such a connection sooner today;
 * this bound holds whatever the socket layer counts.
 */
export const BODY_DEADLINE_MS = 60_000;

/** Seconds a client refused for lack of room is told to wait (Retry-After): most bodies arrive in less. */
export const BODY_RETRY_SECONDS = 10;

export interface RequestBodiesOptions {
  /** Most bytes of bodies held at once while they arrive, from all clients. Default MAX_READING_BYTES. */
  maxBytes?: number;
  /**
   * Most of those from one address (bytes; counted as peerKey counts it). Default a quarter of maxBytes,
   * 16 MiB: four bodies at the 4 MiB limit at once.
   */
  maxPerPeer?: number;
  /** Most milliseconds a body may take to arrive whole. Default BODY_DEADLINE_MS. */
  deadlineMs?: number;
  /** Starts the deadline's timer; returns its cancel. Default setTimeout. */
  timer?: (fire: () => void, ms: number) => () => void;
}

/** Why a body is no longer read: its address holds its share, or the server holds all it may. */
export interface BodyRefusal {
  kind: "peer-full" | "full";
  /** A sentence for the client, without the status's name. */
  message: string;
}

/** One request's body being read, counted until `end`. */
export interface Reading {
  /** Bytes it holds now. */
  readonly held: number;
  /** Count `bytes` more that arrived, or say why the body must not be read on (nothing is counted then). */
  take(bytes: number): BodyRefusal | undefined;
  /** The body was parsed, refused, or its client went away: what it held is free again. Later calls do nothing. */
  end(): void;
}

/**
 * The bytes of request bodies the HTTP server holds while they arrive, counted in all and by the address
 * they come from, each part as it arrives, until the body is parsed or its request ends. Security: a body is
 * read whole before it is parsed, and a client may keep it unfinished for as long as its connection lives:
 * without a bound, a few hundred connections each holding a body just under the size limit held gigabytes.
 * Past the budget a body is refused, not waited for; an address holds at most its share, so one client
 * cannot take the room every other client needs.
 */
export class RequestBodies {
  readonly maxBytes: number;
  readonly maxPerPeer: number;
  readonly deadlineMs: number;
  readonly timer: (fire: () => void, ms: number) => () => void;
  private readonly byPeer = new Map<string, number>();
  private total = 0;

  constructor(options: RequestBodiesOptions = {}) {
    this.maxBytes = options.maxBytes ?? MAX_READING_BYTES;
    this.maxPerPeer = Math.min(this.maxBytes, options.maxPerPeer ?? peerShare(this.maxBytes));
    this.deadlineMs = options.deadlineMs ?? BODY_DEADLINE_MS;
    this.timer = options.timer ?? startTimer;
  }

  /** Bytes held now, for all clients. */
  get held(): number {
    return this.total;
  }

  /** Count the body of a request from `address` (the socket's peer) as it arrives. */
  opened(address: string): Reading {
    const peer = peerKey(address);
    let held = 0;
    let open = true;
    return {
      get held() {
        return held;
      },
      take: (bytes) => {
        if (!open) return undefined;
        const peerHeld = this.byPeer.get(peer) ?? 0;
        if (peerHeld + bytes > this.maxPerPeer)
          return {
            kind: "peer-full",
            message: `this client's address is sending ${size(peerHeld)} of request bodies that have not arrived whole, and this one would pass the ${size(this.maxPerPeer)} one address may send at once`,
          };
        if (this.total + bytes > this.maxBytes)
          return {
            kind: "full",
            message: `the server is receiving ${size(this.total)} of request bodies that have not arrived whole, and this one would pass the ${size(this.maxBytes)} it holds at once`,
          };
        held += bytes;
        this.byPeer.set(peer, peerHeld + bytes);
        this.total += bytes;
        return undefined;
      },
      end: () => {
        if (!open) return;
        open = false;
        this.total -= held;
        const left = (this.byPeer.get(peer) ?? held) - held;
        if (left > 0) this.byPeer.set(peer, left);
        else this.byPeer.delete(peer);
      },
    };
  }
}

function startTimer(fire: () => void, ms: number): () => void {
  const handle = setTimeout(fire, ms);
  return () => clearTimeout(handle);
}

/** Bytes as a person reads them: KiB below a MiB, else MiB with one decimal. */
function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
