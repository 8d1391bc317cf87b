import { hostname, networkInterfaces } from "node:os";
import type { Config } from "../config/schema.ts";
import type { AnswerBudgetOptions } from "../server/answer-budget.ts";
import type { Hub } from "../server/hub.ts";
import { ConfigError, errorMessage, SkillHubError } from "../util/errors.ts";
import { bounded } from "./bounded.ts";
import type { RequestBodiesOptions } from "./http-bodies.ts";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions, MAX_BODY_BYTES } from "./http-handler.ts";
import { RPC, rpcError } from "./http-responses.ts";
import { isLoopbackHost, isWildcardHost, normalizeHostname, refuseToBind, weakToken } from "./http-security.ts";
import type { ListenStreamsOptions } from "./listen-streams.ts";

export interface HttpServeOptions {
  /** Address to bind. Default 127.0.0.1 (this machine only). */
  host?: string;
  /** TCP port; 0 picks a free one. Default 8000. */
  port?: number;
  /** Bearer token (SKILLHUB_HTTP_TOKEN); required when `host` is not loopback. */
  token?: string;
  /** The operator's token for the page (SKILLHUB_ADMIN_TOKEN); must differ from `token`. Default none. */
  adminToken?: string;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** The URL clients reach the server at behind a reverse proxy (server.public_url). Default: each request's origin. */
  publicUrl?: string;
  /** No sessions, JSON answers. Default false. */
  stateless?: boolean;
  /** Minutes before an idle session is closed. Default 30. */
  sessionIdleMinutes?: number;
  /** Clock for session expiry (ms). Default Date.now. */
  now?: () => number;
  /** SSE keep-alive interval (ms). Default the SDK's 15 s. */
  keepAliveMs?: number;
  /** Most subscriptions/listen streams in all and from one address. Default listen-streams.ts's. */
  listens?: ListenStreamsOptions;
  /** Most bytes of answers held at once, in all and for one address. Default answer-budget.ts's. */
  answers?: AnswerBudgetOptions;
  /** Most bytes of request bodies held while they arrive, and their deadline. Default http-bodies.ts's. */
  bodies?: RequestBodiesOptions;
  /** Signals that stop `serveHttp`. Default SIGINT, SIGTERM. */
  signals?: readonly NodeJS.Signals[];
  /** Seconds a connection may sit silent outside an admitted request's answer. Default IDLE_TIMEOUT_SECONDS. */
  idleTimeoutSeconds?: number;
  /** How long an answer or a download waits for its client to take more, and its timer. Default stream-end.ts's. */
  readerIdle?: HttpHandlerOptions["readerIdle"];
}

/** The options the `server` settings choose, for `serve` and `ui` alike. */
export function httpServeOptions(server: Config["server"]): HttpServeOptions {
  return {
    host: server.host,
    port: server.port,
    token: server.token || undefined,
    adminToken: server.admin_token || undefined,
    allowedHosts: server.allowed_hosts,
    allowedOrigins: server.allowed_origins,
    publicUrl: server.public_url,
    stateless: server.stateless,
    sessionIdleMinutes: server.session_idle_minutes,
  };
}

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:8000/mcp. */
  url: string;
  port: number;
  handler: HttpHandler;
  /** Close every session, then the socket. */
  stop(): Promise<void>;
}

/**
 * Seconds a connection may sit silent before it is admitted to MCP or a
 * download (headers, body), and between two requests. Admitted requests lift
 * the limit until their answer ends: SSE streams and long tool calls are silent
 * for longer, the SDK's keep-alive comments do not count, and a client reading
 * slowly drains megabytes of buffers. An answer its client stops reading is
 * stopped by the handler instead (stream-end.ts, READER_IDLE_MS).
 */
const IDLE_TIMEOUT_SECONDS = 30;

/**
 * Bind `Bun.serve` around the HTTP handler. Throws ConfigError (exit 2) when
 * asked to bind a non-loopback address without a token, and SkillHubError
 * LISTEN_FAILED when the address cannot be bound.
 */
