import type { Hub } from "../server/hub.ts";
import { errorMessage } from "../util/errors.ts";
import appJs from "./assets/app.js" with { type: "text" };
import domJs from "./assets/dom.js" with { type: "text" };
import pageHtml from "./assets/page.html" with { type: "text" };
import styleCss from "./assets/style.css" with { type: "text" };
import viewsHubJs from "./assets/views-hub.js" with { type: "text" };
import viewsSkillsJs from "./assets/views-skills.js" with { type: "text" };
import { barsSvg, dailyLoadsSvg, NARROW, PALETTE, WIDE } from "./charts.ts";
import { foldersNamed, overviewForClient, type PageViewer, usageForClient } from "./client-view.ts";
import { diagnosticsPage, overview, treeView } from "./hub-view.ts";
import type { PageLinks } from "./markdown-links.ts";
import { renderPage } from "./markdown-page.ts";
import { searchView } from "./search-view.ts";
import { findSkill, skillDetail } from "./skill-detail.ts";
import { readFileView } from "./skill-file.ts";
import { listSkills } from "./skill-list.ts";
import { analyticsFiles, EventFiles, usageView } from "./usage.ts";

/** What the page needs from the server it runs in. */
export interface UiDeps {
  hub: Hub;
  /**
   * Who the request is, from its bearer token (transports/http-security.ts pageViewer): the operator sees
   * everything, a client what any MCP client may read (client-view.ts); undefined, neither token: the API
   * answers 401, the page's own files (no data) are served.
   */
  viewer: PageViewer | undefined;
}

/**
 * Security: the page's policy. Scripts, styles and fetches only from this
 * server; no inline script or style, no plugins, no frames, no forms that
 * submit anywhere, no base URL changes. A SKILL.md that slipped markup past
 * the renderer would still not run.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

// Bun's types call an .html import an HTMLBundle; imported `with { type: "text" }` it is the file's text.
const ASSETS: Record<string, { body: string; type: string }> = {
  "/": { body: pageHtml as unknown as string, type: "text/html; charset=utf-8" },
  // ES modules: app.js imports the others by relative URL.
  "/ui/app.js": { body: appJs, type: "text/javascript; charset=utf-8" },
  "/ui/dom.js": { body: domJs, type: "text/javascript; charset=utf-8" },
  "/ui/views-skills.js": { body: viewsSkillsJs, type: "text/javascript; charset=utf-8" },
  "/ui/views-hub.js": { body: viewsHubJs, type: "text/javascript; charset=utf-8" },
  "/ui/style.css": { body: styleCss, type: "text/css; charset=utf-8" },
};

/** Whether a path belongs to the page: `/`, its files under `/ui/`, its API under `/ui/api/`. */
export function isUiPath(pathname: string): boolean {
  return pathname === "/" || pathname === "/favicon.ico" || pathname === "/ui" || pathname.startsWith("/ui/");
}

/** The API's routes, under `/ui/api/`. */
export const API_ROUTES = [
  "generation",
  "overview",
  "skills",
  "diagnostics",
  "search",
  "skill",
  "file",
  "tree",
  "usage",
] as const;

/** Per hub: the analytics files followed, so that polling reads only what was appended. */
const eventFiles = new WeakMap<Hub, EventFiles>();
/** Per hub: the last usage answer, reused while the files, the catalog and the range are unchanged. */
const usageCache = new WeakMap<Hub, { key: string; value: UsageAnswer }>();

/**
 * The page and its read-only JSON API, as `Request → Response`. The HTTP
 * handler calls it after its Host and Origin checks; the API then applies
 * the same bearer token as /mcp. Only GET and HEAD: nothing here changes
 * anything.
 */
