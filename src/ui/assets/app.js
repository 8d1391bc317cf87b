// SkillHub's page. Read-only: it only GETs /ui/api/*. Everything from the server is put in the page as text
// (textContent); the only HTML it inserts is what the server built with its escaping Markdown renderer and
// SVG charts (setTrustedHtml), and the Content-Security-Policy forbids inline scripts besides.

const TOKEN_KEY = "skillhub-token";
const POLL_MS = 3000;
const main = document.getElementById("main");
const live = document.getElementById("live");
const searchInput = document.getElementById("search-input");
let lastGeneration = null;
let renderSeq = 0;
let searchTimer = null;

/** Build an element: h("a", { href: "#/" }, "text", child). Strings become text nodes, never HTML. */
function h(tag, attrs, ...children) {
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
function setTrustedHtml(el, html) {
  el.innerHTML = html;
  return el;
}

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function api(path, params) {
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

function announce(text) {
  live.textContent = text;
}

/** Replace the main region's content; a stale render (a newer route started) is dropped. */
function show(seq, ...nodes) {
  if (seq !== renderSeq) return false;
  main.replaceChildren(...nodes.flat(2).filter((n) => n !== null && n !== undefined && n !== false));
  return true;
}

function currentNav(name) {
  for (const a of document.querySelectorAll("[data-nav]")) {
    if (a.dataset.nav === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function parseRoute() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [pathPart, queryPart] = hash.split("?");
  const parts = pathPart.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(queryPart || "") };
}

async function render(options) {
  const seq = ++renderSeq;
  const { parts, params } = parseRoute();
  const focus = !options?.keepFocus;
  try {
    if (parts[0] === "search") {
      currentNav("");
      await renderSearch(seq, params.get("q") || "");
    } else if (parts[0] === "skill" && parts[2] === "file") {
      currentNav("skills");
      await renderFile(seq, parts[1], parts.slice(3).join("/"));
    } else if (parts[0] === "skill") {
      currentNav("skills");
      await renderSkill(seq, parts[1]);
    } else if (parts[0] === "trees") {
      currentNav("trees");
      await renderTrees(seq);
    } else if (parts[0] === "usage") {
      currentNav("usage");
      await renderUsage(seq);
    } else if (parts[0] === "status") {
      currentNav("status");
      await renderStatus(seq);
    } else {
      currentNav("skills");
      await renderSkills(seq, params);
    }
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) return renderTokenForm(seq, error.message);
    show(seq, h("h1", { tabindex: "-1" }, "Something went wrong"), h("p", { class: "error-box" }, error.message));
  }
  if (focus && seq === renderSeq) main.querySelector("h1")?.focus();
}

function renderTokenForm(seq, message) {
  const input = h("input", { id: "token-input", type: "password", autocomplete: "off", required: true });
  const hadToken = Boolean(sessionStorage.getItem(TOKEN_KEY));
  const form = h(
    "form",
    {
      class: "token-form",
      onsubmit: (event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (!value) return;
        // Kept for this browser tab only (sessionStorage), never in a cookie or localStorage.
        sessionStorage.setItem(TOKEN_KEY, value);
        render();
      },
    },
    h("label", { for: "token-input" }, "Server token"),
    input,
    h("button", { type: "submit" }, "Open"),
  );
  show(
    seq,
    h("h1", { tabindex: "-1" }, "This server needs its token"),
    h("p", {}, hadToken ? "The token entered was not accepted. " : "", message),
    h("p", { class: "muted" }, "It is kept in this browser tab only, until the tab is closed."),
    form,
  );
  if (hadToken) sessionStorage.removeItem(TOKEN_KEY);
  input.focus();
}

function skillLink(id, text) {
  return h("a", { href: `#/skill/${encodeURIComponent(id)}` }, text);
}

function badges(row) {
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

async function renderSkills(seq, params) {
  const filter = params.get("q") || "";
  const showWhat = params.get("show") || "all";
  const page = Number(params.get("page") || "1");
  const data = await api("skills", { q: filter, show: showWhat, page: String(page), per: "50" });
  const go = (changes) => {
    const next = new URLSearchParams({ q: filter, show: showWhat, page: "1", ...changes });
    location.hash = `#/?${next}`;
  };
  const filterInput = h("input", { id: "list-filter", type: "text", value: filter, autocomplete: "off" });
  const select = h(
    "select",
    { id: "list-show", onchange: (e) => go({ show: e.target.value, q: filterInput.value }) },
    ...[
      ["all", "All skills"],
      ["served", "Served"],
      ["shadowed", "Shadowing or shadowed"],
      ["problems", "With warnings or errors"],
      ["disabled", "Disabled by filter"],
    ].map(([value, label]) => h("option", { value, selected: value === showWhat }, label)),
  );
  const controls = h(
    "form",
    {
      class: "controls",
      onsubmit: (e) => {
        e.preventDefault();
        go({ q: filterInput.value });
      },
    },
    h("label", { class: "grow", for: "list-filter" }, "Filter by name, description, source or tag", filterInput),
    h("label", { for: "list-show" }, "Show", select),
    h("button", { type: "submit" }, "Apply"),
  );
  const list = h(
    "ul",
    { class: "cards" },
    data.items.map((row) =>
      h(
        "li",
        {},
        h("h2", {}, skillLink(row.id, row.name)),
        h("div", { class: "meta" }, badges(row), h("span", { class: "path mono" }, row.dir)),
        h("p", { class: "excerpt" }, row.description),
      ),
    ),
  );
  show(
    seq,
    h("h1", { tabindex: "-1" }, `Skills (${data.total})`),
    controls,
    data.total === 0 ? h("p", { class: "muted" }, "No skill matches.") : list,
    pager(data, (p) => go({ q: filter, page: String(p) })),
  );
}

function pager(data, go) {
  if (data.pages <= 1) return null;
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", disabled: data.page <= 1, onclick: () => go(data.page - 1) }, "Previous"),
    h("span", {}, `Page ${data.page} of ${data.pages}`),
    h("button", { type: "button", disabled: data.page >= data.pages, onclick: () => go(data.page + 1) }, "Next"),
  );
}

async function renderSearch(seq, query) {
  if (searchInput.value !== query && document.activeElement !== searchInput) searchInput.value = query;
  if (!query.trim()) {
    show(seq, h("h1", { tabindex: "-1" }, "Search"), h("p", { class: "muted" }, "Type in the search box to search."));
    return;
  }
  const data = await api("search", { q: query, limit: "20" });
  const results = h(
    "ol",
    { class: "cards", id: "search-results" },
    data.hits.map((hit) =>
      h(
        "li",
        {},
        h("h2", {}, skillLink(hit.id, hit.name)),
        h(
          "div",
          { class: "meta" },
          h("span", { class: "badge" }, `score ${hit.score.toFixed(2)}`),
          h("span", { class: "badge" }, hit.location),
          h("span", { class: "badge" }, `source: ${hit.source}`),
        ),
        h("p", { class: "excerpt" }, hit.excerpt),
      ),
    ),
  );
  const shown = show(
    seq,
    h("h1", { tabindex: "-1" }, `Search: ${query}`),
    data.fallbackReason ? h("p", { class: "notice" }, `Full-text results: ${data.fallbackReason}`) : null,
    data.hits.length === 0 ? h("p", {}, "No skill matches this search.") : results,
  );
  if (shown) announce(`${data.hits.length} result${data.hits.length === 1 ? "" : "s"}`);
}

function diagnosticsList(items) {
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

async function renderSkill(seq, id) {
  const data = await api("skill", { id });
  const s = data.skill;
  const kv = h(
    "dl",
    { class: "kv" },
    h("dt", {}, "Description"),
    h("dd", {}, s.description),
    h("dt", {}, "Qualified name"),
    h("dd", { class: "mono" }, s.id),
    h("dt", {}, "File"),
    h("dd", { class: "mono" }, s.file),
    h("dt", {}, "Modified"),
    h("dd", {}, `${s.modified} · ${s.sizeBytes} bytes · ${s.bodyLines} lines`),
    s.category ? [h("dt", {}, "Category"), h("dd", {}, s.category)] : null,
    s.tags.length ? [h("dt", {}, "Tags"), h("dd", {}, s.tags.join(", "))] : null,
  );
  const parts = [
    h("p", {}, h("a", { href: "#/" }, "← All skills")),
    h("h1", { tabindex: "-1" }, s.name),
    h("div", { class: "meta" }, badges(s)),
    kv,
  ];
  if (data.tree) parts.push(treeSection(data.tree));
  if (data.diagnostics.length) parts.push(h("h2", {}, "Diagnostics"), diagnosticsList(data.diagnostics));
  if (data.files.length || data.filesTruncated) {
    parts.push(
      h("h2", {}, `Files (${data.files.length}${data.filesTruncated ? "+" : ""})`),
      h(
        "ul",
        { class: "files", id: "skill-files" },
        data.files.map((f) =>
          h(
            "li",
            {},
            h(
              "a",
              {
                href: `#/skill/${encodeURIComponent(s.id)}/file/${f.path.split("/").map(encodeURIComponent).join("/")}`,
              },
              f.path,
            ),
            f.size !== undefined ? h("span", { class: "muted" }, ` ${f.size} bytes`) : null,
            f.kind ? h("span", { class: "muted" }, ` · ${f.kind}`) : null,
            f.from ? h("span", { class: "muted" }, ` · inherited from ${f.from}`) : null,
            f.description ? h("span", { class: "muted" }, ` · ${f.description}`) : null,
          ),
        ),
      ),
    );
  }
  const fm = Object.keys(s.frontmatter || {});
  if (fm.length)
    parts.push(h("details", {}, h("summary", {}, "Frontmatter"), h("pre", {}, JSON.stringify(s.frontmatter, null, 2))));
  if (data.notice) parts.push(h("p", { class: "notice" }, data.notice));
  if (data.html !== undefined)
    parts.push(
      h("h2", { class: "visually-hidden" }, "Instructions"),
      setTrustedHtml(h("article", { class: "markdown", id: "skill-body" }), data.html),
    );
  show(seq, ...parts);
}

function treeSection(tree) {
  return h(
    "section",
    { "aria-label": "Tree node" },
    h("h2", {}, "Tree node"),
    h(
      "dl",
      { class: "kv" },
      h("dt", {}, "Path"),
      h("dd", { class: "mono" }, tree.path),
      h("dt", {}, "Keywords"),
      h("dd", {}, keywordBadges(tree.keywords)),
      h("dt", {}, "Inherits"),
      h("dd", {}, tree.inherit ? "yes" : "no (inherit: false)"),
      h("dt", {}, "Priority"),
      h("dd", {}, String(tree.priority)),
      h("dt", {}, "Chain"),
      h("dd", { class: "chain" }, chainLinks(tree.chain.map((c) => ({ id: c.id, path: c.path })))),
      tree.children.length
        ? [
            h("dt", {}, "Children"),
            h(
              "dd",
              {},
              tree.children.map((c, i) => [i ? ", " : "", skillLink(c.id, c.path)]),
            ),
          ]
        : null,
    ),
  );
}

function keywordBadges(keywords) {
  return h(
    "span",
    { class: "keywords" },
    keywords.map((k) => h("span", { class: "badge" }, k)),
  );
}

function chainLinks(chain) {
  return chain.map((c, i) => [i ? " → " : "", c.id ? skillLink(c.id, c.path) : c.path]);
}

async function renderFile(seq, id, path) {
  const data = await api("file", { id, path });
  const back = h("p", {}, h("a", { href: `#/skill/${encodeURIComponent(id)}` }, "← Back to the skill"));
  const info = `${data.sizeBytes} bytes${data.truncated ? " (only the first part is shown: MAX_FILE_BYTES)" : ""}`;
  let body;
  if (data.binary) body = h("p", { class: "notice" }, `Binary file (${data.mimeType}); not shown.`);
  else if (data.html !== undefined)
    body = [
      setTrustedHtml(h("article", { class: "markdown", id: "file-body" }), data.html),
      h("details", {}, h("summary", {}, "Source"), h("pre", {}, data.text)),
    ];
  else body = h("pre", { id: "file-body" }, h("code", {}, data.text));
  show(seq, back, h("h1", { tabindex: "-1" }, data.path), h("p", { class: "muted" }, info), body);
}

function treeNode(node) {
  const label = node.id ? skillLink(node.id, node.name) : h("strong", {}, node.name || "(trees)");
  const line = h(
    "span",
    { class: "node" },
    label,
    node.keywords.length ? keywordBadges(node.keywords) : null,
    node.inherit === false ? h("span", { class: "badge warn" }, "inherit: false") : null,
    node.assetCount
      ? h("span", { class: "muted" }, `${node.assetCount} asset${node.assetCount === 1 ? "" : "s"}`)
      : null,
    node.scriptCount
      ? h("span", { class: "muted" }, `${node.scriptCount} script${node.scriptCount === 1 ? "" : "s"}`)
      : null,
  );
  const desc = [
    node.description ? h("span", { class: "desc" }, node.description) : null,
    node.chain.length > 1 ? h("span", { class: "desc chain" }, `inherits: ${node.chain.join(" → ")}`) : null,
  ];
  if (!node.children.length) return h("li", {}, line, desc);
  return h(
    "li",
    {},
    h(
      "details",
      { open: true },
      h("summary", {}, line),
      desc,
      h("ul", { class: "subtree" }, node.children.map(treeNode)),
    ),
  );
}

async function renderTrees(seq) {
  const data = await api("tree");
  if (!data.tree) {
    show(
      seq,
      h("h1", { tabindex: "-1" }, "Skill trees"),
      h("p", {}, "No skill tree is served (folders of Markdown nodes with keywords; see the README)."),
    );
    return;
  }
  show(
    seq,
    h("h1", { tabindex: "-1" }, "Skill trees"),
    h("ul", { class: "tree", id: "skill-tree" }, treeNode(data.tree)),
  );
}

/** A chart's numbers as a table, folded: readable at any width and by screen readers. */
function dataTable(caption, head, rows) {
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

async function renderUsage(seq) {
  const data = await api("usage", { days: "30" });
  const s = data.summary;
  const parts = [h("h1", { tabindex: "-1" }, "Usage"), h("p", { class: "muted" }, `Analytics: ${data.analytics}`)];
  if (data.events === 0) {
    parts.push(
      h(
        "p",
        { class: "notice" },
        "No analytics events recorded yet. Turn on local analytics with SKILLHUB_ANALYTICS_FILE=<file> (or analytics.file in config.yaml).",
      ),
    );
    show(seq, ...parts);
    return;
  }
  parts.push(
    h("p", {}, `${data.events} events from ${s.period.from} to ${s.period.to} in ${data.files.join(", ")}`),
    h(
      "div",
      { class: "charts" },
      h(
        "section",
        { "aria-labelledby": "loads-h" },
        h("h2", { id: "loads-h" }, "Loads per skill per day"),
        setTrustedHtml(h("div", { id: "chart-loads" }), data.svg.loads),
        h(
          "ul",
          { class: "legend" },
          data.series.map((series, i) =>
            h("li", {}, h("span", { class: `swatch c${i % 7}` }), `${series.skill} (${series.total})`),
          ),
        ),
        dataTable(
          "Loads per day",
          ["Day", ...data.series.map((x) => x.skill)],
          data.days.map((day, i) => [day, ...data.series.map((x) => x.counts[i])]),
        ),
      ),
      h(
        "section",
        { "aria-labelledby": "top-h" },
        h("h2", { id: "top-h" }, "Top skills"),
        setTrustedHtml(h("div", { id: "chart-top" }), data.svg.top),
        dataTable(
          "Top skills",
          ["Skill", "Uses", "Loaded", "Served by get_skill"],
          s.most_used.map((u) => [u.skill, u.uses, u.loaded, u.served]),
        ),
      ),
      h(
        "section",
        { "aria-labelledby": "miss-h" },
        h("h2", { id: "miss-h" }, "Searches without a hit"),
        data.misses.length
          ? [
              setTrustedHtml(h("div", { id: "chart-misses" }), data.svg.misses),
              dataTable(
                "Searches without a hit",
                ["Request", "Times"],
                data.misses.map((m) => [m.label, m.value]),
              ),
            ]
          : h("p", {}, "None recorded."),
      ),
    ),
  );
  if (s.never_used_count)
    parts.push(
      h("h2", {}, `Never used (${s.never_used_count})`),
      h("p", {}, s.never_used.join(", "), s.never_used_count > s.never_used.length ? " …" : ""),
    );
  show(seq, ...parts);
}

async function renderStatus(seq) {
  const [data, diags] = await Promise.all([api("overview"), api("diagnostics", { page: "1" })]);
  const c = data.counts;
  const sources = h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, "Sources, in precedence order"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["#", "Label", "Location", "Folder", "Skills"].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        {},
        data.sources.map((src, i) =>
          h(
            "tr",
            {},
            h("td", {}, String(i + 1)),
            h("td", {}, src.label),
            h("td", {}, src.location),
            h("td", { class: "mono" }, src.dir),
            h(
              "td",
              {},
              src.exists ? `${src.served}${src.shadowed ? ` (+${src.shadowed} shadowed)` : ""}` : "not present",
            ),
          ),
        ),
      ),
    ),
  );
  const git = data.git.configured
    ? [
        h("p", {}, `Branch ${data.git.branch}; sync ${data.git.interval}; last sync ${data.git.lastSync || "never"}`),
        data.git.gitFound ? null : h("p", { class: "error-box" }, "The git executable is not on PATH."),
        h(
          "ul",
          { class: "cards", id: "git-repos" },
          data.git.repos.map((r) =>
            h(
              "li",
              {},
              h("h3", {}, r.name),
              h("div", { class: "meta" }, h("span", { class: "mono" }, r.url)),
              h(
                "p",
                {},
                r.commit
                  ? `Copy at ${r.commit.slice(0, 7)}, synced ${r.lastSync}`
                  : "Not synced yet: no local copy. Run `skillhub sync` and read its message.",
              ),
            ),
          ),
        ),
      ]
    : h("p", { class: "muted" }, "No git repository configured (SKILLS_REPO).");
  show(
    seq,
    h("h1", { tabindex: "-1" }, "Status"),
    h(
      "dl",
      { class: "kv" },
      h("dt", {}, "Version"),
      h("dd", {}, data.version),
      h("dt", {}, "Project root"),
      h("dd", { class: "mono" }, `${data.projectRoot.dir || "(none)"} (${data.projectRoot.how})`),
      h("dt", {}, "Skills"),
      h(
        "dd",
        {},
        `${c.skills} served (${c.treeNodes} tree nodes), ${c.shadowed} shadowed, ${c.disabled} disabled by filter`,
      ),
      h("dt", {}, "Diagnostics"),
      h("dd", {}, `${c.errors} errors (skills not served), ${c.warnings} warnings`),
      h("dt", {}, "Tools"),
      h("dd", {}, data.settings.tools.join(", ")),
      h("dt", {}, "Filters"),
      h("dd", {}, data.settings.filters),
      h("dt", {}, "Search"),
      h("dd", {}, data.settings.search),
      h("dt", {}, "Rescan"),
      h("dd", {}, `${data.settings.rescan}; watcher ${data.settings.watcher}`),
    ),
    h("h2", {}, "Sources"),
    sources,
    h("h2", {}, "Git sync"),
    git,
    h("h2", {}, `Diagnostics (${diags.total})`),
    diags.total ? diagnosticsList(diags.items) : h("p", {}, "None."),
    diags.pages > 1
      ? h("p", { class: "muted" }, `Showing the first ${diags.items.length}; skillhub doctor lists them all.`)
      : null,
  );
}

/** Live updates: poll a cheap generation number; re-render the current view when the catalog or usage changed. */
async function poll() {
  try {
    const g = await api("generation");
    const key = `${g.generation}:${g.content}:${g.usage}`;
    if (lastGeneration !== null && key !== lastGeneration) {
      await render({ keepFocus: true });
      announce("Updated: the skills changed on the server.");
      document.getElementById("foot-updated").textContent = `· updated ${new Date().toLocaleTimeString()}`;
    }
    lastGeneration = key;
  } catch {
    // A 401 is shown by the next render; a network blip is retried at the next poll.
  }
}

searchInput.addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    const q = searchInput.value;
    const target = q.trim() ? `#/search?${new URLSearchParams({ q })}` : "#/";
    if (location.hash.startsWith("#/search")) {
      history.replaceState(null, "", target);
      render({ keepFocus: true });
    } else {
      location.hash = target;
    }
  }, 120);
});
document.getElementById("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  clearTimeout(searchTimer);
  location.hash = `#/search?${new URLSearchParams({ q: searchInput.value })}`;
});
// The skip link must not change the hash: the hash is the page's route.
document.querySelector(".skip").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});
window.addEventListener("hashchange", () => render({ keepFocus: document.activeElement === searchInput }));
render({ keepFocus: true });
setInterval(poll, POLL_MS);
poll();
