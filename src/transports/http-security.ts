import { createHash, timingSafeEqual } from "node:crypto";
import type { PageViewer } from "../ui/client-view.ts";

/**
 * The security checks of the HTTP transport, as small pure functions over
 * plain values so each can be tested without a socket.
 */

/** Hostnames that always mean "this machine". IPv6 literals are kept in URL form ("[::1]"). */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Addresses that bind every interface. */
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

/** A hostname in the form `new URL(...).hostname` gives: lower case, IPv6 in brackets. */
export function normalizeHostname(host: string): string {
  const h = host.trim().toLowerCase();
  return h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
}

/** Whether binding `host` keeps the server reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = normalizeHostname(host);
  if (h === "localhost" || h === "[::1]") return true;
  // Security: all of 127.0.0.0/8 is loopback, not only 127.0.0.1.
  return /^127(\.\d{1,3}){3}$/.test(h);
}

export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(normalizeHostname(host));
}

export interface HostPolicyInput {
  /** The address the server binds (server.host). */
  bound: string;
  /** server.allowed_hosts: bare hostnames, or host:port to pin a port too. */
  allowedHosts?: readonly string[];
  /** server.allowed_origins: exact origins such as "https://tools.example.com". */
  allowedOrigins?: readonly string[];
  /** This machine's addresses and name, used when `bound` is a wildcard. Default none. */
  localAddresses?: readonly string[];
}

/** What Host and Origin values the server answers; built once at start-up. */
export interface HostPolicy {
  hostnames: ReadonlySet<string>;
  /** allowed_hosts entries with a port: compared as the whole Host header. */
  hostsWithPort: ReadonlySet<string>;
  origins: ReadonlySet<string>;
}

/**
 * The names this server may be called by: the loopback names, the bound
 * address (every local address for a wildcard bind), and the configured extras.
 */
export function hostPolicy(input: HostPolicyInput): HostPolicy {
  const hostnames = new Set(LOOPBACK_NAMES);
  const bound = normalizeHostname(input.bound);
  if (isWildcardHost(bound)) for (const a of input.localAddresses ?? []) hostnames.add(normalizeHostname(a));
  else hostnames.add(bound);
  const hostsWithPort = new Set<string>();
  for (const entry of input.allowedHosts ?? []) {
    const parsed = parseHost(entry);
    if (!parsed) continue;
    if (parsed.port) hostsWithPort.add(`${parsed.hostname}:${parsed.port}`);
    else hostnames.add(parsed.hostname);
  }
  const origins = new Set<string>();
  for (const entry of input.allowedOrigins ?? []) {
    const origin = parseOrigin(entry);
    if (origin) origins.add(origin.origin);
  }
  return { hostnames, hostsWithPort, origins };
}

/**
 * Security: DNS rebinding. A web page on evil.example whose name is made to
 * resolve to 127.0.0.1 reaches this server from the user's browser, but its
 * requests still carry `Host: evil.example`. Only names of this server pass.
 * The port is not compared: a rebinding attack changes the name, and a
 * reverse proxy may present another port.
 */
export function hostAllowed(hostHeader: string | null, policy: HostPolicy): boolean {
  if (!hostHeader) return false;
  const parsed = parseHost(hostHeader);
  if (!parsed) return false;
  if (policy.hostnames.has(parsed.hostname)) return true;
  return parsed.port !== "" && policy.hostsWithPort.has(`${parsed.hostname}:${parsed.port}`);
}

/**
 * Security: a browser names the page that sent a request in `Origin`; a page
 * on another site must not drive this server (it could read the user's
 * skills). No Origin means a non-browser client, which is allowed. "null"
 * (sandboxed frames, file: pages) is refused.
 */
export function originAllowed(originHeader: string | null, policy: HostPolicy): boolean {
  if (originHeader === null) return true;
  const origin = parseOrigin(originHeader);
  if (!origin) return false;
  if (policy.origins.has(origin.origin)) return true;
  return policy.hostnames.has(origin.hostname);
}

/**
 * The origin to answer with CORS headers: only one listed in server.allowed_origins. A page on a loopback
 * name passes originAllowed, but its browser gets no CORS answer unless its origin is listed too.
 */
export function corsOrigin(originHeader: string | null, policy: HostPolicy): string | undefined {
  const origin = originHeader === null ? undefined : parseOrigin(originHeader)?.origin;
  return origin !== undefined && policy.origins.has(origin) ? origin : undefined;
}