export async function handleUi(request: Request, deps: UiDeps): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (request.method !== "GET" && request.method !== "HEAD")
    return problem(405, "METHOD_NOT_ALLOWED", `${request.method} ${path}: the page is read-only; use GET.`, {
      Allow: "GET, HEAD",
    });
  if (path === "/favicon.ico") return new Response(null, { status: 204, headers: SECURITY_HEADERS });
  if (path === "/ui") return new Response(null, { status: 308, headers: { ...SECURITY_HEADERS, Location: "/" } });
  const asset = ASSETS[path];
  if (asset)
    return new Response(request.method === "HEAD" ? null : asset.body, {
      headers: { ...SECURITY_HEADERS, "Content-Type": asset.type, "Cache-Control": "no-cache" },
    });
  if (!path.startsWith("/ui/api/"))
    return problem(404, "NOT_FOUND", `Not found: ${path}. The page is at /, MCP at /mcp.`);
  if (!deps.viewer)
    return problem(
      401,
      "UNAUTHORIZED",
      "This server needs its token (the clients' or the admin token): enter it on the page (or send it as a bearer token).",
      {
        "WWW-Authenticate": 'Bearer realm="skillhub"',
      },
    );
  const viewer = deps.viewer;
  // Security: the one place every answer of the API passes, errors too: a client is shown the server's folders
  // by name and each skill's by its skill:// URI (client-view.ts), whatever the route. Before any Markdown is
  // rendered: a name such as `<home>` is then escaped as the page's text, never read as markup.
  const shown = <T>(answer: T): T => (viewer === "client" ? foldersNamed(deps.hub, answer) : answer);
  try {
    await deps.hub.ready;
    const answer = await api(path.slice("/ui/api/".length), url.searchParams, deps.hub, viewer);
    if (answer instanceof Refusal) return problem(answer.status, answer.code, shown(answer.message));
    return json(200, await rendered(shown(answer)));
  } catch (error) {
    deps.hub.logger.error(
      `ui: ${path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return problem(
      500,
      "INTERNAL_ERROR",
      shown(`SkillHub failed on ${path} (${errorMessage(error)}); its log has the details.`),
    );
  }
}

/** An API error before it is sent (handleUi names its folders for a client, then sends it as `problem`). */
class Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
  ) {}
}

/**
 * One API answer; for a client, without other clients' words nor the user the server runs as (client-view.ts),
 * its folders still to be named by handleUi. A view with Markdown carries it as `markdown`, for handleUi to render.
 */
async function api(name: string, q: URLSearchParams, hub: Hub, viewer: PageViewer): Promise<object> {
  const catalog = hub.catalog;
  const client = viewer === "client";
  const int = (key: string, fallback: number) => {
    const n = Number.parseInt(q.get(key) ?? "", 10);
    return Number.isFinite(n) ? n : fallback;
  };
  switch (name as (typeof API_ROUTES)[number]) {
    case "generation":
      return {
        generation: catalog.generation,
        content: catalog.contentHash,
        usage: events(hub).stamp(analyticsFiles(hub.config)),
      };
    case "overview":
      return client ? overviewForClient(hub, overview(hub)) : overview(hub);
    case "skills": {
      const query = pageQuery(q);
      if (query instanceof Refusal) return query;
      return listSkills(catalog, hub.filter, {
        filter: query,
        show: q.get("show") ?? "all",
        page: int("page", 1),
        perPage: int("per", 50),
      });
    }
    case "diagnostics":
      return diagnosticsPage(catalog.diagnostics, q.get("severity") ?? undefined, int("page", 1));
    case "search": {
      const query = pageQuery(q);
      if (query instanceof Refusal) return query;
      if (query === "") return { hits: [], mode: "fts" };
      return searchView(hub, query, int("limit", 20));
    }
    case "skill": {
      const skill = findSkill(catalog, q.get("id") ?? "");
      const detail = skill && skillDetail(catalog, hub.filter, skill, hub.frozen);
      return detail ?? notFound(q.get("id") ?? "");
    }
    case "file": {
      const id = q.get("id") ?? "";
      const skill = findSkill(catalog, id);
      const detail = skill && skillDetail(catalog, hub.filter, skill, hub.frozen);
      if (!skill || !detail) return notFound(id);
      if (!detail.skill.enabled)
        return new Refusal(
          403,
          "SKILL_DISABLED",
          `${skill.name} is disabled by the server's filter; its files are not served.`,
        );
      // Security: frozen mode; no file of a skill that differs from its lock.
      if (detail.refused) return new Refusal(403, detail.refused.code, detail.refused.message);
      const view = readFileView(catalog, skill, q.get("path") ?? "", hub.config.files.max_file_bytes, hub.frozen, {
        files: detail.files,
        truncated: detail.filesTruncated,
      });
      return view.ok ? view : new Refusal(view.code === "PATH_OUTSIDE_SKILL" ? 403 : 404, view.code, view.message);
    }
    case "tree":
      return treeView(hub);
    case "usage": {
      const days = Math.min(366, Math.max(7, int("days", 30)));
      const key = `${days}:${catalog.generation}:${events(hub).stamp(analyticsFiles(hub.config))}`;
      let cached = usageCache.get(hub);
      if (cached?.key !== key) {
        cached = { key, value: await usage(hub, days) };
        usageCache.set(hub, cached);
      }
      return client ? usageForClient(hub, cached.value) : cached.value;
    }
    default:
      return new Refusal(404, "NOT_FOUND", `No such API: /ui/api/${name}.`);
  }
}

