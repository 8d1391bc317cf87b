import type { AnswerBudget, AnswerBudgetOptions } from "../server/answer-budget.ts";
import type { RequestBodies, RequestBodiesOptions } from "./http-bodies.ts";
import type { SessionTable } from "./http-sessions.ts";
import type { ListenStreams, ListenStreamsOptions } from "./listen-streams.ts";
import type { ReaderLimit } from "./stream-end.ts";

/** The Streamable HTTP handler's contract: its options, the hooks of the socket layer, what it returns. */

/** 4 MiB: far above any JSON-RPC message SkillHub expects, far below what could hurt the process. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * 64 KiB: the largest request that opens a session. Security: a session keeps its initialize request's client
 * info and capabilities for its whole life, so at the 4 MiB body limit the 1,000 sessions a server holds
 * could keep 4 GiB; a real initialize is a few hundred bytes (an icon as a data: URI, a few KiB).
 */
export const MAX_INITIALIZE_BYTES = 64 * 1024;

export interface HttpHandlerOptions {
  /** The address the server binds; its names pass the Host and Origin checks. */
  host: string;
  /** Bearer token clients must send; undefined = none required. */
  token?: string;
  /** The operator's token for the page's API (server.admin_token); never accepted by /mcp. Default none. */
  adminToken?: string;
  /** Extra Host values (server.allowed_hosts). */
  allowedHosts?: readonly string[];
  /** Extra Origin values (server.allowed_origins). */
  allowedOrigins?: readonly string[];
  /** This machine's addresses, allowed as Host when `host` is a wildcard. Default none. */
  localAddresses?: readonly string[];
  /** No sessions: each POST gets a fresh server and a JSON answer. Default false. */
  stateless?: boolean;
  /** Idle time before a session is closed (ms). Default 30 minutes. */
  sessionIdleMs?: number;
  /** Most open sessions. Default 1,000. */
  maxSessions?: number;
  /** Most open sessions from one address. Default a quarter of maxSessions (at least 1). */
  maxSessionsPerPeer?: number;
  /** Largest request body (bytes). Default MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** Clock for session expiry, download links and a reader's rate (stream-end.ts) (ms). Default Date.now. */
  now?: () => number;
  /** serverInfo.version and /healthz version. Default the build's version. */
  version?: string;
  /** SSE keep-alive comment interval (ms) for the SDK transport. Default the SDK's (15 s). */
  keepAliveMs?: number;
  /** Most subscriptions/listen streams open at once, and from one address (listen-streams.ts). */
  listens?: ListenStreamsOptions;
  /** Most bytes of answers held at once, and for one address (answer-budget.ts). */
  answers?: AnswerBudgetOptions;
  /** Most bytes of request bodies held while they arrive, in all and for one address, and their deadline (http-bodies.ts). */
  bodies?: RequestBodiesOptions;
  /**
   * The URL clients reach this server at, when it is not the one they send requests to (a reverse proxy):
   * download links start with it (server.public_url). Default: the origin of the request that asks.
   */
  publicUrl?: string;
  /**
   * How long an answer that streams, or a download, waits for its client to take more (ms), and the timer
   * that counts it. Default stream-end.ts's READER_IDLE_MS, setTimeout.
   */
  readerIdle?: Partial<Pick<ReaderLimit, "ms" | "timer">>;
}

/** Called by the socket layer's wrapper; lets a request outlive the idle timeout once it is admitted. */
export interface RequestHooks {
  /**
   * The request is admitted (to MCP, or a download) and its answer may stream for a long time: lift the
   * socket's silence limit. Returns what puts the limit back, which the handler calls once the answer has
   * ended. Meanwhile the handler's own idle limit (stream-end.ts) stops an answer its client takes nothing of.
   */
  longLived?: () => () => void;
  /**
   * The address the request came from (the socket's peer): sessions, listen streams and the answers being
   * sent are counted by it. Default none.
   */
  peer?: string;
}

export interface HttpHandler {
  /** Request → Response; never throws. */
  handle(request: Request, hooks?: RequestHooks): Promise<Response>;
  readonly sessions: SessionTable;
  /** The subscriptions/listen streams open. */
  readonly listens: ListenStreams;
  /** The bytes of answers being built or sent. */
  readonly answers: AnswerBudget;
  /** The bytes of request bodies still arriving. */
  readonly bodies: RequestBodies;
  /** Close idle sessions now; returns their ids. */
  sweep(): Promise<string[]>;
  /** Close every session. */
  close(): Promise<void>;
}