export function startHttpServer(hub: Hub, options: HttpServeOptions = {}): RunningHttpServer {
  const host = options.host ?? "127.0.0.1";
  const refusal = refuseToBind(host, options.token, options.adminToken);
  if (refusal) throw new ConfigError(refusal, { key: "server.token" });
  const idleMs = (options.sessionIdleMinutes ?? 30) * 60_000;
  const handler = createHttpHandler(hub, {
    host,
    token: options.token,
    adminToken: options.adminToken,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    publicUrl: options.publicUrl,
    localAddresses: isWildcardHost(host) ? localAddresses() : [],
    stateless: options.stateless,
    sessionIdleMs: idleMs,
    now: options.now,
    keepAliveMs: options.keepAliveMs,
    listens: options.listens,
    answers: options.answers,
    bodies: options.bodies,
    readerIdle: options.readerIdle,
  });
  const idleSeconds = options.idleTimeoutSeconds ?? IDLE_TIMEOUT_SECONDS;
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: host,
      port: options.port ?? 8000,
      idleTimeout: idleSeconds,
      // Security and sanity: never share the port with another process (a second `skillhub serve` must fail).
      reusePort: false,
      // Headroom over the handler's own limit, so the handler (not Bun) answers most oversized bodies with JSON-RPC.
      maxRequestBodySize: MAX_BODY_BYTES + 1024 * 1024,
      development: false,
      fetch: (request, srv) =>
        handler.handle(request, {
          longLived: () => {
            srv.timeout(request, 0);
            // Security: a limit lifted for one request stays off on its connection, which a client keeps alive
            // for the next one: without it back, one request bought a socket held silent for ever.
            return () => srv.timeout(request, idleSeconds);
          },
          peer: srv.requestIP(request)?.address,
        }),
      error: (error) => {
        hub.logger.error(`http: ${error.stack ?? error.message}`);
        return rpcError(
          500,
          RPC.INTERNAL_ERROR,
          "Internal error: SkillHub failed on this request; its log has the details.",
        );
      },
    });
  } catch (error) {
    const port = options.port ?? 8000;
    if ((error as { code?: string }).code === "EADDRINUSE")
      throw new SkillHubError(
        "PORT_IN_USE",
        `port ${port} is in use on ${host}: another server (perhaps another skillhub serve) holds it. Stop it, or pick another port with --port.`,
        { cause: error },
      );
    throw new SkillHubError(
      "LISTEN_FAILED",
      `cannot listen on ${host}:${options.port ?? 8000}: ${errorMessage(error)}. Is another server using the port? Pick another with --port.`,
      {
        cause: error,
      },
    );
  }
  const sweeper = setInterval(() => void handler.sweep(), Math.min(idleMs, 60_000));
  sweeper.unref?.();
  const port = server.port ?? options.port ?? 8000;
  return {
    url: `http://${urlHost(host)}:${port}/mcp`,
    port,
    handler,
    async stop() {
      clearInterval(sweeper);
      await handler.close();
      await server.stop(true);
    },
  };
}

/**
 * Serve MCP over Streamable HTTP until SIGINT or SIGTERM. Logs the listening
 * URL (never the token) to stderr. Resolves with why it stopped.
 */
export async function serveHttp(hub: Hub, options: HttpServeOptions = {}): Promise<string> {
  const running = startHttpServer(hub, options);
  const host = options.host ?? "127.0.0.1";
  const mode = options.stateless ? "stateless" : `sessions expire after ${options.sessionIdleMinutes ?? 30} idle min`;
  hub.logger.info(
    `listening on ${running.url} (${mode}; token ${options.token ? "required" : "not required"}; ${isLoopbackHost(host) ? "this machine only" : "reachable from the network"})`,
  );
  // Its own line: whoever reads the log for the MCP endpoint matches the line above.
  const asks = options.token ? " (it asks for the token once)" : "";
  const operator = options.adminToken
    ? "; entered there, the admin token also shows what clients searched and the server's folders"
    : "";
  hub.logger.info(`web page at ${running.url.replace(/\/mcp$/, "/")}${asks}${operator}`);
  // Security: a loopback port is open to every account on this machine, not only to the one that started the
  // server; with commands on, any of them would run commands as this user.
  if (options.token === undefined && hub.config.commands.enabled)
    hub.logger.warn(
      "run_skill_command is enabled and no token is set: every user of this machine can connect to this port and run commands as you. Set SKILLHUB_HTTP_TOKEN (clients then send it as a bearer token).",
    );
  for (const weak of [weakToken(options.token), weakToken(options.adminToken, "SKILLHUB_ADMIN_TOKEN")])
    if (weak) hub.logger.warn(weak);
  void hub.start();
  let finish!: (why: string) => void;
  const done = new Promise<string>((resolve) => (finish = resolve));
  const onSignal = (signal: NodeJS.Signals) => finish(signal);
  const signals = options.signals ?? (["SIGINT", "SIGTERM"] as const);
  for (const signal of signals) process.on(signal, onSignal);
  const why = await done;
  for (const signal of signals) process.off(signal, onSignal);
  // Bounded: streams, half-sent bodies and slow endpoints must not hold the process past a signal.
  const ended = await bounded(
    (async () => {
      await running.stop();
      // Stops the timers and sends the last analytics events.
      await hub.shutdown();
    })(),
  );
  // Out of time: the hub is closed all the same, which ends a clone or fetch and a script still running.
  if (!ended) hub.close();
  return why;
}

/** This machine's addresses and name: what a client may put in Host when the server binds every interface. */
function localAddresses(): string[] {
  const addresses = [hostname()];
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) addresses.push(a.address);
  return addresses;
}

function urlHost(host: string): string {
  return normalizeHostname(host);
}