/**
 * A view with its Markdown rendered as `html`, off the server's thread (markdown-page.ts): a page over
 * its time budget comes back as plain text, with a notice saying so. A view without Markdown as it is.
 */
async function rendered(view: object): Promise<object> {
  if (!("markdown" in view)) return view;
  const { markdown, ...rest } = view as { markdown?: { source: string; links?: PageLinks }; notice?: string };
  if (!markdown) return rest;
  const page = await renderPage(markdown.source, markdown.links);
  if (!page.plain) return { ...rest, html: page.html };
  const notice = `Shown as plain text: ${page.plain}.`;
  return { ...rest, html: page.html, notice: rest.notice ? `${rest.notice} ${notice}` : notice };
}

function events(hub: Hub): EventFiles {
  let files = eventFiles.get(hub);
  if (!files) {
    files = new EventFiles();
    eventFiles.set(hub, files);
  }
  return files;
}

type UsageAnswer = Awaited<ReturnType<typeof usage>>;

async function usage(hub: Hub, days: number) {
  const read = await events(hub).read(analyticsFiles(hub.config));
  const names = hub.catalog.skills.map((s) => s.name);
  const view = usageView(read, names, days);
  const s = view.summary;
  const misses = [
    ...s.failed_searches.map((f) => ({ label: `search: ${f.query}`, value: f.count })),
    ...s.no_match.map((n) => ({ label: `get_skill: ${n.context}`, value: n.count })),
  ]
    .sort((a, b) => b.value - a.value)
    .slice(0, 10);
  const top = s.most_used.map((u) => ({ label: u.skill, value: u.uses }));
  // Each chart twice, wide and narrow: the style sheet shows the one that fits the screen.
  const wideAndNarrow = (chart: (width: number) => string) => chart(WIDE) + chart(NARROW);
  return {
    analytics: hub.analytics.describe,
    ...view,
    summary: { ...s, never_used: s.never_used.slice(0, 50), never_used_count: s.never_used.length },
    palette: PALETTE,
    misses,
    svg: {
      loads: wideAndNarrow((w) => dailyLoadsSvg(view.days, view.series, `Skill loads per day, last ${days} days`, w)),
      top: wideAndNarrow((w) => barsSvg(top, "Most used skills", PALETTE[0], w)),
      misses: wideAndNarrow((w) => barsSvg(misses, "Searches and requests without a hit", PALETTE[1], w)),
    },
  };
}

/** Most characters of the `q` that the list and search take: a few sentences, far more than a person types. */
const MAX_PAGE_QUERY_CHARS = 500;

/**
 * The request's `q`, trimmed, or its refusal when longer than MAX_PAGE_QUERY_CHARS. Security: each word is
 * matched against every skill on the server's thread, so an unbounded `q` stalled every other request.
 */
function pageQuery(q: URLSearchParams): string | Refusal {
  const query = (q.get("q") ?? "").trim();
  if (query.length > MAX_PAGE_QUERY_CHARS)
    return new Refusal(400, "INVALID_ARGUMENT", `The query is longer than ${MAX_PAGE_QUERY_CHARS} characters.`);
  return query;
}

function notFound(id: string): Refusal {
  return new Refusal(
    404,
    "SKILL_NOT_FOUND",
    `No skill with id ${JSON.stringify(id)}; it may have been removed or renamed.`,
  );
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...SECURITY_HEADERS, "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/** An error answer: `{ error: { code, message } }`, as the tools' errors look. */
function problem(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  const response = json(status, { error: { code, message } });
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
  return response;
}
