import type { McpServer } from "@modelcontextprotocol/server";
import type { AnsweringTransport } from "./cancelled-calls.ts";
import { PeerPlaces, type Place, type PlaceRefusal, peerKey } from "./peer-places.ts";
import { onStreamEnd } from "./stream-end.ts";

/** One MCP session: its own SDK server over the shared hub, and the transport that holds its streams. */
export interface Session {
  readonly id: string;
  readonly server: McpServer;
  readonly transport: AnsweringTransport;
  /** Its place in the table, held by the address that opened it (the socket's peer; "" when unknown). */
  readonly place: Place;
  /** When the last request arrived or the last stream ended (ms, from the table's clock). */
  lastSeen: number;
  /** Streaming responses still open (the GET stream, POST streams of calls in progress). */
  openStreams: number;
  /** Of those, the POST streams: calls the session is waiting on. */
  openCalls: number;
  /** Aborted when the table closes the session (evicted, expired, shut down): its open streams fail at once. */
  readonly closing: AbortController;
}

export interface SessionTableOptions {
  /** A session with no request and no open stream for this long is closed (ms). */
  idleMs: number;
  /** Most sessions at once; then a newcomer takes the place of another (evictFor), else is refused. Default 1,000. */
  maxSessions?: number;
  /**
   * Most sessions opened from one address. Default a quarter of maxSessions (250 of 1,000): every client
   * behind a reverse proxy has the proxy's address, so the share is large; what it guarantees is that
   * one machine cannot hold every session. Past it, a newcomer takes the place of one of its address's
   * (evictOwn).
   */
  maxPerPeer?: number;
  /** Clock (ms). Default Date.now. */
  now?: () => number;
}

