// Views of skills: the paginated list, search results, a skill's page, one of its files.
import {
  announce,
  api,
  badges,
  chainLinks,
  diagnosticsList,
  h,
  keywordBadges,
  pager,
  setTrustedHtml,
  show,
  skillLink,
  when,
} from "./dom.js";

export async function renderSkills(seq, params) {
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
    // What the number counts, as `skillhub list` says it: served skills, then those a same-named one hides.
    h("h1", { tabindex: "-1" }, skillsHeading(data)),
    controls,
    data.total === 0 ? h("p", { class: "muted" }, "No skill matches.") : list,
    pager(data, (p) => go({ q: filter, page: String(p) })),
  );
}

/** "Skills: 1,018 served, 10 shadowed" (the shadowed part only when there are some). */
function skillsHeading(data) {
  const n = (count) => count.toLocaleString("en-US");
  return `Skills: ${n(data.served)} served${data.shadowed > 0 ? `, ${n(data.shadowed)} shadowed` : ""}`;
}

export async function renderSearch(seq, query) {
  const searchInput = document.getElementById("search-input");
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

export async function renderSkill(seq, id) {
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
    h("dd", {}, when(s.modified), ` · ${s.sizeBytes} bytes · ${s.bodyLines} lines`),
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

export async function renderFile(seq, id, path) {
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
  else
    body = [
      // Security: an SVG is shown as its source, as text; drawn, its script would run on this page's origin.
      data.mimeType === "image/svg+xml" ? h("p", { class: "muted" }, "An SVG image, shown as its source.") : null,
      h("pre", { id: "file-body" }, h("code", {}, data.text)),
    ];
  const skillName = id.slice(id.indexOf(":") + 1);
  show(
    seq,
    back,
    h("h1", { tabindex: "-1", "data-title": `${data.path} · ${skillName}` }, data.path),
    h("p", { class: "muted" }, info),
    body,
  );
}
