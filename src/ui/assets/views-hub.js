// Views of the whole hub: skill trees, usage charts, status (what `skillhub doctor` explains).
import {
  api,
  dataTable,
  diagnosticsList,
  h,
  keywordBadges,
  setTrustedHtml,
  show,
  skillLink,
  when,
  withheldNotice,
} from "./dom.js";

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

export async function renderTrees(seq) {
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

export async function renderUsage(seq) {
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
        data.withheld
          ? withheldNotice(data.withheld)
          : data.misses.length
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

export async function renderStatus(seq) {
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
        h(
          "p",
          {},
          `Branch ${data.git.branch}; sync ${data.git.interval}; last successful sync `,
          when(data.git.lastSync),
        ),
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
                  ? [`Copy at ${r.commit.slice(0, 7)}, synced `, when(r.lastSync)]
                  : "Not synced yet: no local copy. Run `skillhub sync` and read its message.",
              ),
              // As `skillhub doctor` says it: the copy above is what is served until a sync succeeds.
              r.lastError
                ? h(
                    "p",
                    { class: "error-box sync-failed" },
                    "The last sync failed (",
                    when(r.lastError.at),
                    `, ${r.lastError.code}): ${r.lastError.message}`,
                  )
                : null,
            ),
          ),
        ),
      ]
    : h("p", { class: "muted" }, "No git repository configured (SKILLS_REPO).");
  show(
    seq,
    h("h1", { tabindex: "-1" }, "Status"),
    data.withheld ? withheldNotice(data.withheld) : null,
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
      h("dd", {}, `${c.errors} errors (what they name is not served), ${c.warnings} warnings`),
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
