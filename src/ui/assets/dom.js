// The page's building blocks: elements from text (never HTML), the API client, the render guard, and the
// small pieces every view uses. Everything from the server is put in the page as text (textContent); the
// only HTML inserted is what the server built with its escaping Markdown renderer and SVG charts
// (setTrustedHtml), and the Content-Security-Policy forbids inline scripts besides.

export const TOKEN_KEY = "skillhub-token";
const main = document.getElementById("main");
const live = document.getElementById("live");
let renderSeq = 0;
/** Whether the current render draws the same view again (a live update), keeping what the reader had open. */
let redrawing = false;

/**
 * Start a render; returns its number. A newer render makes older ones stale (see show). `redraw`: the same
 * view drawn again with fresh data, which keeps the focused element and the open <details> (see show).
 */
export function nextRender(redraw = false) {
  renderSeq += 1;
  redrawing = redraw;
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
  // Any depth: a nested list of children is spread, never turned into text (an element's text is its href).
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
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

/**
 * Replace the main region's content; a stale render (a newer route started) is dropped. A redraw keeps
 * the reader's place: the element that had focus (found again by id, link target or summary text) and
 * the <details> that were open.
 */
export function show(seq, ...nodes) {
  if (!isCurrent(seq)) return false;
  const kept = redrawing ? readerState() : null;
  main.replaceChildren(
    ...nodes.flat(Number.POSITIVE_INFINITY).filter((n) => n !== null && n !== undefined && n !== false),
  );
  if (kept) restoreReaderState(kept);
  return true;
}

/**
 * Elements of `main` matching `selector`, each with a key that finds it again after a redraw: its id, else
 * its tag and its link target (a link) or text, with its rank among elements keyed alike. One pass.
 */
function keyed(selector) {
  const seen = new Map();
  return [...main.querySelectorAll(selector)].map((el) => {
    const base = el.id ? `#${el.id}` : `${el.tagName}|${el.tagName === "A" ? el.getAttribute("href") : el.textContent}`;
    const rank = seen.get(base) ?? 0;
    seen.set(base, rank + 1);
    return [`${base}|${rank}`, el];
  });
}

function readerState() {
  const active = document.activeElement;
  const inMain = active && active !== main && main.contains(active);
  return {
    focused: inMain
      ? { tag: active.tagName, key: keyed(active.tagName).find(([, el]) => el === active)?.[0] }
      : undefined,
    // What the reader typed in a field of the view (the list's filter) is theirs, not the server's.
    value: inMain && "value" in active ? active.value : undefined,
    open: new Map(keyed("details > summary").map(([key, el]) => [key, el.parentElement.open])),
  };
}

function restoreReaderState({ focused, value, open }) {
  if (open.size)
    for (const [key, el] of keyed("details > summary")) if (open.has(key)) el.parentElement.open = open.get(key);
  if (focused === undefined) return;
  // Gone from the new view: the focus stays in the content, on its heading, rather than falling to <body>.
  const el = keyed(focused.tag).find(([key]) => key === focused.key)?.[1] ?? main.querySelector("h1");
  if (!el) return;
  if (value !== undefined && "value" in el) el.value = value;
  el.focus({ preventScroll: true });
}

/** A time the server sent (ISO 8601, UTC) in the reader's own zone and format; the exact value on hover. */
export function when(iso) {
  const date = new Date(iso ?? "");
  if (Number.isNaN(date.getTime())) return iso || "never";
  return h("time", { datetime: iso, title: iso }, date.toLocaleString());
}

/** Asked of app.js by a view: show the token form, for the admin token, over the current view. */
export const ASK_TOKEN = "skillhub-ask-token";

/**
 * What the server keeps from a client's token (its sentence, `withheld`), and a way for the operator to enter
 * the admin token on this page.
 */
export function withheldNotice(text) {
  return h(
    "p",
    { class: "notice withheld" },
    text,
    " ",
    h(
      "button",
      { type: "button", onclick: () => document.dispatchEvent(new CustomEvent(ASK_TOKEN)) },
      "Enter the admin token",
    ),
  );
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
