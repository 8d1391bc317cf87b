import { SERVER_USER } from "../analytics/setup.ts";
import type { UsageSummary } from "../analytics/stats.ts";
import type { Hub } from "../server/hub.ts";
import { hideServerPaths } from "../server/path-sweep/hide-server-paths.ts";
import { serverPaths } from "../server/server-paths.ts";

/**
 * The page as an MCP client is shown it, when the request bears the clients' token (transports/http-security.ts
 * pageViewer). Security: every MCP client holds that one token, so what the page shows with it is what any
 * client may read: not the words other clients sent (their searches and `get_skill` requests that found
 * nothing, their feedback comments), nor the server's folders (a skill's folder is its skill:// URI), nor the
 * user it runs as, none of which an answer to an HTTP client holds. The operator sees them all with the admin
 * token, or on the server itself. routes.ts names the folders in every answer of the API, errors too
 * (foldersNamed), in one place; a view that holds other clients' words or the user is reduced here first.
 */

/** Who may read the page's API: "operator", everything it shows; "client", what every MCP client may read. */
export type PageViewer = "operator" | "client";

/** What the usage view says in place of other clients' words. */
export const USAGE_WITHHELD =
  "Searches and get_skill requests that found nothing, and feedback comments, are other clients' words: the operator sees them on this page opened with the admin token (SKILLHUB_ADMIN_TOKEN), or by running skillhub stats on the server.";

/** What the status view says of the server's folders it names, and of the user it runs as. */
export const FOLDERS_WITHHELD = `The server's folders are shown by name (<project>, <home>, <skillhub home>, a skills folder by its label, a skill's by its skill:// URI), any other path of it as <server path>, the user it runs as by ${SERVER_USER}: the operator sees them on this page opened with the admin token (SKILLHUB_ADMIN_TOKEN), or by running skillhub doctor on the server.`;

/**
 * A view with every path of the server as a remote MCP client is told it (path-sweep/hide-server-paths.ts): its folders named, a
 * skill's by its skill:// URI, any other path (a link's target, a repository in a local folder) `<server path>`
 * but in a skill's own words (its description, text and files), which a client reads as they are.
 */
export function foldersNamed<T>(hub: Hub, view: T): T {
  return hideServerPaths(view, serverPaths(hub), "page");
}

/** The overview (the status view's) without the user the server runs as, and a sentence saying its folders are named. */
export function overviewForClient<T extends { analytics: string }>(hub: Hub, overview: T): T & { withheld: string } {
  return { ...overview, analytics: hub.analytics.describeForClients, withheld: FOLDERS_WITHHELD };
}

/** What the usage answer holds of clients' words and of the user the server runs as. */
interface UsageAnswer {
  analytics: string;
  summary: UsageSummary;
  misses: readonly unknown[];
  svg: { misses: string };
}

/**
 * The usage answer without other clients' words: no request that found nothing (nor its chart), no feedback
 * comment; the counts, the loads per skill and the feedback per skill stay. Nor the user the server runs as.
 */
export function usageForClient<T extends UsageAnswer>(hub: Hub, usage: T): T & { withheld: string } {
  const s = usage.summary;
  return {
    ...usage,
    analytics: hub.analytics.describeForClients,
    summary: {
      ...s,
      no_match: [],
      failed_searches: [],
      ambiguous: [],
      feedback: s.feedback.map((f) => ({ ...f, comments: [] })),
    },
    misses: [],
    svg: { ...usage.svg, misses: "" },
    withheld: USAGE_WITHHELD,
  };
}
