import {
  createMcpHandler,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isInitializeRequest,
  isLegacyRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { AnswerBudget, type Exchange } from "../server/answer-budget.ts";
import { createServer } from "../server/create-server.ts";
import type { Hub } from "../server/hub.ts";
import { handleUi, isUiPath } from "../ui/routes.ts";
import { NO_LOADS, SessionUsage } from "../usage/session-usage.ts";
import { errorMessage } from "../util/errors.ts";
import { VERSION } from "../version.ts";
import { ARCHIVE_PREFIX, ArchiveLinks, loggedPath } from "./archive-links.ts";
import { refuseBatch } from "./batches.ts";
import { AnsweringTransport, messagesOf } from "./cancelled-calls.ts";
import { archiveStreams, serveArchive } from "./http-archive.ts";
import { BODY_RETRY_SECONDS, type BodyRefusal, RequestBodies } from "./http-bodies.ts";
import { preflight, withCors } from "./http-cors.ts";
import {
  type HttpHandler,
  type HttpHandlerOptions,
  MAX_BODY_BYTES,
  MAX_INITIALIZE_BYTES,
  type RequestHooks,
} from "./http-options.ts";
import {
  type BodyResult,
  isJsonContentType,
  json,
  pathOf,
  RPC,
  readJsonBody,
  rpcAnswerError,
  rpcError,
} from "./http-responses.ts";
import { bearerAllowed, corsOrigin, hostAllowed, hostPolicy, originAllowed, pageViewer } from "./http-security.ts";
import { type Session, SessionTable } from "./http-sessions.ts";
import { ListenStreams } from "./listen-streams.ts";
import { type Place, peerKey } from "./peer-places.ts";
import { publishChanges } from "./publish-changes.ts";
import { RefusalLog } from "./refusal-log.ts";
import { refuseRequest } from "./request-limits.ts";
import { SessionIds } from "./session-ids.ts";
import { eventStream, onStreamEnd, READER_IDLE_MS, type ReaderLimit } from "./stream-end.ts";
import { TokenKey } from "./token-key.ts";

export { type HttpHandler, type HttpHandlerOptions, MAX_BODY_BYTES, type RequestHooks } from "./http-options.ts";

const MCP_METHODS = ["GET", "POST", "DELETE"];

/** A request's JSON body, parsed, and its size in bytes. */
type ReadBody = Extract<BodyResult, { kind: "ok" }>;

/**
 * Where an OAuth client looks, on a 401, for a way to log in (RFC 9728 and RFC 8414 metadata, dynamic
 * registration): the answer says that a token header is what this server takes, and clients show it.
 */
const OAUTH_PATH =
  /^\/(?:\.well-known\/(?:oauth-protected-resource|oauth-authorization-server|openid-configuration)(?:\/.*)?|register|authorize|token)$/;

/**
 * With every session taken, one that sent no request for this long, and waits on no call, may give its
 * place to a new client from any address (its client's next request opens it again), so streams held open
 * cannot lock others out (SessionTable.evictFor).
 */
const EVICT_QUIET_MS = 60_000;

/** The answer to a request naming a session that is not open and will not be opened again: 404. */
function sessionNotFound(): Response {
  return rpcError(
    404,
    RPC.SESSION_NOT_FOUND,
    "Session not found: it expired or was closed. Start a new session with initialize.",
  );
}

/** Whether a POST body (one message or a batch) holds an initialize request. */
function opensSession(body: unknown): boolean {
  return messagesOf(body).some((m) => isInitializeRequest(m));
}

/** The client's name an initialize in `body` gives ("" when none does). */
function clientNameOf(body: unknown): string {
  const init = messagesOf(body).find((m) => isInitializeRequest(m));
  const name = (init as { params?: { clientInfo?: { name?: unknown } } } | undefined)?.params?.clientInfo?.name;
  return typeof name === "string" ? name : "";
}

/** The id of a subscriptions/listen request, or undefined for any other message. */
function listenRequestId(message: unknown): string | number | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  return method === "subscriptions/listen" && (typeof id === "string" || typeof id === "number") ? id : undefined;
}

