// The page's building blocks: elements from text (never HTML), the API client, the render guard, and the
// small pieces every view uses. Everything from the server is put in the page as text (textContent); the
// only HTML inserted is what the server built with its escaping Markdown renderer and SVG charts
// (setTrustedHtml), and the Content-Security-Policy forbids inline scripts besides.

export const TOKEN_KEY = "skillhub-token";
const main = document.getElementById("main");
const live = document.getElementById("live");
let renderSeq = 0;

/** Start a render; returns its number. A newer render makes older ones stale (see show). */
export function nextRender() {
  renderSeq += 1;
  return renderSeq;
}

export function isCurrent(seq) {
  return seq === renderSeq;
}

/** Build an element: h("a", { href: "#/" }, "text", child). Strings become text nodes, never HTML. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Markup the server escaped itself (Markdown renderer, SVG charts): the one place HTML is inserted. */
export function setTrustedHtml(el, html) {
  el.innerHTML = html;
  return el;
}

export class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api(path, params) {
  const query = params ? `?${new URLSearchParams(params)}` : "";
  const headers = { Accept: "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`/ui/api/${path}${query}`, { headers, cache: "no-store" });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = body?.error || {};
    throw new HttpError(response.status, error.code || "HTTP_ERROR", error.message || `HTTP ${response.status}`);
  }
  return body;
}

export function announce(text) {
  live.textContent = text;
}

/** Replace the main region's content; a stale render (a newer route started) is dropped. */
export function show(seq, ...nodes) {
  if (!isCurrent(seq)) return false;
  main.replaceChildren(...nodes.flat(2).filter((n) => n !== null && n !== undefined && n !== false));
  return true;
}

export function skillLink(id, text) {
  return h("a", { href: `#/skill/${encodeURIComponent(id)}` }, text);
}

export function badges(row) {
  return [
    h("span", { class: "badge" }, row.location),
    h("span", { class: "badge" }, `source: ${row.source}`),
    row.kind === "tree-node" ? h("span", { class: "badge" }, "tree node") : null,
    row.enabled === false ? h("span", { class: "badge warn" }, "disabled by filter") : null,
    row.shadowedBy ? h("span", { class: "badge warn" }, `shadowed by ${row.shadowedBy}`) : null,
    row.shadows?.length ? h("span", { class: "badge" }, `hides ${row.shadows.join(", ")}`) : null,
    row.errors ? h("span", { class: "badge error" }, `${row.errors} error${row.errors === 1 ? "" : "s"}`) : null,
    row.warnings ? h("span", { class: "badge warn" }, `${row.warnings} warning${row.warnings === 1 ? "" : "s"}`) : null,
  ];
}

export function pager(data, go) {
  if (data.pages <= 1) return null;
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", disabled: data.page <= 1, onclick: () => go(data.page - 1) }, "Previous"),
    h("span", {}, `Page ${data.page} of ${data.pages}`),
    h("button", { type: "button", disabled: data.page >= data.pages, onclick: () => go(data.page + 1) }, "Next"),
  );
}

export function diagnosticsList(items) {
  return h(
    "ul",
    { class: "diag" },
    items.map((d) =>
      h(
        "li",
        {},
        h(
          "span",
          { class: `badge ${d.severity === "error" ? "error" : d.severity === "warning" ? "warn" : ""}` },
          d.severity,
        ),
        " ",
        h("code", {}, d.code),
        " ",
        h("span", { class: "mono" }, d.file),
        h("div", {}, d.message),
      ),
    ),
  );
}

export function keywordBadges(keywords) {
  return h(
    "span",
    { class: "keywords" },
    keywords.map((k) => h("span", { class: "badge" }, k)),
  );
}

export function chainLinks(chain) {
  return chain.map((c, i) => [i ? " → " : "", c.id ? skillLink(c.id, c.path) : c.path]);
}

/** A chart's numbers as a table, folded: readable at any width and by screen readers. */
export function dataTable(caption, head, rows) {
  return h(
    "details",
    {},
    h("summary", {}, `${caption}: data table`),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        {},
        h("caption", { class: "visually-hidden" }, caption),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            head.map((t) => h("th", { scope: "col" }, t)),
          ),
        ),
        h(
          "tbody",
          {},
          rows.map((r) =>
            h(
              "tr",
              {},
              r.map((c) => h("td", {}, String(c))),
            ),
          ),
        ),
      ),
    ),
  );
}
