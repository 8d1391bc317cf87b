/**
 * CORS for the pages listed in server.allowed_origins (http-security.ts corsOrigin): without it a browser
 * page cannot send the JSON POST an MCP call is (its preflight failed) nor read an answer, so listing an
 * origin did nothing for browsers. The token, when one is set, is still required on every call: CORS
 * only lets such a page send it and read what comes back.
 */

/** The request headers an MCP client sends (Streamable HTTP, both protocol generations). */
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "Last-Event-ID",
  "Mcp-Session-Id",
  "Mcp-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
].join(", ");

/** The answer's headers such a page must read: the session to send back, the version, why a call was refused. */
const EXPOSED_HEADERS = ["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate", "Retry-After"].join(", ");

/** The answer to a preflight (OPTIONS) from a listed origin. */
export function preflight(origin: string, methods: readonly string[]): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Methods": methods.join(", "),
      "Access-Control-Allow-Headers": ALLOWED_HEADERS,
      "Access-Control-Max-Age": "600",
      Vary: "Origin",
    },
  });
}

/**
 * `response` readable by a page on `origin`; with no origin, only marked as depending on it (`Vary`), so a
 * cache never hands an answer without CORS headers to a listed page.
 */
export function withCors(response: Response, origin: string | undefined): Response {
  const headers = new Headers(response.headers);
  if (origin) {
    headers.set("Access-Control-Allow-Origin", origin);
    headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  }
  const vary = headers.get("Vary") ?? "";
  if (!vary.split(",").some((name) => name.trim().toLowerCase() === "origin")) headers.append("Vary", "Origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
