// SkillHub's page: routing, the token prompt, live updates. Read-only: it only GETs /ui/api/*.
// Views live in views-skills.js and views-hub.js; the building blocks (and the escaping rules) in dom.js.
import { announce, api, HttpError, h, isCurrent, nextRender, show, TOKEN_KEY } from "./dom.js";
import { renderStatus, renderTrees, renderUsage } from "./views-hub.js";
import { renderFile, renderSearch, renderSkill, renderSkills } from "./views-skills.js";

const POLL_MS = 3000;
const main = document.getElementById("main");
const searchInput = document.getElementById("search-input");
let lastGeneration = null;
let searchTimer = null;

function currentNav(name) {
  for (const a of document.querySelectorAll("[data-nav]")) {
    if (a.dataset.nav === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function parseRoute() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [pathPart, queryPart] = hash.split("?");
  const parts = pathPart.split("/").filter(Boolean).map(decodeOrKeep);
  return { parts, params: new URLSearchParams(queryPart || "") };
}

/** A malformed escape (`#/skill/%E0`) is kept as typed: the page then says what it cannot find. */
function decodeOrKeep(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

async function render(options) {
  const seq = nextRender();
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
  if (focus && isCurrent(seq)) main.querySelector("h1")?.focus();
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
