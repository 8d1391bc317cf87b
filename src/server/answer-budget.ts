import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";

/** 64 MiB: the most bytes of answers (their JSON, as sent) held at once for all HTTP clients. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface AnswerBudgetOptions {
  /** Most bytes of answers being built or sent at once, to all clients. Default MAX_ANSWER_BYTES. */
  maxBytes?: number;
  /**
   * Most of those to one address (bytes; the transport names addresses). Default half of maxBytes, 32 MiB:
   * more than the largest answer a skill's file makes (16 MiB, about 21.4 MiB as base64), and not all.
   */
  maxPerPeer?: number;
}

/** Why an answer is not sent: larger than any one client may be sent at once, or the room is taken now. */
export interface AnswerRefusal {
  kind: "too-large" | "busy";
  /** A sentence for the client, without advice (the caller knows what else it can ask). */
  message: string;
}

/** One HTTP request's answers, counted until its response ends. */
export interface Exchange {
  /** Bytes its answers hold now. */
  readonly held: number;
  /** Its response was sent, or its client went away: what its answers held is free again. Later calls do nothing. */
  end(): void;
}

interface Open {
  peer: string;
  held: number;
}

/**
 * The bytes of answers the server holds for HTTP clients: an answer a request gets is counted from when it
 * is built until the response carrying it ends, by the server in all and by the address it goes to.
 * Security: an answer is built whole, then held until its client has read it; a file's answer is up to six
 * times the file (a JSON escape per control character), and many reads of large files at once, by a batch
 * or clients that read slowly, held gigabytes. Past the budget an answer is refused, not waited for: its
 * client is told to retry or to ask for less. Where its size has a bound known before it is built (a file's
 * size on disk), the bound is taken first and the answer's own size once built (buildBounded, then `take`),
 * so one that cannot fit is refused before its bytes are read.
 */
export class AnswerBudget {
  readonly maxBytes: number;
  readonly maxPerPeer: number;
  private readonly open = new WeakMap<Request, Open>();
  private readonly byPeer = new Map<string, number>();
  private total = 0;

  constructor(options: AnswerBudgetOptions = {}) {
    this.maxBytes = options.maxBytes ?? MAX_ANSWER_BYTES;
    this.maxPerPeer = Math.min(this.maxBytes, options.maxPerPeer ?? Math.floor(this.maxBytes / 2));
  }

  /** Bytes held now, for all clients. */
  get held(): number {
    return this.total;
  }

  /** Count the answers to `request`, from the address counted as `peer`, until the exchange ends. */
  opened(request: Request, peer: string): Exchange {
    const state: Open = { peer, held: 0 };
    this.open.set(request, state);
    return {
      get held() {
        return state.held;
      },
      end: () => {
        if (this.open.get(request) !== state) return;
        this.open.delete(request);
        this.release(state.peer, state.held);
      },
    };
  }

  /**
   * Count `bytes` of an answer to `request` until its response ends, or say why it must not be sent. An
   * answer to a request this budget does not count (stdio, an in-process client, a response already ended)
   * is not counted. `counted`: bytes of the same answer this budget counts already (a bound told in parts as
   * its file is read, buildBounded), so that an answer is judged whole: one growing past an address's share
   * is too large, not a reason to retry.
   */
  take(request: Request | undefined, bytes: number, counted = 0): AnswerRefusal | undefined {
    const state = request && this.open.get(request);
    if (!state) return undefined;
    const whole = counted + bytes;
    if (whole > this.maxPerPeer)
      return {
        kind: "too-large",
        message: `the answer would take ${size(whole)}, more than the ${size(this.maxPerPeer)} this server sends one client at once`,
      };
    const peerHeld = this.byPeer.get(state.peer) ?? 0;
    if (peerHeld + bytes > this.maxPerPeer || this.total + bytes > this.maxBytes)
      return {
        kind: "busy",
        message: `the server is sending ${size(this.total - counted)} of answers now (${size(peerHeld - counted)} of them to this client's address) and this one, ${size(whole)}, would pass its limit (${size(this.maxBytes)} in all, ${size(this.maxPerPeer)} to one address)`,
      };
    state.held += bytes;
    this.byPeer.set(state.peer, peerHeld + bytes);
    this.total += bytes;
    return undefined;
  }

  /**
   * Stop counting `bytes` that `take` counted for `request`: a bound taken before an answer was built (a
   * file's size on disk), now that it was not built or `take` counts it at its own size.
   */
  giveBack(request: Request | undefined, bytes: number): void {
    const state = request && this.open.get(request);
    if (!state) return;
    state.held -= bytes;
    this.release(state.peer, bytes);
  }

  private release(peer: string, bytes: number): void {
    if (bytes === 0) return;
    this.total -= bytes;
    const left = (this.byPeer.get(peer) ?? bytes) - bytes;
    if (left > 0) this.byPeer.set(peer, left);
    else this.byPeer.delete(peer);
  }
}

/** Told bytes an answer being built will take at least, before they are read; later calls tell more (buildBounded). */
export type Bound = (bytes: number) => void;

/** What buildBounded built, or why it stopped. */
export type Bounded<T> = { value: T } | { refused: AnswerRefusal };

/** A bound past the budget, thrown through the read that told it (so nothing more is read) to buildBounded. */
class BoundRefused extends Error {
  constructor(readonly refusal: AnswerRefusal) {
    super(refusal.message);
  }
}

/**
 * Build an answer to `request` whose least size is known before its bytes are read: `build` tells `bound`
 * that size once it knows it (a file's size on disk once the file is open, or its base64's), and more as it
 * learns more (a text's JSON escapes, chunk by chunk; another file the answer holds), and all of it counts
 * while the answer is built; past the budget, `bound` stops the build there (the read throws through, having
 * read no more) and the refusal is returned instead, judged on all that was told. The bound is given back
 * when `build` ends: the caller counts the answer built at its own size (`take`). Without a budget (stdio),
 * `build` just runs.
 */
export async function buildBounded<T>(
  budget: AnswerBudget | undefined,
  request: Request | undefined,
  build: (bound: Bound) => T | Promise<T>,
): Promise<Bounded<T>> {
  let held = 0;
  try {
    const value = await build((bytes) => {
      const refused = budget?.take(request, bytes, held);
      if (refused) throw new BoundRefused(refused);
      held += bytes;
    });
    return { value };
  } catch (error) {
    if (error instanceof BoundRefused) return { refused: error.refusal };
    throw error;
  } finally {
    budget?.giveBack(request, held);
  }
}

/** Bytes as a person reads them: KiB below a MiB, else MiB with one decimal. */
function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * A refusal as the end of a sentence a model can act on (after "<what> was not sent: "): why, then what to
 * do. `parts`: read_skill_file is offered, which reads a file in parts (and takes its skill:// URI).
 */
export function refusalAdvice(refusal: AnswerRefusal, parts: boolean): string {
  const less = parts
    ? "read the file in parts with read_skill_file (offset and length; it takes the file's skill:// URI too)"
    : "ask for less";
  return refusal.kind === "busy"
    ? `${refusal.message}. Retry in a moment, once the answers being sent have been read, or ${less}.`
    : `${refusal.message}. Instead, ${less}.`;
}

/**
 * A refused answer as the JSON-RPC error its request gets (resources/read, prompts/get), `what` naming the
 * answer: busy is the server's state now (an internal error: retry), too large the request's (invalid params).
 */
export function refusalError(what: string, refusal: AnswerRefusal, parts: boolean): ProtocolError {
  return new ProtocolError(
    refusal.kind === "busy" ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams,
    `${what} was not sent: ${refusalAdvice(refusal, parts)}`,
  );
}