/**
 * Security: a bearer token compared in constant time. Both sides are hashed
 * first so that neither the content nor the length of the token leaks through
 * timing. No token configured: every request passes (loopback only; the
 * server refuses to bind elsewhere without one).
 */
export function bearerAllowed(authorization: string | null, token: string | undefined): boolean {
  if (token === undefined) return true;
  if (!authorization) return false;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  if (!match?.[1]) return false;
  return timingSafeEqual(digest(match[1]), digest(token));
}

/**
 * Who a request to the page's API is, or undefined when it may not read it (401): the operator, or a client,
 * who is not shown other clients' words nor the server's folders (ui/client-view.ts).
 * Security: every MCP client holds the one clients' token, so the operator's views need a token of their own
 * (`adminToken`), compared in constant time as the clients' is. With no token at all the server is this
 * machine's only (refuseToBind) and its one user is the operator, as before; an admin token set alone still
 * keeps the private views from whoever connects without it.
 */
export function pageViewer(
  authorization: string | null,
  token: string | undefined,
  adminToken: string | undefined,
): PageViewer | undefined {
  if (adminToken !== undefined && bearerAllowed(authorization, adminToken)) return "operator";
  if (!bearerAllowed(authorization, token)) return undefined;
  return token === undefined && adminToken === undefined ? "operator" : "client";
}

/**
 * Security: a server reachable from other machines without a token would
 * hand every skill (and any enabled command) to anyone on the network.
 * A token holding whitespace cannot be sent after "Bearer " (bearerAllowed), and
 * one outside ASCII arrives as bytes that depend on the client: every client (or
 * most) would get 401, and no one would know why. An admin token equal to the
 * clients' would show every client what the page keeps for the operator.
 * Returns the reason to refuse start-up, or undefined.
 */
export function refuseToBind(host: string, token: string | undefined, adminToken?: string): string | undefined {
  const unsendable =
    unsendableToken(token, "SKILLHUB_HTTP_TOKEN") ?? unsendableToken(adminToken, "SKILLHUB_ADMIN_TOKEN");
  if (unsendable) return unsendable;
  if (adminToken && adminToken === token)
    return "SKILLHUB_ADMIN_TOKEN is the same as SKILLHUB_HTTP_TOKEN: every MCP client holds that one, so each would see what the page keeps for the operator (other clients' searches and feedback, the server's folders). Set another (e.g. `openssl rand -hex 32`).";
  if (isLoopbackHost(host) || (token !== undefined && token.length > 0)) return undefined;
  return `refusing to serve HTTP on ${host} without a token: anyone who can reach that address could use this server. Set SKILLHUB_HTTP_TOKEN (clients then send "Authorization: Bearer <token>"), or bind this machine only with --host 127.0.0.1.`;
}

/** Why a token (in the variable `name`) cannot be sent in a header as it is, or undefined. */
function unsendableToken(token: string | undefined, name: string): string | undefined {
  if (token !== undefined && /\s/.test(token))
    return `${name} holds a space, tab or line break: clients send the token after "Bearer " in one header, which cannot carry it, so every one would be refused. Set one without whitespace (e.g. \`openssl rand -hex 32\`).`;
  if (token !== undefined && /[^\x21-\x7e]/.test(token))
    return `${name} holds a character outside printable ASCII: clients send such a character in a header as different bytes (UTF-8 or Latin-1), so most would be refused. Set one of ASCII letters and digits (e.g. \`openssl rand -hex 32\`).`;
  return undefined;
}

/** Why a token (in the variable `name`) is too easy to guess (the clients' also from a session id, see session-ids.ts), or undefined. */
export function weakToken(token: string | undefined, name = "SKILLHUB_HTTP_TOKEN"): string | undefined {
  return token !== undefined && token.length < 16
    ? `${name} is shorter than 16 characters; use a long random value (e.g. \`openssl rand -hex 32\`).`
    : undefined;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function parseHost(value: string): { hostname: string; port: string } | undefined {
  if (!value || /[\s/@?#\\]/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    return { hostname: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return undefined;
  }
}

function parseOrigin(value: string): { origin: string; hostname: string } | undefined {
  if (value === "null") return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return { origin: url.origin, hostname: url.hostname.toLowerCase() };
  } catch {
    return undefined;
  }
}