/**
 * The Streamable HTTP endpoint as a pure `Request → Response` function:
 * `/mcp` (POST, GET, DELETE) and `/healthz`. Security checks run first, then
 * routing, then the SDK's web-standard transport, one per session, each with
 * its own SDK server over the one shared hub.
 */
export function createHttpHandler(hub: Hub, options: HttpHandlerOptions): HttpHandler {
  const policy = hostPolicy({
    bound: options.host,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    localAddresses: options.localAddresses,
  });
  const sessions = new SessionTable({
    idleMs: options.sessionIdleMs ?? 30 * 60_000,
    maxSessions: options.maxSessions,
    maxPerPeer: options.maxSessionsPerPeer,
    now: options.now,
  });
  const secret = new TokenKey(options.token);
  const ids = new SessionIds(secret);
  const links = new ArchiveLinks(secret, options.now);
  const archives = archiveStreams();
  // A download link names this server as its client reaches it: the public URL when one is set (a
  // reverse proxy), else the origin of the request that asks. Normalised (URL.href): a space or a
  // backtick in the setting is escaped, so the link cannot end the answer's code span or the shell word.
  const publicUrl = options.publicUrl ? new URL(options.publicUrl).href.replace(/\/+$/, "") : undefined;
  const archiveUrl = (id: string, version: string, request: Request | undefined) => {
    const base = publicUrl ?? (request ? new URL(request.url).origin : undefined);
    return base === undefined ? undefined : `${base}${links.path(id, version)}`;
  };
  const refusals = new RefusalLog(hub.logger, options.now);
  // Bodies refused for room or time: a client on a slow link, or one sending many bodies at once, learns why.
  const bodyRefusals = new RefusalLog(hub.logger, options.now, [408, 429, 503]);
  const answers = new AnswerBudget(options.answers);
  const bodies = new RequestBodies(options.bodies);
  /** Sessions being opened again, by id. */
  const resumes = new Map<string, Promise<Session | Response>>();
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const version = options.version ?? VERSION;
  const log = hub.logger;
  let ready = false;
  void hub.ready.then(
    () => (ready = true),
    () => undefined,
  );

  // Every HTTP client is remote: it does not share this machine's disk, so answers name files by skill:// URI.
  // A session's lists follow its own loads only, never another client's (session-usage.ts); one opened
  // again (idle, or after a restart) starts from the default order.
  // Its events count against the share of the analytics queue of the address that opened it (`place.peer`).
  const newServer = (place: Place, resumed = false) =>
    createServer(hub, {
      version,
      remote: true,
      resumed,
      archiveUrl,
      answers,
      usage: new SessionUsage(),
      address: place.peer,
    });
  /** The address each request without a session came from: its client's limits count it by that. */
  const addresses = new WeakMap<Request, string>();
  /** A server for one request without a session: the default order, and limits counted by its address. */
  const sessionless = (request: Request | undefined) => ({
    usage: NO_LOADS,
    sessionless: true,
    address: peerKey((request && addresses.get(request)) ?? ""),
  });
  // 2026-07-28 requests: stateless by design (no initialize, no session), one server per request, change
  // notifications on subscriptions/listen streams. 2025 requests keep the sessions below (or stateless mode).
  const listens = new ListenStreams(options.listens);
  const modern = createMcpHandler(
    ({ requestInfo }) =>
      createServer(hub, {
        version,
        remote: true,
        notifyChanges: false,
        archiveUrl,
        answers,
        ...sessionless(requestInfo),
      }),
    {
      legacy: "reject",
      maxRequestBodySize: maxBody,
      maxSubscriptions: listens.max,
      keepAliveMs: options.keepAliveMs,
      onerror: (error) => log.debug(`http: ${errorMessage(error)}`),
    },
  );
  const unpublish = publishChanges(hub, modern.notify);

  /** `cors`: the request's origin when it is listed for CORS (http-cors.ts), else undefined. */
  async function route(request: Request, hooks: RequestHooks, cors: string | undefined): Promise<Response> {
    const host = request.headers.get("host");
    if (!hostAllowed(host, policy)) {
      return rpcError(
        403,
        RPC.SERVER_ERROR,
        `Forbidden: Host ${JSON.stringify(host)} is not a name of this server. If it is, add it to SKILLHUB_ALLOWED_HOSTS.`,
      );
    }
    const origin = request.headers.get("origin");
    if (!originAllowed(origin, policy)) {
      return rpcError(
        403,
        RPC.SERVER_ERROR,
        `Forbidden: Origin ${JSON.stringify(origin)} may not call this server. If it should, add it to SKILLHUB_ALLOWED_ORIGINS.`,
      );
    }
    const path = pathOf(request);
    // A client configured with the server's address but not its endpoint posts to the page.
    if (path === "/" && request.method === "POST")
      return rpcError(
        405,
        RPC.SERVER_ERROR,
        "Method not allowed: POST /. SkillHub serves MCP at /mcp: add /mcp to the end of the client's URL.",
        { Allow: "GET, HEAD" },
      );
    // No token: the link is the capability (archive-links.ts).
    if (path.startsWith(ARCHIVE_PREFIX))
      return serveArchive(request, path, {
        hub,
        links,
        streams: archives,
        peer: hooks.peer ?? "",
        longLived: hooks.longLived,
        now: options.now,
        idle: options.readerIdle,
      });
    if (isUiPath(path))
      return handleUi(request, {
        hub,
        viewer: pageViewer(request.headers.get("authorization"), options.token, options.adminToken),
      });
    if (path === "/healthz") return health(request);
    if (path !== "/mcp" && path !== "/mcp/")
      return rpcError(
        404,
        RPC.SERVER_ERROR,
        !OAUTH_PATH.test(path)
          ? `Not found: ${path}. SkillHub serves MCP at /mcp, its web page at / and a health check at /healthz.`
          : options.token
            ? `Not found: ${path}. This SkillHub server takes no OAuth: a client sends the server's token (SKILLHUB_HTTP_TOKEN) as the header "Authorization: Bearer <token>"; add it to the client's configuration (skillhub print-config CLIENT --http URL prints it).`
            : `Not found: ${path}. This SkillHub server takes no OAuth and needs no token: connect to /mcp as it is.`,
      );
    if (request.method === "OPTIONS" && cors) return preflight(cors, MCP_METHODS);
    if (!MCP_METHODS.includes(request.method)) {
      return rpcError(405, RPC.SERVER_ERROR, `Method not allowed: ${request.method} /mcp. Use POST, GET or DELETE.`, {
        Allow: MCP_METHODS.join(", "),
      });
    }
    const authorization = request.headers.get("authorization");
    if (!bearerAllowed(authorization, options.token)) {
      return rpcError(
        401,
        RPC.SERVER_ERROR,
        authorization === null
          ? 'Unauthorized: no token was sent. Send the server\'s token (SKILLHUB_HTTP_TOKEN) as "Authorization: Bearer <token>".'
          : /^Bearer[ \t]/i.test(authorization)
            ? 'Unauthorized: the token sent is not this server\'s. Send its token (SKILLHUB_HTTP_TOKEN) as "Authorization: Bearer <token>".'
            : 'Unauthorized: the Authorization header must read "Bearer <token>", the word Bearer then the server\'s token (SKILLHUB_HTTP_TOKEN).',
        {
          "WWW-Authenticate": 'Bearer realm="skillhub"',
        },
      );
    }
    const peer = hooks.peer ?? "";
    if (request.method === "POST") {
      const body = await readBody(request, peer);
      if (body instanceof Response) {
        void bodyRefusals.note(request, body, peer);
        return body;
      }
      const refused = refuse(body.value);
      if (refused) return refused;
      const restore = hooks.longLived?.();
      // What the request's answers hold counts from now until its response ends (answer-budget.ts).
      const exchange = answers.opened(request, peerKey(peer));
      const end = () => {
        exchange.end();
        restore?.();
      };
      addresses.set(request, peer);
      return answered(request, peer, end, exchange, async () => {
        if (!(await isLegacyRequest(request, body.value))) return modernCall(request, body.value, peer);
        if (options.stateless) return stateless(request, body.value);
        return post(request, body, peer);
      });
    }
    if (options.stateless) return stateless(request);
    const session = await findSession(request, peer);
    if (session instanceof Response) return session;
    const restore = request.method === "GET" ? hooks.longLived?.() : undefined;
    return answered(
      request,
      peer,
      () => restore?.(),
      undefined,
      () => forward(session, request),
    );
  }

  /** A 2026-07-28 request; a subscriptions/listen stream holds a place (listen-streams.ts) while it is open. */
  async function modernCall(request: Request, parsedBody: unknown, peer: string): Promise<Response> {
    const listenId = listenRequestId(parsedBody);
    if (listenId === undefined) return modern.fetch(request, { parsedBody });
    const place = listens.take(peer);
    if (typeof place === "string") {
      log.debug(`http: subscriptions/listen refused for ${peer || "a client"} (${listens.size} streams open)`);
      return rpcAnswerError(listenId, RPC.SERVER_ERROR, place);
    }
    let response: Response;
    try {
      response = await modern.fetch(request, { parsedBody });
    } catch (error) {
      place.release();
      throw error;
    }
    const body = eventStream(response);
    if (!body) {
      place.release();
      return response;
    }
    return new Response(listens.track(place, body), { status: response.status, headers: response.headers });
  }

  function health(request: Request): Response {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return rpcError(405, RPC.SERVER_ERROR, `Method not allowed: ${request.method} /healthz. Use GET.`, {
        Allow: "GET, HEAD",
      });
    }
    return json(200, { status: ready ? "ok" : "starting", version, skills: hub.catalog.skills.length });
  }

  /**
   * The session a request names: 400 without an id; one this server issued that is no longer open (a
   * restart, or idle past the limit) is opened again (session-ids.ts); 404 for any other.
   */
  async function findSession(request: Request, peer: string, parsedBody?: unknown): Promise<Session | Response> {
    const id = request.headers.get("mcp-session-id");
    if (!id)
      return rpcError(
        400,
        RPC.SERVER_ERROR,
        "Bad Request: Mcp-Session-Id header is required. Send initialize first to open a session.",
      );
    const open = sessions.lookup(id);
    if (open) return open;
    const resumable = opensSession(parsedBody) ? undefined : ids.resumable(id);
    // Ending a session this server no longer holds: it is not opened again for anyone.
    if (resumable && request.method === "DELETE") {
      ids.end(id);
      return new Response(null, { status: 200 });
    }
    if (resumable) {
      // Requests sent at once with the same id open one session, which all of them use.
      let resuming = resumes.get(id);
      if (!resuming) {
        resuming = resume(id, resumable.clientName, request, peer).finally(() => resumes.delete(id));
        resumes.set(id, resuming);
      }
      const resumed = await resuming;
      // Each request gets its own copy of a refusal: a body is read once.
      return resumed instanceof Response ? (resumed.clone() as Response) : resumed;
    }
    return sessionNotFound();
  }

  /**
   * Body checks shared by both modes: JSON, bounded, parseable. While it arrives, the body from `peer`
   * counts against the bodies' budget (http-bodies.ts), and must arrive whole within its deadline.
   */
  async function readBody(request: Request, peer: string): Promise<ReadBody | Response> {
    if (!isJsonContentType(request.headers.get("content-type"))) {
      return rpcError(415, RPC.SERVER_ERROR, "Unsupported Media Type: Content-Type must be application/json.");
    }
    const reading = bodies.opened(peer);
    let body: BodyResult;
    try {
      body = await readJsonBody(request, maxBody, {
        reading,
        deadline: { ms: bodies.deadlineMs, timer: bodies.timer },
      });
    } finally {
      reading.end();
    }
    // Security: a body not read to its end ends its connection, which the client would otherwise keep
    // sending it on (Bun keeps a connection whose body's reading was cancelled open for the rest).
    const close = { Connection: "close" };
    if (body.kind === "too-large")
      return rpcError(413, RPC.SERVER_ERROR, `Payload Too Large: the body must not exceed ${maxBody} bytes.`, close);
    if (body.kind === "refused") return bodyRefused(body.refusal, close);
    if (body.kind === "too-slow")
      return rpcError(
        408,
        RPC.SERVER_ERROR,
        `Request Timeout: the body did not arrive whole within ${bodies.deadlineMs / 1000} s of the request's headers, the longest the server waits for one. Send the request again, its body at once.`,
        close,
      );
    if (body.kind === "invalid") return rpcError(400, RPC.PARSE_ERROR, `Parse error: ${body.reason}.`);
    return body;
  }

  /** The answer to a body refused for room: 429 when its address holds its share, else 503; both say when to retry. */
  function bodyRefused(refusal: BodyRefusal, headers: Record<string, string>): Response {
    const retry = { ...headers, "Retry-After": String(BODY_RETRY_SECONDS) };
    return refusal.kind === "peer-full"
      ? rpcError(
          429,
          RPC.SERVER_ERROR,
          `Too Many Requests: ${refusal.message}. Retry in ${BODY_RETRY_SECONDS} s, once those have arrived.`,
          retry,
        )
      : rpcError(
          503,
          RPC.SERVER_ERROR,
          `Service Unavailable: ${refusal.message}. Retry in ${BODY_RETRY_SECONDS} s.`,
          retry,
        );
  }

  /** A request past the limits of request-limits.ts, answered before the SDK sees it; undefined when none is. */
  function refuse(value: unknown): Response | undefined {
    const batch = Array.isArray(value);
    for (const message of batch ? value : [value]) {
      const refusal = refuseRequest(message);
      // A batch's answer is an array the client matches by id; one error for it all is a 400.
      if (refusal) return rpcAnswerError(refusal.id, RPC.INVALID_PARAMS, refusal.message, batch ? 400 : 200);
    }
    return undefined;
  }

  async function post(request: Request, body: ReadBody, peer: string): Promise<Response> {
    const parsedBody = body.value;
    const named = request.headers.has("mcp-session-id") ? await findSession(request, peer, parsedBody) : undefined;
    if (named instanceof Response) return named;
    if (named) return forward(named, request, parsedBody);
    if (!opensSession(parsedBody)) {
      return rpcError(
        400,
        RPC.SERVER_ERROR,
        "Bad Request: Mcp-Session-Id header is required. Send initialize first to open a session.",
      );
    }
    // Security: the session keeps what initialize sent (client info, capabilities) for its whole life.
    if (body.bytes > MAX_INITIALIZE_BYTES)
      return rpcError(
        413,
        RPC.SERVER_ERROR,
        `Payload Too Large: a request that opens a session (initialize) must not exceed ${MAX_INITIALIZE_BYTES} bytes.`,
      );
    const place = await takePlace(peer);
    if (place instanceof Response) return place;
    const response = await start(
      place,
      () => ids.issue(clientNameOf(parsedBody)),
      false,
      (transport) => transport.handleRequest(request, { parsedBody }),
    );
    return response instanceof Response ? response : tracked(response.session, response.answer, request);
  }

  /** A place in the session table for a session `peer` opens, or the answer refusing one. */
  async function takePlace(peer: string): Promise<Place | Response> {
    let place = sessions.reserve(peer);
    if (place === "peer-full") {
      // As below, its client's next request opens it again, in the place of another then.
      const evicted = await sessions.evictOwn(peer);
      if (evicted)
        log.info(
          `http: ${evicted.place.peer || "an unknown address"} holds ${sessions.maxPerPeer} sessions, the most one address may; closed its quietest, ${evicted.id.slice(0, 8)}, for a new one from it`,
        );
      place = sessions.reserve(peer);
    }
    if (place === "full") {
      await sweep();
      if (sessions.full) {
        // Its client's next request opens it again, in the place of another then, if one may go.
        const evicted = await sessions.evictFor(peer, EVICT_QUIET_MS);
        if (evicted)
          log.info(
            `http: ${sessions.maxSessions} sessions open; closed ${evicted.id.slice(0, 8)} (from ${evicted.place.peer || "an unknown address"}) for a new one`,
          );
      }
      place = sessions.reserve(peer);
    }
    if (place === "peer-full")
      return rpcError(
        429,
        RPC.SERVER_ERROR,
        `Too Many Requests: this client's address holds ${sessions.maxPerPeer} open sessions, the most one address may hold, and each of them is waiting on a call or being opened. Retry once a call has ended, or end the sessions no longer used (DELETE /mcp with their Mcp-Session-Id).`,
        { "Retry-After": "60" },
      );
    if (place === "full")
      return rpcError(
        503,
        RPC.SERVER_ERROR,
        `Service Unavailable: ${sessions.maxSessions} sessions are open. Retry later.`,
        { "Retry-After": "60" },
      );
    return place;
  }

  /**
   * The session `id` names, opened again for a request that uses it: the server answers an initialize
   * the client sent before (its protocol version from the request's header, its name from the id, no
   * capabilities) and goes on as if the session had never closed.
   */
  async function resume(id: string, clientName: string, request: Request, peer: string): Promise<Session | Response> {
    const version = request.headers.get("mcp-protocol-version") ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version))
      return rpcError(
        400,
        RPC.SERVER_ERROR,
        `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}).`,
      );
    const place = await takePlace(peer);
    if (place instanceof Response) return place;
    const headers = { accept: "application/json, text/event-stream", "content-type": "application/json" };
    const opened = await start(
      place,
      () => id,
      true,
      async (transport) => {
        const initialize = {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: clientName, version: "" } },
        };
        const answer = await transport.handleRequest(new Request(request.url, { method: "POST", headers }), {
          parsedBody: initialize,
        });
        await answer.text();
        const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
        const more = { ...headers, "mcp-session-id": id, "mcp-protocol-version": version };
        return transport.handleRequest(new Request(request.url, { method: "POST", headers: more }), {
          parsedBody: initialized,
        });
      },
    );
    if (opened instanceof Response) return sessionNotFound();
    log.info(`http: session ${id.slice(0, 8)} resumed (${sessions.size} open)`);
    return opened.session;
  }

  /**
   * A new session in `place` with the id `newId` gives (`resumed`: one its client had before): its own SDK
   * server and transport, to which `initialize` hands the request that opens it. Kept only if that opens
   * the session, else `place` is given back and the answer returned.
   */
  async function start(
    place: Place,
    newId: () => string,
    resumed: boolean,
    initialize: (transport: AnsweringTransport) => Promise<Response>,
  ): Promise<{ session: Session; answer: Response } | Response> {
    const server = newServer(place, resumed);
    let session: Session | undefined;
    const transport: AnsweringTransport = new AnsweringTransport({
      sessionIdGenerator: newId,
      onsessioninitialized: (id) => {
        session = sessions.add(id, server, transport, place);
        log.debug(`http: session ${id.slice(0, 8)} opened (${sessions.size} open)`);
      },
      // A client's DELETE: before the session closes, so no request resumes it meanwhile.
      onsessionclosed: (id) => ids.end(id),
      keepAliveMs: options.keepAliveMs,
    });
    // Set before connect: the SDK chains these with its own. DELETE, expiry and shutdown all end here.
    transport.onclose = () => {
      if (!session) return;
      sessions.remove(session);
      log.debug(`http: session ${session.id.slice(0, 8)} closed (${sessions.size} open)`);
    };
    transport.onerror = (error) => log.debug(`http: ${errorMessage(error)}`);
    let answer: Response;
    try {
      await server.connect(transport);
      answer = await initialize(transport);
    } finally {
      // The session, if initialize opened one, holds the place now; without one (a throw, or e.g. 406 for a
      // wrong Accept header) the place is free again.
      if (!session) place.release();
    }
    if (!session) {
      await server.close().catch(() => undefined);
      return answer;
    }
    return { session, answer };
  }

  async function forward(session: Session, request: Request, parsedBody?: unknown): Promise<Response> {
    const batch = refuseBatch(
      parsedBody,
      session.server.server.getNegotiatedProtocolVersion() ?? LATEST_PROTOCOL_VERSION,
    );
    if (batch) return batch;
    const response =
      parsedBody === undefined
        ? await session.transport.handleRequest(request)
        : await session.transport.handlePost(request, parsedBody);
    return tracked(session, response, request);
  }

  /**
   * The response `answer` makes to `request` from `peer`, with `end` called once it has been sent: an event
   * stream (whose answers may come later) when it ends, a body holding answers counted in `exchange` (the
   * budget's) once read out, any other (or a throw) at once. Security: either stream is stopped, and what
   * it holds freed, when its client takes nothing of it for the idle limit (stream-end.ts): the socket's own
   * limit is lifted until `end`, and an answer nobody reads would hold its bytes, and its session's call,
   * for as long as its connection stays open. An event stream with nothing to send is never stopped: no
   * timer runs meanwhile.
   */
  async function answered(
    request: Request,
    peer: string,
    end: () => void,
    exchange: Exchange | undefined,
    answer: () => Promise<Response>,
  ): Promise<Response> {
    let response: Response;
    try {
      response = await answer();
    } catch (error) {
      end();
      throw error;
    }
    const body = eventStream(response) ?? (exchange && exchange.held > 0 ? response.body : null);
    if (!body) {
      end();
      return response;
    }
    const stopped = (why: string) =>
      log.warn(`http: an answer to ${request.method} /mcp from ${peer || "a client"} stopped: ${why}`);
    const limit: ReaderLimit = {
      ms: options.readerIdle?.ms ?? READER_IDLE_MS,
      stopped,
      timer: options.readerIdle?.timer,
      now: options.now,
      // The rate counts while the answer holds bytes of the budget: a stream that only waits for events does not.
      rated: () => (exchange?.held ?? 0) > 0,
    };
    return new Response(onStreamEnd(body, end, limit), {
      status: response.status,
      headers: response.headers,
    });
  }

  function tracked(session: Session, response: Response, request: Request): Response {
    const body = eventStream(response);
    if (!body) return response;
    return new Response(sessions.track(session, body, request.method === "POST"), {
      status: response.status,
      headers: response.headers,
    });
  }

  /** Stateless: a fresh server and transport per POST, JSON answers, no sessions, no GET stream. */
  async function stateless(request: Request, parsedBody?: unknown): Promise<Response> {
    if (parsedBody === undefined) {
      return rpcError(
        405,
        RPC.SERVER_ERROR,
        `Method not allowed: this server runs stateless (no sessions, no GET stream); use POST.`,
        { Allow: "POST" },
      );
    }
    // No session: the revision is the one the request names, 2025-03-26 when it names none (as the SDK does).
    const batch = refuseBatch(
      parsedBody,
      request.headers.get("mcp-protocol-version") ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
    );
    if (batch) return batch;
    // No session and no stream: no list_changed can reach this client, so none is advertised.
    const server = createServer(hub, {
      version,
      remote: true,
      notifyChanges: false,
      canNotify: false,
      archiveUrl,
      answers,
      ...sessionless(request),
    });
    // Its calls are cancelled when the client hangs up before their answer (AnsweringTransport).
    const transport = new AnsweringTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = (error) => log.debug(`http: ${errorMessage(error)}`);
    await server.connect(transport);
    try {
      return await transport.handlePost(request, parsedBody);
    } finally {
      await server.close().catch(() => undefined);
    }
  }

  async function sweep(): Promise<string[]> {
    const expired = await sessions.sweep();
    if (expired.length > 0)
      log.info(`http: closed ${expired.length} idle session${expired.length === 1 ? "" : "s"} (${sessions.size} open)`);
    return expired;
  }

  return {
    sessions,
    listens,
    answers,
    bodies,
    sweep,
    async close() {
      unpublish();
      await modern.close().catch(() => undefined);
      await sessions.closeAll();
    },
    async handle(request, hooks = {}) {
      hub.memory.busy();
      try {
        // With origins listed, every /mcp and /healthz answer depends on Origin (http-cors.ts).
        const corsAware = policy.origins.size > 0 && !isUiPath(pathOf(request));
        const cors = corsAware ? corsOrigin(request.headers.get("origin"), policy) : undefined;
        const routed = await route(request, hooks, cors);
        const response = corsAware ? withCors(routed, cors) : routed;
        if (log.level === "DEBUG") log.debug(`http: ${request.method} ${loggedPath(request)} → ${response.status}`);
        void refusals.note(request, response, hooks.peer ?? "");
        return response;
      } catch (error) {
        // A bug must not take the server down or leak a stack to the client.
        log.error(
          `http: ${request.method} ${pathOf(request)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        return rpcError(
          500,
          RPC.INTERNAL_ERROR,
          "Internal error: SkillHub failed on this request; its log has the details.",
        );
      }
    },
  };
}