/**
 * Open sessions by Mcp-Session-Id. A session is idle when no request has
 * arrived for `idleMs` and none of its streams is open: a client holding its
 * GET stream is still connected, even when it has nothing to ask.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  /** One per open session, and one per initialize still being answered. */
  private readonly places: PeerPlaces;
  private readonly idleMs: number;
  readonly now: () => number;

  constructor(options: SessionTableOptions) {
    this.idleMs = options.idleMs;
    this.places = new PeerPlaces(options.maxSessions ?? 1000, options.maxPerPeer);
    this.now = options.now ?? Date.now;
  }

  get maxSessions(): number {
    return this.places.max;
  }

  get maxPerPeer(): number {
    return this.places.maxPerPeer;
  }

  /** Open sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Whether every place is taken, by open sessions or sessions being opened. */
  get full(): boolean {
    return this.places.size >= this.places.max;
  }

  /**
   * A place for a session `peer` is opening, or why it gets none. Take it before the initialize request
   * awaits anything; `add` gives it to the session, else `release` it.
   */
  reserve(peer: string): Place | PlaceRefusal {
    return this.places.take(peer);
  }

  /** The open sessions (for health reports and tests). */
  list(): readonly Session[] {
    return [...this.sessions.values()];
  }

  /** A session opened in `place` (from `reserve`), which it holds until it is forgotten. */
  add(id: string, server: McpServer, transport: AnsweringTransport, place: Place): Session {
    const session: Session = {
      id,
      server,
      transport,
      place,
      lastSeen: this.now(),
      openStreams: 0,
      openCalls: 0,
      closing: new AbortController(),
    };
    this.sessions.set(id, session);
    return session;
  }

  /**
   * The session for an id, marked as seen now; undefined when unknown or idle
   * past the limit (an expired session is closed here rather than waiting for
   * the next sweep, so expiry does not depend on the sweep's timing).
   */
  lookup(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (this.idle(session)) {
      this.forget(session);
      void closeQuietly(session);
      return undefined;
    }
    session.lastSeen = this.now();
    return session;
  }

  /** Forget a session (its transport closed itself, e.g. after DELETE); another under its id stays. */
  remove(session: Session): void {
    if (this.sessions.get(session.id) === session) this.forget(session);
    else session.place.release();
  }

  private forget(session: Session): void {
    this.sessions.delete(session.id);
    session.place.release();
  }

  /**
   * Wrap a streaming response body so the session counts as active while it
   * is open; the idle clock restarts when it ends or the client goes away.
   * `call`: the answer to a POST, which the session is waiting on (not the GET stream).
   * Security: when the table closes the session, the stream fails at once, and with it its connection,
   * which an ended stream would leave open for the socket's silence limit: a client opening sessions past
   * its share would otherwise keep a connection open for each session it lost.
   */
  track(session: Session, body: ReadableStream<Uint8Array>, call = false): ReadableStream<Uint8Array> {
    session.openStreams++;
    if (call) session.openCalls++;
    const end = () => {
      session.openStreams--;
      if (call) session.openCalls--;
      session.lastSeen = this.now();
    };
    return onStreamEnd(body, end, undefined, session.closing.signal);
  }

  /**
   * With every place taken, close a session to give its place to a newcomer from `peer`; returns it, or
   * undefined when none may go. A session waiting on a call (a command that runs for minutes) never goes:
   * closing it would throw away the answer, and kill the run. Of the others, the one quiet the longest of
   * the address holding the most sessions, if that address holds at least two more than the newcomer's
   * (so that the move leaves it no fewer than the newcomer: a few addresses keeping every session busy
   * cannot lock others out, and two addresses never take places back and forth), or if the session sent
   * nothing for `quietMs` (so that streams held open cannot lock newcomers out, whoever holds them).
   */
  async evictFor(peer: string, quietMs: number): Promise<Session | undefined> {
    const held = new Map<string, number>();
    for (const s of this.sessions.values()) held.set(s.place.peer, (held.get(s.place.peer) ?? 0) + 1);
    const newcomer = held.get(peerKey(peer)) ?? 0;
    const count = (s: Session) => held.get(s.place.peer) ?? 0;
    let victim: Session | undefined;
    for (const s of this.sessions.values()) {
      if (s.openCalls > 0) continue;
      if (count(s) < newcomer + 2 && this.now() - s.lastSeen < quietMs) continue;
      if (!victim || count(s) > count(victim) || (count(s) === count(victim) && s.lastSeen < victim.lastSeen))
        victim = s;
    }
    return this.evict(victim);
  }

  /**
   * With `peer`'s address holding its share, close that address's session quiet the longest, whatever its
   * age, to give its place to a newcomer from the same address; returns it, or undefined when none may go
   * (each waits on a call, or is still being opened). As in evictFor, a session waiting on a call never goes.
   * Security: every process of this machine is one address, and so is every client behind one proxy; without
   * this, one of them holding the share would lock all the others out.
   */
  async evictOwn(peer: string): Promise<Session | undefined> {
    const key = peerKey(peer);
    let victim: Session | undefined;
    for (const s of this.sessions.values())
      if (s.place.peer === key && s.openCalls === 0 && (!victim || s.lastSeen < victim.lastSeen)) victim = s;
    return this.evict(victim);
  }

  /** Close `victim`, if any, now that its place goes to another; returns it. */
  private async evict(victim: Session | undefined): Promise<Session | undefined> {
    if (!victim) return undefined;
    this.forget(victim);
    await closeQuietly(victim);
    return victim;
  }

  /** Close sessions idle for longer than the limit; returns their ids. */
  async sweep(): Promise<string[]> {
    const expired = [...this.sessions.values()].filter((s) => this.idle(s));
    for (const s of expired) this.forget(s);
    await Promise.all(expired.map((s) => closeQuietly(s)));
    return expired.map((s) => s.id);
  }

  private idle(session: Session): boolean {
    return session.openStreams === 0 && this.now() - session.lastSeen >= this.idleMs;
  }

  /** Close every session (shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    for (const s of all) this.forget(s);
    await Promise.all(all.map((s) => closeQuietly(s)));
  }
}

async function closeQuietly(session: Session): Promise<void> {
  // Its streams fail first (track): the transport's close would end them, leaving their connections open.
  session.closing.abort();
  // Closing the transport ends the SDK's streams and, through the SDK, the server (which unsubscribes from the hub).
  await session.transport.close().catch(() => undefined);
  await session.server.close().catch(() => undefined);
}
